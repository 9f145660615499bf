"""The RULINGs and texts of the second independent audit (issue 38, ruleset uxinjo-3):
a penalty lifts on any valid munt, finito is judged once a settlement is done, an
adjusted score keeps every marker within -6...+6 and ends the match at finito, the
claim window's refusals cite the rule they apply, the text view shows a taken card,
and a foul's facts name players."""

from __future__ import annotations

import msgspec
import pytest
from test_uxinjo_golden import foul_deal, stock_win_deal
from uxinjo_helpers import OK, OR, PLAYERS, SU, Table, build_deck

from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, PenaltyChanges, StartDeal
from kartludo.engine.uxinjo import UXINJO
from kartludo.engine.uxinjo.rules import R_ANSWER, R_LEVU_WINDOW, R_WINDOW, RULING_LIFT
from kartludo.engine.uxinjo.state import FINITO, adjusted_markers, match_points
from kartludo.events.base import decode
from kartludo.events.match import MatchCreated, RulingAppealed, RulingDecided
from kartludo.events.uxinjo import DealDrawn, Foul, MatchEnded, Settled, Transfer

WIN = ["R1", "R2", "R3", "G4", "B4"]  # + R4 from the stock: 3 points


def _adjust(t: Table, ruling: str, award: dict[str, int]) -> None:
    t.apply([RulingAppealed(ruling_id=ruling, by="ann", reason="r"),
             RulingDecided(ruling_id=ruling, by="td", decision="adjust", reason="12C1(c)", deal=1,
                           adjustment=award)])


def _totals(t: Table) -> dict[str, int]:
    return UXINJO.view(t.state, ALL)["totals"]


# --- a penalty lifts on any valid munt --------------------------------------------------


def _double_munt_deal(t: Table, levu: bool = False) -> list:
    """Deal 2 (dealer Su): Su discards B6, Ok draws and discards G9, and Or and Su both
    claim G9 with valid hands; with ``levu`` Ok declares levu first (and pays for it)."""
    # with Ok's levu 3 points are needed: Su's run and trio of 2s (3), Or's run and trio of 9s (3)
    t.deal(build_deck(SU, {SU: ["G7", "G8", "R2", "G2", "B2"], OR: ["R9", "B9", "R4", "R5", "R6"]},
                      stock=["B6", "G9"]))
    t.act(SU, "draw")
    t.act(SU, "discard", "B6")
    t.act(OK, "pass")
    t.act(OR, "pass")
    if levu:
        t.act(OK, "levu")
    t.act(OK, "draw")
    t.act(OK, "discard", "G9")
    t.act(OR, "munt")
    return t.act(SU, "munt")


def test_a_valid_munt_in_a_deal_drawn_by_two_valid_munts_lifts_the_claimants_penalty():
    t = Table()
    foul_deal(t, SU)  # deal 1: Su's foul, one penalty
    assert t.state.penalties[SU] == ("uxinjo-d1-Su",)
    before = t.state
    drawn = _double_munt_deal(t)[-1]
    assert isinstance(drawn, DealDrawn) and drawn.reason == "double-munt" and drawn.claimants == [OR, SU]
    assert drawn.lifted == ["uxinjo-d1-Su"] and RULING_LIFT in drawn.rulings
    assert t.penalties() == [0, 0, 0] and t.state.fouls == (0, 1, 0)
    # neither win counts: no marker moved
    assert t.markers()["ann"] == {"bob": 0, "cy": 0}
    assert UXINJO.penalty_changes(drawn, before, t.state) == PenaltyChanges(
        lifted=["uxinjo-d1-Su"], reason="a valid munt lifted the penalty")
    line = UXINJO.describe(before, drawn, PUBLIC)
    assert line == "deal 2 drawn: two valid munts; the valid munts lift penalty uxinjo-d1-Su"
    # Su scores again from the next deal on
    stock_win_deal(t, SU, WIN, "R4")
    assert t.markers()["bob"] == {"ann": 2, "cy": 2}


def test_payments_to_the_claimant_in_that_drawn_deal_are_still_void():
    t = Table()
    foul_deal(t, SU)
    drawn = _double_munt_deal(t, levu=True)[-1]
    # Ok's levu costs it 1 to each other: to Or it moves, to Su (penalised until this deal is done) it is void
    assert drawn.transfers == [Transfer(payer=OK, payee=OR, amount=1, moved=1, reason="levu", void=False),
                               Transfer(payer=OK, payee=SU, amount=1, moved=0, reason="levu", void=True)]
    assert drawn.lifted == ["uxinjo-d1-Su"] and t.penalties() == [0, 0, 0]


