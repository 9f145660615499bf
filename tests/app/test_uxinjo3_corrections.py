"""Issue 38 through the command line and the store, on both backends: an adjusted score
that reaches finito ends the match with match points (it used to leave a marker at -7
and refuse every deal as "still in progress"); an award the markers cannot hold is
refused, writing nothing; `audit recheck` on a database the uxinjo-2 engine wrote lists
exactly the drawn deals that now lift a penalty; a foul recorded with seat labels reads
with names."""

from __future__ import annotations

import json

import msgspec
from engine.uxinjo_helpers import build_deck
from scenarios import foul_deal, stock_win_deal

from kartludo.app.audit.recheck import recheck
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine.base import StartDeal
from kartludo.engine.registry import get_game
from kartludo.engine.uxinjo.rules import RULING_LIFT
from kartludo.events.match import MatchCreated, RulingAppealed, RulingDecided
from kartludo.events.uxinjo import DealDrawn, Foul
from kartludo.store import appending

OR, SU, OK = 0, 1, 2


def _bob_wins_then_ann_fouls(svc: MatchService) -> str:
    """Deal 1: bob wins 3 points from the stock (bob/ann +2, bob/cy +2); deal 2: ann fouls."""
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    stock_win_deal(svc, mid, SU)
    foul_deal(svc, mid, OR)
    return mid


def test_an_award_reaching_finito_ends_the_match_with_match_points(k, store):
    svc = MatchService(store)
    mid = _bob_wins_then_ann_fouls(svc)
    aid = f"{mid}/uxinjo-d2-Or"
    k("audit", "appeal", aid, "--by", "ann", "--reason", "I was distracted")
    # the old arithmetic moved ann/bob by -5 to -7; within bounds it goes to -6 (finito)
    k("token", "new", "--role", "td", "--label", "td-mia")  # a decider is a TD with a live token
    out = k("audit", "decide", aid, "--by", "td-mia", "--adjust-scores", "ann=-5,bob=+5,cy=0", "--reason", "12C")
    assert "adjusted by td-mia" in out
    state = json.loads(k("state", mid, "--all", "--json"))
    assert state["status"] == "finished" and state["end"] == "adjust"
    assert state["markers"] == {"ann": {"bob": -6, "cy": -1}, "bob": {"ann": 6, "cy": 3}, "cy": {"ann": 1, "bob": -3}}
    assert state["totals"] == {"ann": -7, "bob": 9, "cy": -2}
    assert state["mp"] == {"ann": -4, "bob": 4, "cy": 0}
    assert "the match is over" in k("match", "deal", mid, code=1)
    rows = {r["player"]: r for r in json.loads(k("standings", "--game", "uxinjo", "--format", "json"))}
    assert {p: r["match_points"] for p, r in rows.items()} == state["mp"]
    before = k("standings", "--format", "json")
    k("projections", "rebuild")
    assert k("standings", "--format", "json") == before
    assert k("audit", "recheck").endswith("1 match rechecked, 0 differences\n")


def test_an_award_the_markers_cannot_hold_is_refused_writing_nothing(k, store):
    svc = MatchService(store)
    mid = _bob_wins_then_ann_fouls(svc)
    aid = f"{mid}/uxinjo-d2-Or"
    k("audit", "appeal", aid, "--by", "ann", "--reason", "r")
    k("token", "new", "--role", "td", "--label", "td-mia")
    head = store.head_position()
    err = k("audit", "decide", aid, "--by", "td-mia", "--adjust-scores", "ann=-6,bob=+10,cy=-4", "--reason", "x",
            code=1)
    assert "cannot be given in full" in err and "bob +8 instead of +10" in err and "finito" in err
    assert store.head_position() == head
    assert json.loads(k("state", mid, "--json"))["status"] == "in_progress"


class _Written:
    """A match as the uxinjo-2 engine recorded it (today's engine decides what both accept)."""

    def __init__(self, players: list[str]) -> None:
        self.game = get_game("uxinjo")
        self.created = MatchCreated(game="uxinjo", ruleset="uxinjo-2", players=players, seed=1,
                                    options={"needed_base": 2})
        self.state = self.game.start(self.created)
        self.events: list = [self.created]

    def add(self, events: list) -> list:
        for e in events:
            self.state = self.game.evolve(self.state, e)
        self.events.extend(events)
        return events

    def deal(self, deck) -> None:
        self.add(self.game.decide(self.state, StartDeal(deck=deck)))

    def act(self, seat: int, verb: str, *args: str) -> list:
        return self.add(self.game.decide(self.state, self.game.parse_command(seat, verb, list(args))))


def _foul(m: _Written, seat: int, dealer: int) -> None:
    order = [dealer, (dealer + 1) % 3, (dealer + 2) % 3]
    before = order.index(seat)
    m.deal(build_deck(dealer, {seat: ["R1", "R3", "R5", "G2", "G6"]}, stock=["B6", "B7", "B8"][:before] + ["G9"]))
    for s in order[:before]:
        m.act(s, "draw")
        m.act(s, "discard", m.state.drawn)
        m.act((s + 2) % 3, "pass")
        m.act((s + 1) % 3, "pass")
    m.act(seat, "draw")
    m.act(seat, "munt")


