"""Replay and the audit trail through the CLI (CliRunner), on every backend."""

from __future__ import annotations

import json

import every_game
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from every_game import trick_games
from scenarios import foul_then_void_win

from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.reading.replay import Navigator, build
from kartludo.cli.main import cli
from kartludo.engine.base import ALL
from kartludo.projections import all_projections
from kartludo.projections.runner import dump

AUDIT_ID = "/uxinjo-d1-Or"


@pytest.fixture
def fouled(store):
    return foul_then_void_win(MatchService(store))


def test_replay_has_one_step_per_event_of_the_deal(k, store, fouled):
    records = store.read_stream(stream_of(fouled))
    deal2 = [r for r in records if r.version >= next(r.version for r in records if getattr(r.event, "deal", 0) == 2
                                                     and r.type == "match.deal-started")]
    steps = json.loads(k("replay", fouled, "--deal", "2", "--json"))
    assert len(steps) == len(deal2) and [s["event"]["version"] for s in steps] == [r.version for r in deal2]
    text = k("replay", fouled, "--deal", "2")
    assert text.count("step ") == len(deal2) and "ann (Or) draws R4" in text
    assert "unknown" not in k("replay", fouled[:5], "--deal", "1", "--to", "1")


def test_replay_to_k_equals_the_live_fold(k, store, fouled):
    records = store.read_stream(stream_of(fouled))
    svc = MatchService(store)
    deal_start = next(r.version for r in records if r.type == "match.deal-started")
    for step in (1, 3, 5):
        shown = json.loads(k("replay", fouled, "--deal", "1", "--to", str(step), "--json"))
        live = fold_records(fouled, records[: deal_start + step - 1])
        expected = json.loads(json.dumps(svc.state_json(live, ALL)))
        assert shown["state"] == expected
        assert shown["step"] == step and shown["event"]["version"] == deal_start + step - 1


def test_a_seat_view_never_shows_another_seats_hand_while_the_deal_runs(k, fouled):
    steps = json.loads(k("replay", fouled, "--deal", "2", "--as", "bob", "--json"))
    for s in steps:
        assert set(s["state"]["hands"]) <= {"bob"}
        payload = json.dumps(s["event"]["payload"])
        if s["event"]["type"] == "match.deal-started":
            others = [c for c in s["event"]["payload"]["deck"] if c != "??"]
            assert len(others) <= 6  # bob's five and the revealed card
        if s["event"]["type"] == "uxinjo.drew" and s["event"]["payload"]["seat"] != 1:
            assert '"card": "??"' in payload


def test_replay_refuses_a_missing_deal_and_step(k, fouled):
    assert "no deal 7" in k("replay", fouled, "--deal", "7", code=1)
    assert "deal 1 has 5 steps, not 99" in k("replay", fouled, "--deal", "1", "--to", "99", code=1)


def test_navigator_keys(store, fouled):
    svc = MatchService(store)
    rep = build(fouled, svc.records(fouled), 1)
    nav = Navigator(rep)
    assert nav.k == 1 and nav.viewer == ALL
    nav.next_turn()  # to the end of the next actor's turn
    actor = rep.steps[nav.k - 1].record.actor
    assert actor != rep.steps[0].record.actor
    assert nav.k == nav.count or rep.steps[nav.k].record.actor != actor
    assert rep.steps[nav.k - 2].record.actor == actor or rep.steps[nav.k - 2].record.actor == rep.steps[0].record.actor
    nav.first()
    assert nav.next_ruling() and rep.steps[nav.k - 1].record.type == "uxinjo.foul"
    nav.prev()
    assert rep.steps[nav.k - 1].record.type == "uxinjo.munt"
    nav.jump(100)
    assert nav.k == nav.count
    nav.first()
    nav.toggle_view()
    assert nav.viewer == 0 and "ann's view" in nav.screen()
    for _ in range(3):
        nav.toggle_view()
    assert nav.viewer == ALL