def test_two_penalties_need_two_valid_munts_and_the_oldest_goes_first():
    t = Table()
    foul_deal(t, SU)  # deal 1
    foul_deal(t, SU)  # deal 2
    t.deal(build_deck(OK, {SU: ["G7", "G8", "R1", "R2", "R3"], OR: ["R9", "B9", "R4", "R5", "R6"]},
                      stock=["G9"]))
    t.act(OK, "draw")
    t.act(OK, "discard", "G9")
    t.act(SU, "munt")
    drawn = t.act(OR, "munt")[-1]
    assert drawn.lifted == ["uxinjo-d1-Su"] and t.state.penalties[SU] == ("uxinjo-d2-Su",)


def test_an_overturn_moves_a_drawn_deals_lift_onto_the_next_penalty():
    t = Table()
    foul_deal(t, SU)  # d1
    foul_deal(t, SU)  # d2
    t.deal(build_deck(OK, {SU: ["G7", "G8", "R1", "R2", "R3"], OR: ["R9", "B9", "R4", "R5", "R6"]},
                      stock=["G9"]))
    t.act(OK, "draw")
    t.act(OK, "discard", "G9")
    t.act(SU, "munt")
    t.act(OR, "munt")  # d3: lifts d1
    t.apply([RulingAppealed(ruling_id="uxinjo-d1-Su", by="bob", reason="r"),
             RulingDecided(ruling_id="uxinjo-d1-Su", by="td", decision="overturn", reason="x")])
    # recomputed from the ledger: the d3 munt now lifts d2
    assert t.penalties() == [0, 0, 0]


def test_a_draw_recorded_before_the_ruling_lifts_nothing_when_folded():
    """Events are facts: a drawn deal recorded without ``lifted`` (uxinjo-2) folds as it
    was recorded; ``audit recheck`` lists it (tests/app/test_recheck_uxinjo3.py)."""
    t = Table()
    foul_deal(t, SU)
    t.deal(build_deck(SU, {SU: ["G7", "G8", "R1", "R2", "R3"], OR: ["R9", "B9", "R4", "R5", "R6"]},
                      stock=["B6", "G9"]))
    for seat, verb, *args in [(SU, "draw"), (SU, "discard", "B6"), (OK, "pass"), (OR, "pass"), (OK, "draw"),
                              (OK, "discard", "G9"), (OR, "munt")]:
        t.act(seat, verb, *args)
    claimed = t.game.decide(t.state, t.game.parse_command(SU, "munt", []))
    old = msgspec.structs.replace(claimed[-1], lifted=[], rulings=[])
    t.apply([claimed[0], old])
    assert t.state.penalties[SU] == ("uxinjo-d1-Su",)


# --- finito within one settlement ----------------------------------------------------------


def test_finito_within_one_settlement_with_a_marker_at_five():
    t = Table()
    # Or/Su +5: Or wins 3 points from the stock (Su and Ok pay 2), then 3 on Su's discard
    stock_win_deal(t, OR, WIN, "R4")
    t.deal(build_deck(SU, {OR: ["R1", "R2", "R3", "G4", "B4"]}, stock=["R4"]))
    t.act(SU, "draw")
    t.act(SU, "discard", "R4")
    t.act(OK, "pass")
    settled = t.act(OR, "munt")[-1]
    assert isinstance(settled, Settled) and settled.points == 3 and t.pair(OR, SU) == 5
    # deal 3 (dealer Ok): Or and Su declare levu; the deal is drawn at stock exhaustion.
    # Su pays Or 1 (Or/Su reaches +6), Or pays Su 1 (back to +5): not finito
    t.deal(build_deck(OK))
    while t.game.phase(t.state) != "waiting_deal":
        seat = t.game.to_act(t.state)[0]
        legal = [c.text() for c in t.game.legal_commands(t.state, seat)]
        if "levu" in legal and seat in (OR, SU):
            t.act(seat, "levu")
        elif "pass" in legal:
            t.act(seat, "pass")
        elif "draw" in legal:
            t.act(seat, "draw")
        else:
            t.act(seat, "discard", next(c.split()[1] for c in legal if c.startswith("discard")))
    drawn = t.events[-1]
    assert isinstance(drawn, DealDrawn) and drawn.reason == "stock" and sorted(drawn.levu) == [OR, SU]
    pays = [(x.payer, x.payee, x.moved) for x in drawn.transfers]
    assert (SU, OR, 1) in pays and (OR, SU, 1) in pays
    assert t.pair(OR, SU) == 5 and not t.game.is_finished(t.state) and t.game.can_deal(t.state)