def test_recheck_lists_exactly_the_drawn_deals_that_now_lift_a_penalty(store, k):
    lifting = _Written(["ann", "bob", "cy"])
    _foul(lifting, SU, OR)  # deal 1: bob's foul
    lifting.deal(build_deck(SU, {SU: ["G7", "G8", "R1", "R2", "R3"], OR: ["R9", "B9", "R4", "R5", "R6"]},
                            stock=["B6", "G9"]))
    for seat, verb, *args in [(SU, "draw"), (SU, "discard", "B6"), (OK, "pass"), (OR, "pass"), (OK, "draw"),
                              (OK, "discard", "G9"), (OR, "munt")]:
        lifting.act(seat, verb, *args)
    claim, drawn = lifting.game.decide(lifting.state, lifting.game.parse_command(SU, "munt", []))
    assert drawn.lifted == ["uxinjo-d1-Su"]
    lifting.add([claim, msgspec.structs.replace(drawn, lifted=[], rulings=[])])  # as uxinjo-2 recorded it
    drawn_version = len(lifting.events)
    untouched = _Written(["dee", "eve", "fay"])  # a double munt with nobody penalised: nothing changes
    untouched.deal(build_deck(OR, {SU: ["G7", "G8", "R1", "R2", "R3"], OK: ["R9", "B9", "R4", "R5", "R6"]},
                              stock=["G9"]))
    untouched.act(OR, "draw")
    untouched.act(OR, "discard", "G9")
    untouched.act(OK, "munt")
    untouched.act(SU, "munt")
    assert isinstance(untouched.events[-1], DealDrawn) and untouched.events[-1].lifted == []
    stuck = _Written(["gus", "hal", "ida"])  # adjusted to -7 by the uxinjo-2 engine: stuck between deals
    _foul(stuck, OR, OR)
    stuck.add([RulingAppealed(ruling_id="uxinjo-d1-Or", by="gus", reason="r"),
               RulingDecided(ruling_id="uxinjo-d1-Or", by="td", decision="adjust", reason="x", deal=1,
                             adjustment={"gus": -7, "hal": 7, "ida": 0})])
    for name, m in (("lifting", lifting), ("untouched", untouched), ("stuck", stuck)):
        store.append(stream_of(name), m.events, 0)
    count, diffs, notes = recheck(store)
    assert count == 3
    assert [(d.match, d.version, d.recorded, d.engine) for d in diffs] == [
        ("lifting", drawn_version, "uxinjo.deal-drawn", "uxinjo.deal-drawn")]
    assert diffs[0].fields == {"lifted": [[], ["uxinjo-d1-Su"]], "rulings": [[], [RULING_LIFT]]}
    assert all("uxinjo-2; today's engine is uxinjo-3" in n for n in notes) and len(notes) == 3
    # the stuck match reads as ended within bounds, with match points
    state = json.loads(k("state", "stuck", "--json"))
    assert state["status"] == "finished" and state["markers"]["gus"]["hal"] == -6
    assert sum(state["mp"].values()) == 0
    # the lifting match's recorded history stands: bob's penalty is still on it (events are facts)
    assert json.loads(k("state", "lifting", "--json"))["penalties"]["bob"] == 1


def test_a_foul_recorded_with_seat_labels_reads_with_the_players_names(store, k, monkeypatch):
    """A version-1 foul named the levu declarers by seat label; read from the store it
    names them from the match's creation (an upcaster with the stream's first event)."""
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    svc.deal(mid, build_deck(OR, {OR: ["R1", "R3", "R5", "G2", "G6"]}, stock=["G9"]))
    svc.act(mid, "ann", "levu")
    svc.act(mid, "ann", "draw")
    match = svc.load(mid)
    claim, foul, drawn = match.game.decide(match.state, match.game.parse_command(OR, "munt", []))
    old = msgspec.structs.replace(foul, facts={**foul.facts, "levu": ["Or"]})
    monkeypatch.setattr(Foul, "schema", 1)  # written as the uxinjo-2 engine wrote it
    monkeypatch.setattr(appending, "_TYPE_META", {})
    version = store.stream_version(stream_of(mid))
    store.append(stream_of(mid), [claim, old, drawn], version)
    monkeypatch.undo()
    [row] = [r for r in store.read_stream(stream_of(mid)) if r.type == "uxinjo.foul"]
    assert row.schema_version == 1 and row.event.facts["levu"] == ["ann"]
    [record] = json.loads(k("audit", "list", "--json"))
    assert record["facts"]["levu"] == ["ann"]
    # no outcome change: the names are what today's engine records
    assert k("audit", "recheck", mid).endswith("1 match rechecked, 0 differences\n")
