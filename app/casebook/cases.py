"""The casebook: every penalty ruling as a page anyone can read, like the appeals
casebooks of bridge (the deal diagram, the facts, the ruling, the decision, a comment).

Each case is the state the ruling was made in (every hand, in compass layout, drawn
with the web's card pictures), the facts and the rule with a link to its section, the
appeal and the decision, the hypotheticals made from the deal with their recorded
rollout summaries, and the annotations of the hearing. A ruling whose deal still runs
is left out (its hands are hidden information); the index says so.

HTML pages are self-contained (inline SVG and CSS, relative links to the rules pages
written beside them): the folder opens from disk with no server and no network.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

import msgspec

from kartludo.app.audit.rulings import RulingContext, deal_has_ended, fact_words, ruling_context, seat_label
from kartludo.app.errors import AppError
from kartludo.projections.audit import AuditRecord
from kartludo.store import EventStore

FORMATS = ("html", "md")


class Case(msgspec.Struct):
    record: AuditRecord
    context: RulingContext
    #: the replay step of the ruled event (the diagram shows the state just before it)
    step: int
    steps: int
    svg: str
    rule_page: str | None
    rule_anchor: str | None
    #: every hypothetical of the deal with all of its rollout summaries
    hypotheticals: list[dict[str, Any]]
    annotations: list[dict[str, Any]]


class Skipped(msgspec.Struct):
    id: str
    reason: str


def file_name(audit_id: str) -> str:
    """A case's file name from its audit id (``MATCH/RULING``): safe on every file system."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", audit_id.replace("/", "__"))


def build_case(store: EventStore, record: AuditRecord) -> Case:
    from kartludo.app.casebook import rulebook
    from kartludo.app.casebook.diagrams import diagram
    from kartludo.app.hypotheticals.hypothetical import fold, rollout_json
    from kartludo.app.matches.pipeline import stream_of
    from kartludo.app.reading.replay import build

    ctx = ruling_context(store, record)
    rep = build(record.match, store.read_stream(stream_of(record.match)), record.deal)
    k = next((s.index for s in rep.steps if s.record.version == record.version), None)
    if k is None:
        raise AppError(f"ruling {record.id} is not an event of deal {record.deal} of its match")
    m = rep.match
    caption = f"{m.game.title} · deal {record.deal} · before step {k}/{len(rep.steps)}: the ruling on {record.player}"
    svg = diagram(m.game, rep.steps[k - 1].before, m.players, caption=caption)
    page = anchor = None
    for c in rulebook.citations(record.rule, record.game):
        if c.section is not None:
            page, anchor = c.game, c.section.anchor
            break
    hypos = []
    for h in ctx.hypotheticals:
        full = fold(store, h["hypothetical"])
        hypos.append({**h, "rollouts_all": [rollout_json(r) for r in full.rollouts]})
    from kartludo.app.audit.hearing import annotations_of

    return Case(record, ctx, k, len(rep.steps), svg, page, anchor, hypos,
                [msgspec.to_builtins(a) for a in annotations_of(store, record.id)])


def collect(store: EventStore, rulings: list[AuditRecord], game: str | None = None) -> tuple[list[Case], list[Skipped]]:
    """The cases to publish among ``rulings`` (those of ended deals) and the rulings left out."""
    cases, skipped = [], []
    for record in rulings:
        if game and record.game != game:
            continue
        if not deal_has_ended(store, record):
            skipped.append(Skipped(record.id, f"deal {record.deal} is still being played: its hands are hidden"))
            continue
        cases.append(build_case(store, record))
    return cases, skipped