# --- adjusted scores -----------------------------------------------------------------------


@pytest.mark.parametrize("markers, award", [
    ((2, 2, 0), (5, -5, 0)),  # the old arithmetic made Or/Su +7
    ((5, 0, 0), (3, -3, 0)),
    ((-4, 3, -6), (-2, 4, -2)),
    ((0, 0, 0), (8, -4, -4)),
    ((6, -6, 6), (-3, 2, 1)),
])
def test_an_award_moves_every_total_by_it_within_bounds_and_as_little_as_possible(markers, award):
    after = adjusted_markers(markers, award)
    assert all(abs(m) <= FINITO for m in after)

    def totals(m):
        return (m[0] + m[1], m[2] - m[0], -m[1] - m[2])

    assert tuple(b - a for a, b in zip(totals(markers), totals(after))) == award
    moved = sum(abs(b - a) for a, b in zip(markers, after))
    # no other marker position giving the same totals within bounds moves less
    for z in range(-30, 31):
        other = (markers[0] + z - award[1], markers[1] - z - award[2], markers[2] + z)
        if all(abs(m) <= FINITO for m in other):
            assert moved <= sum(abs(b - a) for a, b in zip(markers, other))


def test_an_award_no_marker_position_can_give_stops_at_finito():
    assert adjusted_markers((2, 2, 0), (10, -5, -5)) == (6, 6, 0)  # Or's total cannot pass 12
    assert adjusted_markers((0, 0, 0), (-30, 15, 15)) == (-6, -6, 0)


def test_an_award_reaching_finito_between_deals_ends_the_match_with_match_points():
    t = Table()
    stock_win_deal(t, OR, WIN, "R4")  # Or/Su +2, Or/Ok +2
    _adjust(t, "uxinjo-d1-Or", {"ann": 5, "bob": -5, "cy": 0})
    assert t.markers()["ann"] == {"bob": 6, "cy": 3} and t.markers()["bob"]["cy"] == -1
    assert _totals(t) == {"ann": 9, "bob": -7, "cy": -2}
    assert UXINJO.is_finished(t.state) and t.state.end == "adjust" and UXINJO.automatic(t.state) == []
    mp = dict(zip(PLAYERS, match_points(t.state.markers)))
    assert mp == {"ann": 4, "bob": -4, "cy": 0}
    assert UXINJO.result(t.state).scores == mp and t.view(None)["mp"] == mp
    t.refuse(OR, "draw")
    with pytest.raises(IllegalCommand, match="the match is over"):
        UXINJO.decide(t.state, StartDeal(deck=build_deck(SU)))


def test_an_award_reaching_finito_during_a_deal_ends_the_match_when_it_is_settled():
    t = Table()
    stock_win_deal(t, OR, WIN, "R4")
    t.deal(build_deck(SU, {OK: WIN}, stock=["B6", "R4"]))
    _adjust(t, "uxinjo-d1-Or", {"ann": 5, "bob": -5, "cy": 0})
    assert not UXINJO.is_finished(t.state) and t.pair(OR, SU) == 6
    t.act(SU, "draw")
    t.act(SU, "discard", "B6")
    t.act(OK, "pass")
    t.act(OR, "pass")
    events = t.act(OK, "draw") + t.act(OK, "munt")
    assert isinstance(events[-2], Settled) and isinstance(events[-1], MatchEnded)
    assert UXINJO.is_finished(t.state) and t.state.end == "finito"


def test_an_overturn_recomputes_an_award_within_the_same_bounds():
    t = Table()
    foul_deal(t, OR)  # d1: Or penalised
    stock_win_deal(t, OR, WIN, "R4")  # d2: void, lifts d1
    assert t.markers()["ann"] == {"bob": 0, "cy": 0}
    _adjust(t, "uxinjo-d2-x", {"ann": 10, "bob": -5, "cy": -5})
    assert t.markers()["ann"] == {"bob": 5, "cy": 5} and not UXINJO.is_finished(t.state)
    t.apply([RulingAppealed(ruling_id="uxinjo-d1-Or", by="ann", reason="r"),
             RulingDecided(ruling_id="uxinjo-d1-Or", by="td", decision="overturn", reason="x")])
    # d2 now scores +2/+2, and the award cannot pass finito: 6/6, the match ends
    assert t.markers()["ann"] == {"bob": 6, "cy": 6}
    assert UXINJO.is_finished(t.state)


