"""``kartludo audit``: the penalty audit trail, appeals and TD decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.listing import AUDIT_STATUSES
from kartludo.cli.output import DOCUMENT, emit, output_options

if TYPE_CHECKING:
    from kartludo.projections.audit import AuditRecord


def _record_lines(r: AuditRecord) -> list[str]:
    from kartludo.app.audit.rulings import fact_words, seat_label

    lines = [
        f"ruling {r.id}  ({r.status})",
        f"  match {r.match} · {r.game} · deal {r.deal} · event #{r.position} (v{r.version}) · {r.recorded_at}",
        f"  player {r.player} (seat {seat_label(r.game, r.seat)}) · {r.type}",
        f"  rule: {r.rule}",
        "  facts:" + ("" if r.facts else " none"),
        *(f"    {k.replace('_', ' ')}: {fact_words(v)}" for k, v in r.facts.items()),
        "  effect:" + ("" if r.effect else " none"),
        *(f"    {k.replace('_', ' ')}: {fact_words(v)}" for k, v in r.effect.items()),
    ]
    if r.series_effect:
        lines.append(f"  series: {r.series_effect}")
    for v in r.voided:
        lines.append(f"  voided at event #{v['position']}: {v['payer']} would have paid {v['payee']} {v['amount']}"
                     f" ({v['reason']})")
    if r.lifted_position:
        lines.append(f"  lifted at event #{r.lifted_position}")
    return lines


@click.group()
def audit() -> None:
    """The audit trail of penalty rulings: list, show, appeal, decide, recheck.

    \b
    Example:
        kartludo audit list --player bob
        kartludo audit appeal 3f9c/uxinjo-d2-Su --by bob --reason "the split scores 3"
        kartludo audit decide 3f9c/uxinjo-d2-Su --by td-mia --overturn --reason "miscounted"
    """


@audit.command("list")
@click.option("--match", "match_id", help="Only this match (any unique id prefix).")
@click.option("--player", help="Only rulings on this player.")
@click.option("--game", help="Only rulings in matches of this game.")
@click.option("--status", type=click.Choice(AUDIT_STATUSES),
              help="Only rulings in this state (decision: a claim or levu voided without a penalty).")
@output_options
@pass_env
def list_cmd(env: Env, match_id: str | None, player: str | None, game: str | None, status: str | None,
             fmt: str) -> None:
    """Every recorded ruling with its status (standing, appealed, upheld, overturned),
    and each decision that voided a claim or a levu without a penalty (status
    "decision"), in the order they were made. `audit show ID` shows one in full.

    \b
    Example:
        kartludo audit list --match 3f9c
        kartludo audit list --status appealed --game uxinjo
    """
    from kartludo.cli.listing import audit_rows, list_audit

    records = env.read_models(lambda store, done: list_audit(store, match=match_id, player=player, game=game,
                                                             status=status, refreshed=done))
    filters = ", ".join(f"--{k} {v}" for k, v in [("match", match_id), ("player", player), ("game", game),
                                                  ("status", status)] if v)
    emit(fmt, ["id", "status", "game", "deal", "player", "judged", "rule"], audit_rows(records),
         below=["rule"], json_data=records, empty="no rulings found" + (f" (filters: {filters})" if filters else ""))


@audit.command("show")
@click.argument("ruling")
@output_options(formats=DOCUMENT)
@pass_env
def show(env: Env, ruling: str, fmt: str) -> None:
    """One ruling (or decision without a penalty): its facts, the state it was made in
    (all hands and the seat's own view), the events around it, the ruled event's hash
    and the dispute history.

    \b
    Example:
        kartludo audit show 3f9c/uxinjo-d2-Su
    """
    from kartludo.app.audit.hearing import annotations_of
    from kartludo.app.audit.rulings import ruling_context
    from kartludo.app.audit.trail import resolve_entry

    def read(store: Any, done: bool) -> tuple[Any, Any]:
        found = ruling_context(store, resolve_entry(store, ruling, refreshed=done))
        return found, annotations_of(store, found.record.id)

    ctx, notes = env.read_models(read)
    if fmt == "json":
        import msgspec

        echo_json({**msgspec.to_builtins(ctx), "annotations": notes})
        return
    for line in _record_lines(ctx.record):
        click.echo(line)
    click.echo(f"  hash of the ruled event: {ctx.hash}  (check with `kartludo verify`)")
    if ctx.record.status == "decision":
        click.echo("history: a decision without a penalty, recorded in the settlement above (not appealable)")
    else:
        click.echo("history:")
    for h in ctx.record.history:
        click.echo(f"  {h['at']}  {h['kind']:<10} by {h['by']}: {h['reason']}  (#{h['position']})")
    for a in ctx.adjustments:
        weights = ", ".join(f"{h} × {w:g}" for h, w in a["weights"].items()) or "set directly"
        awarded = {p: v + a["adjustment"][p] for p, v in a["recorded"].items()}  # whole points
        whole = all(float(v).is_integer() for v in a["adjusted"].values())
        click.echo(f"adjusted by {a['by']} (deal {a['deal']}; {weights}): as played "
                   + ", ".join(f"{p} {v:+d}" for p, v in a["recorded"].items()) + " -> awarded "
                   + ", ".join(f"{p} {v:+d}" for p, v in awarded.items())
                   + ("" if whole else " (weighted mean " + ", ".join(f"{p} {v:+g}" for p, v in a["adjusted"].items())
                      + ", by largest remainder)") + "; totals "
                   + ", ".join(f"{p} {v:+d}" for p, v in a["adjustment"].items()))
    if ctx.hypotheticals:
        click.echo("hypotheticals from this deal:")
    for h in ctx.hypotheticals:
        result = ", ".join(f"{p} {v:+d}" for p, v in h["deal_scores"].items()) if h["deal_scores"] else "unsettled"
        roll = h["last_rollout"]
        means = (f"; last rollout n={roll['n']} means " + ", ".join(f"{p} {st['mean']:+.2f}" for p, st
                                                                     in roll["players"].items())) if roll else ""
        label = f" “{h['label']}”" if h["label"] else ""
        click.echo(f"  {h['hypothetical']} step {h['step']}{label}: {result}{means}")
    if notes:
        click.echo("annotations:")
    for note in notes:
        click.echo(f"  {note.at}  {note.by} ({note.role}) on event #{note.position} (step {note.step}): {note.text}")
    click.echo("events before:")
    for line in ctx.before:
        click.echo(f"  {line}")
    click.echo("the ruling and after:")
    for line in ctx.after:
        click.echo(f"  {line}")
    click.echo("state when ruled (all hands):")
    click.echo(ctx.table_all)
    click.echo(f"state when ruled ({ctx.record.player}'s own view):")
    click.echo(ctx.table_seat)


@audit.command()
@click.argument("ruling")
@click.option("--by", required=True,
              help="Who appeals: a player of the ruling's match, or a TD by the label of a live TD token.")
@click.option("--reason", required=True, help="Why (at most 2,000 characters).")
@pass_env(writes=True)
def appeal(env: Env, ruling: str, by: str, reason: str) -> None:
    """Appeal RULING; a TD then decides it. Only a player of its match may appeal,
    or a TD, named by the label of a live TD token (`kartludo token new --role td
    --label NAME`). Each person appeals once, until the ruling is decided; another's
    earlier appeal blocks no one's: every appeal is recorded, one decision answers all.

    \b
    Example:
        kartludo audit appeal 3f9c/uxinjo-d2-Su --by bob --reason "I had two trios"
    """
    from kartludo.app.audit.rulings import appeal as run
    from kartludo.app.audit.trail import resolve_ruling

    record = resolve_ruling(env.store, ruling)
    run(env.store, record, by, reason)
    click.echo(f"ruling {record.id}: appealed by {by}")


@audit.command()
@click.argument("ruling")
@click.option("--by", required=True,
              help="The tournament director deciding, by the label of a live TD token (`kartludo token new "
                   "--role td --label NAME`): neither a player of the match nor an appellant.")
@click.option("--uphold", is_flag=True, help="The ruling stands.")
@click.option("--overturn", is_flag=True, help="Undo the ruling's effects from here on.")
@click.option("--adjust", metavar="H1:W1,H2:W2", help="Adjust the ruled deal's score to the weighted mean of "
              "these hypotheticals' deal scores (made from the ruled deal, played to settlement; weights sum to 1).")
@click.option("--adjust-scores", metavar="PLAYER=SCORE,…", help="Adjust the ruled deal's score to these "
              "scores (every player named).")
@click.option("--reason", required=True, help="Why (at most 2,000 characters).")
@pass_env(writes=True)
def decide(env: Env, ruling: str, by: str, uphold: bool, overturn: bool, adjust: str | None,
           adjust_scores: str | None, reason: str) -> None:
    """Decide the appeal of RULING: --uphold, --overturn or an adjusted score
    (appends a decision event; an overturn restores the penalty count and every
    voided transfer in the match and in every projection; an adjustment replaces
    the ruled deal's score there, the score as played staying on record). The TD
    deciding is named by the label of a live TD token (a name that is no TD is
    refused, nothing written) and may not play in the match nor have made any of
    its appeals.

    \b
    Example:
        kartludo audit decide 3f9c/uxinjo-d2-Su --by td-mia --overturn --reason "miscounted"
        kartludo audit decide 3f9c/uxinjo-d2-Su --by td-mia --adjust 5e1d:0.6,77ab:0.4 --reason "12C1(c)"
        kartludo audit decide 3f9c/uxinjo-d2-Su --by td-mia --adjust-scores ann=+2,bob=-1,cy=-1 --reason "…"
    """
    from kartludo.app.audit.rulings import decide as run
    from kartludo.app.audit.trail import resolve_ruling

    chosen = [name for name, given in [("--uphold", uphold), ("--overturn", overturn), ("--adjust", adjust),
                                       ("--adjust-scores", adjust_scores)] if given]
    if len(chosen) > 1:
        raise click.UsageError(f"choose --uphold or --overturn, not both (or one adjustment): "
                               f"{' and '.join(chosen)} given")
    if not chosen:
        raise click.UsageError("choose --uphold or --overturn (or --adjust / --adjust-scores)")
    decision = "uphold" if uphold else "overturn" if overturn else "adjust"
    record = resolve_ruling(env.store, ruling)
    run(env.store, record, by, decision, reason, adjust=adjust, adjust_scores=adjust_scores, named=True)
    record = resolve_ruling(env.store, record.id)
    click.echo(f"ruling {record.id}: {record.status} by {by}")


@audit.command()
@click.argument("match_id", metavar="[MATCH]", required=False)
@output_options(formats=DOCUMENT)
@pass_env
def recheck(env: Env, match_id: str | None, fmt: str) -> None:
    """Re-fold each match's actions through today's engine (with the options the
    match recorded) and report every ruling or settlement it would not make
    identically; exits 1 if any differ.

    \b
    Example:
        kartludo audit recheck
    """
    from kartludo.app.audit.recheck import recheck as run

    count, diffs, notes = run(env.store, match_id)
    if fmt == "json":
        echo_json({"matches": count, "differences": diffs, "notes": notes})
    else:
        for note in notes:
            click.echo(f"note: {note}")
        for d in diffs:
            click.echo(f"DIFFERS {d}")
        click.echo(f"{count} match{'es' if count != 1 else ''} rechecked, "
                   f"{len(diffs)} difference{'s' if len(diffs) != 1 else ''}")
    if diffs:
        raise click.exceptions.Exit(1)


def _register() -> None:
    """The casebook and annotation commands live in their own module."""
    from kartludo.cli.casebook import annotate, casebook

    audit.add_command(casebook)
    audit.add_command(annotate)


_register()