# --- writing -----------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,'Segoe UI','DejaVu Sans',Arial,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;
color:#1d1d1d;line-height:1.45}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:1.6rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
.muted{color:#555}.diagram{overflow-x:auto}.status{font-weight:700}pre{white-space:pre-wrap;background:#f5f5f5;
padding:.5rem}nav a{margin-right:1rem}.annotation{border-left:3px solid #6a8;padding-left:.6rem;margin:.4rem 0}
"""


def _html_page(title: str, body: str, up: str = "") -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="data:,"><title>{escape(title)} · kartludo casebook</title>'
            f"<style>{CSS}</style></head><body>"
            f'<nav><a href="{up}index.html">Casebook index</a></nav>{body}</body></html>\n')


def _adjusted(a: dict[str, Any]) -> str:
    """An adjustment: as played, the weighted mean when it is not whole, and the whole
    points awarded (the score as played moved by the recorded adjustment)."""
    awarded = {p: a["recorded"][p] + a["adjustment"][p] for p in a["recorded"]}
    exact = a["adjusted"]
    mean = "" if all(float(v).is_integer() for v in exact.values()) else f" (weighted mean {_scores(exact)})"
    return f"as played {_scores(a['recorded'])} → awarded {_scores(awarded)}{mean}"


def _kv(d: dict[str, Any]) -> str:
    rows = "".join(f"<tr><th>{escape(str(k).replace('_', ' '))}</th><td>{escape(fact_words(v))}</td></tr>"
                   for k, v in d.items())
    return f"<table>{rows}</table>" if rows else '<p class="muted">none recorded</p>'


def _scores(d: dict[str, Any] | None) -> str:
    return ", ".join(f"{p} {v:+g}" for p, v in d.items()) if d else "unsettled"


def _rollout_line(r: dict[str, Any]) -> str:
    means = ", ".join(f"{p} mean {st['mean']:+.2f} (p10 {st['p10']:+g}, p50 {st['p50']:+g}, p90 {st['p90']:+g})"
                      for p, st in r["players"].items())
    seed = "unseeded" if r["seed"] is None else f"seed {r['seed']}"
    return f"n={r['n']} · {r['bots']} bots · hidden cards {r['hidden']} · {seed}: {means}"


def _rule_href(case: Case, up: str = "../") -> str | None:
    if case.rule_page is None:
        return None
    return f"{up}rules/{case.rule_page}.html#{case.rule_anchor}"


def case_html(case: Case) -> str:
    r, ctx = case.record, case.context
    parts = [f"<h1>Ruling {escape(r.id)}</h1>",
             f'<p>{escape(r.game)} · match {escape(r.match)} · deal {r.deal} · event #{r.position} (v{r.version}) · '
             f'{escape(r.recorded_at)} · on <b>{escape(r.player)}</b> (seat {escape(seat_label(r.game, r.seat))}) · '
             f'<span class="status">{escape(r.status)}</span></p>',
             "<h2>The deal when ruled</h2>",
             f'<div class="diagram">{case.svg}</div>',
             "<h2>The rule</h2>"]
    href = _rule_href(case)
    rule = escape(r.rule)
    parts.append(f'<p><a href="{href}">{rule}</a></p>' if href else f"<p>{rule}</p>")
    parts += ["<h2>The facts</h2>", _kv(r.facts), "<h3>Effect</h3>", _kv(r.effect)]
    if r.series_effect:
        parts.append(f"<p>Series: {escape(r.series_effect)}</p>")
    parts.append("<h2>Events around the ruling</h2><pre>" + escape("\n".join(ctx.before + ["—"] + ctx.after))
                 + "</pre>")
    parts.append("<h2>Appeal and decision</h2>")
    if r.history:
        parts.append("<ul>" + "".join(f"<li>{escape(h['at'])} · <b>{escape(h['kind'])}</b> by {escape(h['by'])}: "
                                      f"{escape(h['reason'])}</li>" for h in r.history) + "</ul>")
    else:
        parts.append('<p class="muted">not appealed</p>')
    for a in ctx.adjustments:
        weights = ", ".join(f"{h} × {w:g}" for h, w in a["weights"].items()) or "set directly"
        parts.append(f"<p>Adjusted by {escape(a['by'])} ({escape(weights)}): {escape(_adjusted(a))}</p>")
    parts.append("<h2>Hypotheticals and rollouts</h2>")
    if not case.hypotheticals:
        parts.append('<p class="muted">none</p>')
    for h in case.hypotheticals:
        label = f" “{escape(h['label'])}”" if h["label"] else ""
        rolls = "".join(f"<li>{escape(_rollout_line(x))}</li>" for x in h["rollouts_all"])
        parts.append(f"<h3>{escape(h['hypothetical'])} from step {h['step']}{label}</h3>"
                     f"<p>{h['moves']} moves · deal score: {escape(_scores(h['deal_scores']))}</p>"
                     + (f"<ul>{rolls}</ul>" if rolls else ""))
    parts.append("<h2>Annotations</h2>")
    if not case.annotations:
        parts.append('<p class="muted">none</p>')
    for a in case.annotations:
        parts.append(f'<div class="annotation"><b>{escape(a["by"])}</b> on event v{a["version"]} '
                     f'(step {a["step"]}): {escape(a["text"])} <span class="muted">{escape(a["at"])}</span></div>')
    return _html_page(f"Ruling {r.id}", "".join(parts), up="../")


def case_md(case: Case) -> str:
    r, ctx = case.record, case.context
    href = _rule_href(case)
    lines = [f"# Ruling {r.id}", "",
             f"{r.game} · match {r.match} · deal {r.deal} · event #{r.position} (v{r.version}) · {r.recorded_at} · "
             f"on **{r.player}** (seat {seat_label(r.game, r.seat)}) · **{r.status}**", "",
             "## The deal when ruled", "", f"![deal diagram]({file_name(r.id)}.svg)", "",
             "## The rule", "", f"[{r.rule}]({href})" if href else r.rule, "", "## The facts", ""]
    lines += [f"- {k.replace('_', ' ')}: {fact_words(v)}" for k, v in r.facts.items()] or ["none recorded"]
    lines += ["", "### Effect", ""]
    lines += [f"- {k.replace('_', ' ')}: {fact_words(v)}" for k, v in r.effect.items()] or ["none recorded"]
    if r.series_effect:
        lines += ["", f"Series: {r.series_effect}"]
    lines += ["", "## Events around the ruling", "", "```", *ctx.before, "—", *ctx.after, "```", "",
              "## Appeal and decision", ""]
    lines += [f"- {h['at']} · **{h['kind']}** by {h['by']}: {h['reason']}" for h in r.history] or ["not appealed"]
    for a in ctx.adjustments:
        lines.append(f"- adjusted by {a['by']}: {_adjusted(a)}")
    lines += ["", "## Hypotheticals and rollouts", ""]
    if not case.hypotheticals:
        lines.append("none")
    for h in case.hypotheticals:
        lines.append(f"- {h['hypothetical']} from step {h['step']}" + (f" “{h['label']}”" if h["label"] else "")
                     + f": {h['moves']} moves, deal score {_scores(h['deal_scores'])}")
        lines += [f"  - rollout {_rollout_line(x)}" for x in h["rollouts_all"]]
    lines += ["", "## Annotations", ""]
    lines += [f"- **{a['by']}** on event v{a['version']} (step {a['step']}): {a['text']} ({a['at']})"
              for a in case.annotations] or ["none"]
    return "\n".join(lines) + "\n"


def _rules_html(page: str) -> str:
    from kartludo.app.casebook import rulebook

    html = rulebook.render(page)
    html = re.sub(r'href="/ui/rules/([a-z][a-z-]*)(#[^"]*)?"', lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"',
                  html)
    html = html.replace('href="/ui/rules/"', 'href="../index.html"')
    return _html_page(f"Rules · {page}", f'<article class="rules">{html}</article>', up="../")


def write(store: EventStore, out: Path, fmt: str = "html", *, rulings: list[AuditRecord],
          game: str | None = None) -> tuple[list[Path], list[Skipped]]:
    """Write the casebook of ``rulings`` (``app.audit.trail.list_rulings``) into
    ``out``: ``index.EXT``, ``cases/…`` (one page per ruling; Markdown pages get their
    diagram as an ``.svg`` beside them), ``rules/…`` (the rules pages the cases link
    to). Returns the case pages written and the rulings left out."""
    from kartludo.app.casebook import rulebook

    if fmt not in FORMATS:
        raise AppError(f"unknown casebook format {fmt!r} (choose {' or '.join(FORMATS)})")
    if out.exists() and not out.is_dir():
        raise AppError(f"{out} exists and is not a folder")
    cases, skipped = collect(store, rulings, game)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    (out / "rules").mkdir(exist_ok=True)
    written = []
    pages = set()
    for case in cases:
        name = file_name(case.record.id)
        path = out / "cases" / f"{name}.{fmt}"
        if fmt == "html":
            path.write_text(case_html(case), encoding="utf-8")
        else:
            (out / "cases" / f"{name}.svg").write_text(case.svg, encoding="utf-8")
            path.write_text(case_md(case), encoding="utf-8")
        written.append(path)
        if case.rule_page:
            pages.add(case.rule_page)
    for page in sorted(pages):
        if fmt == "html":
            (out / "rules" / f"{page}.html").write_text(_rules_html(page), encoding="utf-8")
        else:
            (out / "rules" / f"{page}.md").write_text(rulebook.page_text(page), encoding="utf-8")
    (out / f"index.{fmt}").write_text(_index(cases, skipped, fmt), encoding="utf-8")
    return written, skipped


def _index(cases: list[Case], skipped: list[Skipped], fmt: str) -> str:
    if fmt == "md":
        lines = ["# Casebook", "", f"{len(cases)} rulings.", ""]
        lines += [f"- [{c.record.id}](cases/{file_name(c.record.id)}.md) · {c.record.game} · deal {c.record.deal} · "
                  f"{c.record.player} · {c.record.status} · {c.record.rule}" for c in cases]
        if skipped:
            lines += ["", "## Not published", ""] + [f"- {s.id}: {s.reason}" for s in skipped]
        return "\n".join(lines) + "\n"
    rows = "".join(f'<tr><td><a href="cases/{file_name(c.record.id)}.html">{escape(c.record.id)}</a></td>'
                   f"<td>{escape(c.record.game)}</td><td>{c.record.deal}</td><td>{escape(c.record.player)}</td>"
                   f"<td>{escape(c.record.status)}</td><td>{escape(c.record.rule)}</td></tr>" for c in cases)
    body = (f"<h1>Casebook</h1><p>{len(cases)} rulings.</p><table><tr><th>ruling</th><th>game</th><th>deal</th>"
            f"<th>player</th><th>status</th><th>rule</th></tr>{rows}</table>")
    if skipped:
        body += "<h2>Not published</h2><ul>" + "".join(f"<li>{escape(s.id)}: {escape(s.reason)}</li>"
                                                       for s in skipped) + "</ul>"
    return _html_page("Casebook", body).replace('<nav><a href="index.html">Casebook index</a></nav>', "")