def test_audit_record_of_a_foul_has_every_field(k, fouled):
    records = json.loads(k("audit", "list", "--json"))
    assert len(records) == 1
    r = records[0]
    assert r["id"] == fouled + AUDIT_ID and r["match"] == fouled and r["deal"] == 1 and r["player"] == "ann"
    assert r["position"] > 0 and "§2.3" in r["rule"] and r["status"] == "standing"
    assert r["facts"]["cards"] == ["R1", "R3", "R5", "G2", "G6", "G9"] and r["facts"]["needed"] == 2
    assert "split" in r["facts"] and "points" in r["facts"]
    assert (r["effect"]["penalties_before"], r["effect"]["penalties_after"]) == (0, 1)
    assert r["lifted_position"] is not None  # deal 2's valid munt lifted it
    assert [(v["payer"], v["payee"], v["amount"]) for v in r["voided"]] == [("bob", "ann", 2), ("cy", "ann", 2)]
    assert [h["kind"] for h in r["history"]] == ["ruled", "lifted"]
    assert json.loads(k("audit", "list", "--player", "bob", "--json")) == []
    assert len(json.loads(k("audit", "list", "--match", fouled[:4], "--json"))) == 1


def test_audit_show_prints_state_hash_and_neighbours(k, store, fouled):
    out = k("audit", "show", fouled[:6] + AUDIT_ID)
    ruled = next(r for r in store.read_stream(stream_of(fouled)) if r.type == "uxinjo.foul")
    assert ruled.hash.hex() in out
    assert "ann (Or) declares munt" in out and "state when ruled (all hands)" in out and "ann's own view" in out
    assert "R1 R3 R5 G2 G6 G9" in out
    assert "voided at event" in out and "bob would have paid ann 2 (stock)" in out


def test_audit_show_prints_facts_as_words_and_the_seat_by_its_label(k, fouled):
    """Facts read as the web's ruling page reads them (none, yes/no, lists with commas),
    never as Python values; ``--json`` keeps the values."""
    out = k("audit", "show", fouled + AUDIT_ID)
    assert "player ann (seat Or)" in out
    facts = out[out.index("  facts:"):out.index("  hash of the ruled event")]
    for line in ("    cards: R1, R3, R5, G2, G6, G9", "    claim: no", "    discard: none", "    levu: none",
                 "    split: none", "    needed: 2", "    penalties before: 0", "    penalties after: 1",
                 "    scoring: transfers to ann (Or) are void until 1 valid munt"):
        assert line in facts.splitlines(), (line, facts)
    for python in ("None", "False", "True", "[]", "{", "'"):
        assert python not in facts, (python, facts)
    raw = json.loads(k("audit", "show", fouled + AUDIT_ID, "--json"))["record"]
    assert raw["facts"]["discard"] is None and raw["facts"]["claim"] is False and raw["facts"]["levu"] == []


def test_replay_of_an_imported_match(k, store, fouled, tmp_path):
    exported = tmp_path / "m.jsonl"
    k("key", "new")  # a signed export: the import below trusts the same local key
    k("events", "export", f"match-{fouled}", "-o", str(exported))
    other = f"sqlite:///{tmp_path / 'other.db'}"
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", other, "events", "import", str(exported)]).exit_code == 0
    here = k("replay", fouled, "--deal", "2")
    there = runner.invoke(cli, ["--db", other, "replay", fouled, "--deal", "2"])
    assert there.exit_code == 0

    def strip(text: str) -> list[str]:
        return [line.split(" · #")[0] for line in text.splitlines()]  # positions differ

    assert strip(there.output) == strip(here)


def test_appeal_then_overturn_updates_the_match_and_the_projections(k, store, fouled):
    svc = MatchService(store)
    assert svc.state_json(svc.load(fouled), None)["markers"]["ann"] == {"bob": 0, "cy": 0}
    standings_before = json.loads(k("standings", "--format", "json"))
    assert "appealed by ann" in k("audit", "appeal", fouled + AUDIT_ID, "--by", "ann", "--reason", "valid hand")
    k("token", "new", "--role", "td", "--label", "td-mia")  # a decider is a TD with a live token
    k("audit", "decide", fouled + AUDIT_ID, "--by", "td-mia", "--overturn", "--reason", "miscounted")
    state = svc.state_json(svc.load(fouled), None)
    assert state["markers"]["ann"] == {"bob": 2, "cy": 2} and state["penalties"]["ann"] == 0
    record = json.loads(k("audit", "list", "--json"))[0]
    assert record["status"] == "overturned"
    assert [h["kind"] for h in record["history"]] == ["ruled", "lifted", "appealed", "overturned"]
    assert "td-mia" in k("audit", "show", fouled + AUDIT_ID)
    # the results projection follows the decision event
    with store.engine.connect() as conn:
        fouls = dict(conn.execute(sa.text("SELECT player, fouls FROM proj_results WHERE match_id = :m"),
                                  {"m": fouled}).all())
    assert fouls["ann"] == 0
    incremental = {p.name: dump(store, p) for p in all_projections()}
    k("projections", "rebuild")
    assert {p.name: dump(store, p) for p in all_projections()} == incremental
    assert standings_before == json.loads(k("standings", "--format", "json"))  # the match is not finished