# --- texts a player reads ---------------------------------------------------------------


def _window(t: Table) -> None:
    t.deal(build_deck(OR))
    t.act(OR, "draw")
    t.act(OR, "discard", t.state.drawn)


@pytest.mark.parametrize("seat, verb, message", [
    (OR, "pass", "the discarder does not answer its own claim window"),
    (OR, "draw", "the others are answering the claim window on your discard"),
    (OR, "levu", "the others are answering the claim window on your discard"),
    (OK, "draw", "a claim window is open: answer munt or pass"),
])
def test_claim_window_refusals_cite_the_answering_rule(seat, verb, message):
    t = Table()
    _window(t)
    err = t.refuse(seat, verb)
    assert err.message == message and err.rule == R_ANSWER


def test_answering_twice_and_a_pass_with_no_window_cite_the_answering_rule():
    t = Table()
    t.deal(build_deck(OR))
    err = t.refuse(SU, "pass")
    assert err.message == "pass answers a claim window; there is none open" and err.rule == R_ANSWER
    t.act(OR, "draw")
    t.act(OR, "discard", t.state.drawn)
    t.act(SU, "pass")
    for verb in ("pass", "munt"):
        err = t.refuse(SU, verb)
        assert err.message == "you already answered this claim window" and err.rule == R_ANSWER
    # the draw-as-pass RULING is cited where it is the rule applied
    err = t.refuse(SU, "draw")
    assert err.message == "wait for cy (Ok) to answer the claim window" and err.rule == R_WINDOW


def test_levu_inside_the_window_says_when_it_works():
    t = Table()
    _window(t)
    err = t.refuse(SU, "levu")
    assert err.rule == R_LEVU_WINDOW
    assert "answer munt or pass first" in err.message and "explicit pass" in err.message
    assert "after you draw" in err.message
    # both ways work: an explicit pass (the window closes, Su's turn begins) ...
    t.act(SU, "pass")
    t.act(OK, "pass")
    assert [e.type_tag() for e in t.act(SU, "levu")] == ["uxinjo.levu"]
    # ... or a draw (it counts as the pass)
    t2 = Table()
    _window(t2)
    t2.act(OK, "pass")
    t2.act(SU, "draw")
    assert [e.type_tag() for e in t2.act(SU, "levu")] == ["uxinjo.levu"]


def test_the_text_view_shows_the_card_taken_from_the_discard_pile():
    t = Table()
    t.deal(build_deck(OR, stock=["B6"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "B6")
    t.act(OK, "pass")
    t.act(SU, "take")
    for viewer in (PUBLIC, OR, SU, ALL):
        assert "taken B6 by bob (Su)" in UXINJO.render(t.state, viewer)
    t.act(SU, "discard", t.state.hands[SU][0] if t.state.hands[SU][0] != "B6" else t.state.hands[SU][1])
    assert "taken" not in UXINJO.render(t.state, PUBLIC)


# --- a foul's facts name players ------------------------------------------------------------


def _levu_foul() -> Foul:
    t = Table()
    t.deal(build_deck(OR, {OR: ["R1", "R3", "R5", "G2", "G6"]}, stock=["G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    return t.act(OR, "munt")[1]


def test_a_fouls_facts_name_the_levu_declarers():
    foul = _levu_foul()
    assert isinstance(foul, Foul) and foul.facts["levu"] == ["ann"]


def test_a_foul_recorded_with_seat_labels_reads_with_names_given_its_match():
    foul = _levu_foul()
    old = msgspec.to_builtins(foul)
    old["facts"] = {**old["facts"], "levu": ["Or"]}
    payload = msgspec.msgpack.encode(old)
    created = MatchCreated(game="uxinjo", ruleset="uxinjo-2", players=["zoe", "yan", "xia"])
    assert decode("uxinjo.foul", 1, payload, origin=lambda: created).facts["levu"] == ["zoe"]
    # read on its own (no stream at hand) the labels stay as recorded
    assert decode("uxinjo.foul", 1, payload).facts["levu"] == ["Or"]
    # the current version is read as stored
    assert decode("uxinjo.foul", 2, msgspec.msgpack.encode(foul)) == foul
