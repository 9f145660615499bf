"""The casebook, deal diagrams and hearing annotations, through the CLI on every backend."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest
from scenarios import foul_then_void_win

from kartludo.app.audit.hearing import hearing_stream
from kartludo.app.casebook.cardfaces import SVG_NS, card_name
from kartludo.app.casebook.diagrams import diagram_cards
from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.engine.base import ALL

RULING = "uxinjo-d1-Or"


@pytest.fixture
def two_matches(store):
    svc = MatchService(store)
    return [foul_then_void_win(svc), foul_then_void_win(svc, players=["dan", "eve", "fay"])]


def _svg_of(html: str) -> str:
    start = html.index('<div class="diagram">') + len('<div class="diagram">')
    return html[start: html.index("</div>", start)]


def _checked_cards(svg: str) -> dict[str, list[str]]:
    """The diagram's cards by zone, each card's spoken label checked against its code."""
    root = ET.fromstring(svg)
    for g in root.iter(f"{{{SVG_NS}}}g"):
        if g.get("class") == "card":
            title = next(g.iter(f"{{{SVG_NS}}}title")).text
            assert title == card_name(g.get("data-card")), (title, g.get("data-card"))
    return diagram_cards(svg)


def _state_before(store, match_id: str, version: int) -> dict:
    records = store.read_stream(stream_of(match_id))
    live = fold_records(match_id, records[: version - 1])
    return json.loads(json.dumps(MatchService(store).state_json(live, ALL)))


def _no_network(text: str) -> None:
    without_ns = text.replace(f'xmlns="{SVG_NS}"', "")
    assert not re.search(r"(?:https?|ftp|wss?):|//[a-z0-9]", without_ns, re.I), re.search(
        r"(?:https?|ftp|wss?):|//[a-z0-9]", without_ns, re.I)
    for ref in re.findall(r'(?:src|href)="([^"]*)"', without_ns):
        assert ref.startswith(("data:", "#", "../", "cases/", "index.html")) or re.fullmatch(
            r"[a-z-]+\.html(#.*)?", ref), ref


def test_casebook_writes_one_page_per_ruling_with_the_cards_of_the_moment(k, store, two_matches, tmp_path):
    out = tmp_path / "cb"
    text = k("audit", "casebook", "-o", str(out))
    assert "wrote 2 case pages" in text
    pages = sorted((out / "cases").glob("*.html"))
    assert len(pages) == 2 and (out / "index.html").exists()
    index = (out / "index.html").read_text()
    for m in two_matches:
        page = out / "cases" / f"{m}__{RULING}.html"
        assert page in pages and f'href="cases/{page.name}"' in index
        html = page.read_text()
        listed = json.loads(k("audit", "show", f"{m}/{RULING}", "--json"))
        state = _state_before(store, m, listed["record"]["version"])
        cards = _checked_cards(_svg_of(html))
        hands = {z.removeprefix("hand:"): c for z, c in cards.items() if z.startswith("hand:")}
        assert hands == state["hands"] and set(hands) == set(state["players"])
        table = {z: c for z, c in cards.items() if not z.startswith(("hand:", "exposed:"))}
        expected = {}
        if state["top_discard"]:
            expected["top of the discards"] = [state["top_discard"]]
        if state["revealed"]:
            expected["revealed (stock)"] = [state["revealed"]]
        assert table == expected
        assert listed["record"]["rule"] in unescape(html)
        assert f'<span class="status">{listed["record"]["status"]}</span>' in html
        assert 'href="../rules/uxinjo.html#' in html
    for path in out.rglob("*"):
        if path.is_file():
            _no_network(path.read_text())
    rules = (out / "rules" / "uxinjo.html").read_text()
    anchor = re.search(r'href="\.\./rules/uxinjo\.html#([^"]+)"', pages[0].read_text()).group(1)
    assert f'id="{anchor}"' in rules


def test_casebook_filters_and_markdown(k, two_matches, tmp_path):
    assert "wrote 1 case pages" in k("audit", "casebook", "--match", two_matches[0][:6], "-o", str(tmp_path / "a"))
    assert "wrote 0 case pages" in k("audit", "casebook", "--game", "hakamo", "-o", str(tmp_path / "b"))
    k("audit", "casebook", "--format", "md", "-o", str(tmp_path / "md"))
    mds = sorted((tmp_path / "md" / "cases").glob("*.md"))
    assert len(mds) == 2 and all(p.with_suffix(".svg").exists() for p in mds)
    assert f"({mds[0].stem}.svg)" in mds[0].read_text()
    (tmp_path / "file").write_text("x")
    assert "is a file" in k("audit", "casebook", "-o", str(tmp_path / "file"), code=2)


def test_a_case_names_the_seat_by_its_label_and_its_facts_in_words(k, two_matches, tmp_path):
    """The seat as the CLI and the web say it (the player, then "seat Or"), never a count
    from 0; facts as words (none, yes/no, commas), never Python's None/False/[]."""
    k("audit", "casebook", "-o", str(tmp_path / "html"))
    k("audit", "casebook", "--format", "md", "-o", str(tmp_path / "md"))
    name = f"{two_matches[0]}__{RULING}"
    md = (tmp_path / "md" / "cases" / f"{name}.md").read_text()
    html = unescape((tmp_path / "html" / "cases" / f"{name}.html").read_text())
    assert "on **ann** (seat Or)" in md and "on <b>ann</b> (seat Or)" in html
    for text in (md, html):
        assert "(seat 0)" not in text
    facts = md[md.index("## The facts"):md.index("## Events around the ruling")]
    for line in ("- cards: R1, R3, R5, G2, G6, G9", "- claim: no", "- discard: none", "- levu: none",
                 "- penalties before: 0", "- scoring: transfers to ann (Or) are void until 1 valid munt"):
        assert line in facts.splitlines(), (line, facts)
    assert "<th>claim</th><td>no</td>" in html and "<th>discard</th><td>none</td>" in html
    for python in ("None", "False", "[]"):
        assert python not in facts and f"<td>{python}</td>" not in html