@pytest.mark.parametrize(
    "args, message",
    [
        (["audit", "show", "nosuch"], "no ruling 'nosuch'"),
        (["audit", "appeal", "nosuch", "--by", "ann", "--reason", "x"], "no ruling"),
        (["audit", "decide", "FOUL", "--by", "td", "--uphold", "--reason", "x"], "has no appeal to decide"),
        (["audit", "appeal", "FOUL", "--by", "zed", "--reason", "x"], "'zed' does not play"),
        (["audit", "decide", "FOUL", "--by", "td", "--reason", "x"], "choose --uphold or --overturn"),
    ],
)
def test_audit_bad_input_writes_nothing(k, store, fouled, args, message):
    before = store.head_position()
    args = [a.replace("FOUL", fouled + AUDIT_ID) for a in args]
    out = k(*args, code=2 if "choose" in message else 1)
    assert message in out
    assert store.head_position() == before


def test_deciding_twice_is_refused(k, store, fouled):
    k("audit", "appeal", fouled + AUDIT_ID, "--by", "ann", "--reason", "r")
    k("token", "new", "--role", "td", "--label", "td")
    k("audit", "decide", fouled + AUDIT_ID, "--by", "td", "--uphold", "--reason", "stands")
    before = store.head_position()
    assert "already decided (uphold)" in k("audit", "decide", fouled + AUDIT_ID, "--by", "td", "--overturn",
                                            "--reason", "changed my mind", code=1)
    assert "already decided" in k("audit", "appeal", fouled + AUDIT_ID, "--by", "ann", "--reason", "again", code=1)
    assert store.head_position() == before


def test_recheck_catches_a_ruling_made_under_another_option(k, store, fouled):
    assert k("audit", "recheck").endswith("1 match rechecked, 0 differences\n")
    # The same actions recorded under needed_base=4: the deal-2 munt (3 points) would be a foul.
    records = store.read_stream(stream_of(fouled))
    created = records[0].event
    import msgspec

    changed = msgspec.structs.replace(created, options={**created.options, "needed_base": 4})
    store.append(stream_of("copy01"), [changed] + [r.event for r in records[1:]], 0)
    out = k("audit", "recheck", "copy01", code=1)
    assert "DIFFERS match copy01" in out and "uxinjo.settled" in out and "uxinjo.foul" in out
    assert "1 differences" in out or "differences" in out


@pytest.mark.parametrize("game", trick_games())
def test_turn_keys_move_trick_by_trick_in_trick_games(store, game):
    """In a trick game ↓ goes from a trick's first card to the event closing it, and a
    trick (its plays and its end) is one unit; elsewhere a unit is one actor's run."""
    import random

    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.app.reading.replay import turn_units

    svc = MatchService(store)
    players = every_game.players(game)
    mid, _, _ = play_match(svc, game, players, pick_bots(game, ["heuristic"]), random.Random(4), max_deals=1)
    rep = build(mid, svc.records(mid), 1)
    g = rep.game
    units = turn_units(g, rep.steps)
    roles = [g.trick_role(s.record.event) for s in rep.steps]
    ends = [i for i, r in enumerate(roles, 1) if r == "end"]
    assert ends and units == sorted(units) and units[0] == 0
    for end in ends:
        # the trick's unit: exactly its plays (one per player) and its end
        members = [i for i, u in enumerate(units, 1) if u == units[end - 1]]
        assert [roles[i - 1] for i in members] == ["play"] * len(players) + ["end"]
    first_play = roles.index("play") + 1
    nav = Navigator(rep)
    nav.jump(first_play)
    nav.next_turn()
    assert nav.k == ends[0]
    nav.next_turn()
    assert len(ends) > 1 and nav.k == ends[1]
    nav.prev_turn()
    assert nav.k == ends[0]
    # outside tricks one unit is one actor's run
    for i in range(2, first_play):
        same = rep.steps[i - 1].record.actor == rep.steps[i - 2].record.actor
        assert (units[i - 1] == units[i - 2]) == same