def test_replay_diagram_holds_the_cards_of_step_k(k, store, two_matches, tmp_path):
    m = two_matches[0]
    for step in (1, 3):
        shown = json.loads(k("replay", m, "--deal", "2", "--to", str(step), "--json"))
        out = tmp_path / f"d{step}.svg"
        k("replay", m, "--deal", "2", "--to", str(step), "--diagram", "svg", "-o", str(out))
        cards = _checked_cards(out.read_text())
        hands = {z.removeprefix("hand:"): c for z, c in cards.items() if z.startswith("hand:")}
        assert hands == shown["state"]["hands"]
    seat = tmp_path / "bob.svg"
    k("replay", m, "--deal", "2", "--to", "3", "--as", "bob", "--diagram", "svg", "-o", str(seat))
    cards = _checked_cards(seat.read_text())
    shown = json.loads(k("replay", m, "--deal", "2", "--to", "3", "--as", "bob", "--json"))
    assert cards["hand:bob"] == shown["state"]["hands"]["bob"]
    assert set(cards["hand:ann"]) == {"??"} and len(cards["hand:ann"]) == shown["state"]["hand_sizes"]["ann"]
    png = tmp_path / "d.png"
    k("replay", m, "--deal", "2", "--to", "3", "--diagram", "png", "-o", str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image  # cairosvg's own dependency

    svg_of_3 = ET.fromstring((tmp_path / "d3.svg").read_text())
    with Image.open(png) as im:  # the diagram's size, with the cards drawn in it (not a blank page)
        assert im.size == (int(float(svg_of_3.get("width"))), int(float(svg_of_3.get("height"))))
        assert len(im.convert("RGB").getcolors(maxcolors=100_000) or []) > 50
    assert "go together" in k("replay", m, "--deal", "2", "--diagram", "svg", code=2)


def test_annotations_live_in_the_hearing_stream_and_show_everywhere(k, store, two_matches, tmp_path):
    m = two_matches[0]
    audit_id = f"{m}/{RULING}"
    listed = json.loads(k("audit", "show", audit_id, "--json"))
    version = listed["record"]["version"]
    match_before = len(store.read_stream(stream_of(m)))
    ruled_pos = listed["record"]["position"]
    k("audit", "annotate", audit_id, "--by", "ann", "--event", str(ruled_pos - 1), "--text", "R3 R7 <pair>")
    assert len(store.read_stream(stream_of(m))) == match_before
    stored = store.read_stream(hearing_stream(audit_id))
    assert len(stored) == 1 and stored[0].event.text == "R3 R7 <pair>" and stored[0].event.version == version - 1
    shown = json.loads(k("audit", "show", audit_id, "--json"))["annotations"]
    assert [(a["by"], a["role"], a["position"]) for a in shown] == [("ann", "player", ruled_pos - 1)]
    assert "ann (player) on event" in k("audit", "show", audit_id)
    k("audit", "casebook", "-o", str(tmp_path / "cb"))
    page = (tmp_path / "cb" / "cases" / f"{m}__{RULING}.html").read_text()
    assert "R3 R7 &lt;pair&gt;" in page and "<pair>" not in page
    # refusals: a stranger, an event outside the deal, an over-long text; nothing written
    assert "only they may annotate" in k("audit", "annotate", audit_id, "--by", "zed", "--event", str(ruled_pos),
                                         "--text", "hi", code=1)
    assert "is not an event of deal 1" in k("audit", "annotate", audit_id, "--by", "ann", "--event", "1",
                                            "--text", "hi", code=1)
    assert "at most 500" in k("audit", "annotate", audit_id, "--by", "ann", "--event", str(ruled_pos),
                              "--text", "x" * 501, code=1)
    assert "is empty" in k("audit", "annotate", audit_id, "--by", "ann", "--event", str(ruled_pos),
                           "--text", "  ", code=1)
    assert len(store.read_stream(hearing_stream(audit_id))) == 1
    assert len(store.read_stream(stream_of(m))) == match_before


def test_casebook_shows_the_deals_hypotheticals_with_every_rollout_summary(k, store, two_matches, tmp_path):
    from kartludo.app.hypotheticals import hypothetical as hypotheticals
    from kartludo.app.hypotheticals import rollouts

    m = two_matches[0]
    h = hypotheticals.create(store, m, 1, 2, label="had ann drawn again", by="td-mia")
    for seed in (1, 2):
        rollouts.record(store, rollouts.rollout(hypotheticals.load(store, h), 5, seed=seed))
    k("audit", "casebook", "--match", m, "-o", str(tmp_path / "cb"))
    page = unescape((tmp_path / "cb" / "cases" / f"{m}__{RULING}.html").read_text())
    assert f"{h} from step 2 “had ann drawn again”" in page
    assert page.count("n=5 · heuristic bots") == 2 and "seed 1:" in page and "seed 2:" in page


def test_a_case_reads_as_a_casebook_and_shows_the_adjusted_score(k, store, two_matches, tmp_path):
    """The seat is named as the table names it, the facts read as words and cards (not
    Python reprs), an unseeded rollout says so, and an adjusted decision shows the score
    as played and the whole points awarded."""
    from kartludo.app.hypotheticals import hypothetical as hypotheticals
    from kartludo.app.hypotheticals import rollouts

    m = two_matches[0]
    h = hypotheticals.create(store, m, 1, 2)
    rollouts.record(store, rollouts.rollout(hypotheticals.load(store, h), 3))
    k("audit", "appeal", f"{m}/{RULING}", "--by", "ann", "--reason", "two sets")
    k("token", "new", "--role", "td", "--label", "td-mia")  # a decider is a TD with a live token
    k("audit", "decide", f"{m}/{RULING}", "--by", "td-mia", "--adjust-scores", "ann=+2,bob=-1,cy=-1",
      "--reason", "12C1(c)")
    for fmt, name in (("html", f"{m}__{RULING}.html"), ("md", f"{m}__{RULING}.md")):
        k("audit", "casebook", "--match", m, "--format", fmt, "-o", str(tmp_path / fmt))
        page = unescape((tmp_path / fmt / "cases" / name).read_text())
        assert "(seat Or)" in page and "(seat 0)" not in page
        facts = page[page.index("The facts"): page.index("Events around the ruling")]
        assert "R1, R3, R5, G2, G6, G9" in facts  # words, as audit show prints them
        assert not re.search(r"\bNone\b|\bFalse\b|\bTrue\b|\['", facts), facts
        assert "unseeded" in page and "seed None" not in page
        assert "as played ann +0, bob +0, cy +0" in page and "awarded ann +2, bob -1, cy -1" in page
