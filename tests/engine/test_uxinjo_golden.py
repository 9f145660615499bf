"""Scripted Uxinjo deals with explicit decks, checked event by event and marker by marker."""

from __future__ import annotations

from uxinjo_helpers import OK, OR, PLAYERS, SU, Table, build_deck

from kartludo.engine.base import PenaltyChanges
from kartludo.engine.uxinjo import UXINJO
from kartludo.events.match import DealStarted, RulingAppealed, RulingDecided
from kartludo.events.uxinjo import (
    DealDrawn,
    Discarded,
    Drew,
    Exposed,
    Foul,
    LevuDeclared,
    MatchEnded,
    MuntDeclared,
    Passed,
    Settled,
    Took,
    Transfer,
)

FILLERS = ["B6", "B7", "B8"]  # stock cards nobody wants


def T(payer, payee, amount, reason, moved=None, void=False):
    return Transfer(
        payer=payer, payee=payee, amount=amount, moved=amount if moved is None else moved, reason=reason, void=void,
    )


def order_from(dealer):
    return [dealer, (dealer + 1) % 3, (dealer + 2) % 3]


def play_up_to(table, seat):
    """Everyone before ``seat`` (from the dealer) draws a filler and discards it;
    the other two pass each window explicitly."""
    dealer = table.state.dealer
    for s in order_from(dealer):
        if s == seat:
            return
        card = table.state.stock[0]
        table.act(s, "draw")
        table.act(s, "discard", card)
        table.act((s + 2) % 3, "pass")
        table.act((s + 1) % 3, "pass")


def stock_win_deal(table, winner, hand, card, revealed=None, **hands):
    """A deal in which ``winner`` draws ``card`` on its first turn and munts."""
    dealer = UXINJO.next_dealer(table.state)
    before = order_from(dealer).index(winner)
    stock = FILLERS[:before] + [card]
    table.deal(build_deck(dealer, {winner: hand}, stock=stock, revealed=revealed))
    play_up_to(table, winner)
    table.act(winner, "draw")
    return table.act(winner, "munt")


def foul_deal(table, seat):
    """A deal in which ``seat`` draws and declares an invalid munt."""
    dealer = UXINJO.next_dealer(table.state)
    before = order_from(dealer).index(seat)
    table.deal(build_deck(dealer, {seat: ["R1", "R3", "R5", "G2", "G6"]}, stock=FILLERS[:before] + ["G9"]))
    play_up_to(table, seat)
    table.act(seat, "draw")
    return table.act(seat, "munt")


# --- wins and their settlement ------------------------------------------------------


def test_win_on_the_stock_each_other_pays_points_minus_one():
    t = Table()
    deck = build_deck(OR, {OR: ["R1", "R2", "R3", "G4", "B4"]}, stock=["R4"])
    assert t.deal(deck) == [DealStarted(deal=1, dealer=OR, deck=list(deck))]
    assert sorted(t.state.hands[OR]) == sorted(["R1", "R2", "R3", "G4", "B4"])
    assert len(t.state.stock) == 23 and t.state.revealed == deck[36]
    assert UXINJO.to_act(t.state) == [OR]  # the dealer plays first
    assert t.act(OR, "draw") == [Drew(seat=OR, card="R4")]
    assert t.act(OR, "munt") == [
        MuntDeclared(seat=OR),
        Settled(
            deal=1, winner=OR, win="stock", discarder=None, card="R4",
            hand=["R1", "R2", "R3", "R4", "G4", "B4"],
            split=[["R1", "R2", "R3"], ["R4", "G4", "B4"]],
            rows={"base": 2, "trio": 1}, points=3, needed=2,
            transfers=[T(SU, OR, 2, "stock"), T(OK, OR, 2, "stock")],
        ),
    ]
    assert t.markers() == {"ann": {"bob": 2, "cy": 2}, "bob": {"ann": -2, "cy": 0}, "cy": {"ann": -2, "bob": 0}}
    v = t.view(None)
    assert v["totals"] == {"ann": 4, "bob": -2, "cy": -2}
    assert v["phase"] == "waiting_deal" and UXINJO.can_deal(t.state) and UXINJO.next_dealer(t.state) == SU


def test_win_on_own_turn_take_discarder_pays():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R1", "R2", "R3"]}, stock=["G9"]))
    t.act(OR, "draw")
    assert t.act(OR, "discard", "G9") == [Discarded(seat=OR, card="G9")]
    assert sorted(UXINJO.to_act(t.state)) == [SU, OK]
    assert UXINJO.view(t.state, None)["window"] == {
        "discarder": "ann", "card": "G9", "answers": {"bob": None, "cy": None}, "last": False,
    }
    t.refuse(SU, "take")  # Ok has not answered yet
    assert t.act(OK, "pass") == [Passed(seat=OK)]
    assert t.act(SU, "take") == [Took(seat=SU, card="G9", window_pass=True)]
    events = t.act(SU, "munt")
    assert events[1] == Settled(
        deal=1, winner=SU, win="discard", discarder=OR, card="G9",
        hand=["R1", "R2", "R3", "G7", "G8", "G9"], split=[["R1", "R2", "R3"], ["G7", "G8", "G9"]],
        rows={"base": 2}, points=2, needed=2, transfers=[T(OR, SU, 2, "discard")],
    )
    assert t.pair(SU, OR) == 2 and t.pair(OK, OR) == 0


def test_win_by_out_of_turn_claim():
    t = Table()
    t.deal(build_deck(OR, {OK: ["G7", "G8", "R1", "R2", "R3"]}, stock=["G9"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    assert t.act(OK, "munt") == [MuntDeclared(seat=OK, claim=True)]  # judged when the window closes
    assert UXINJO.to_act(t.state) == [SU]
    t.refuse(SU, "draw")  # somebody claimed: Su must answer
    events = t.act(SU, "pass")
    assert [type(e) for e in events] == [Passed, Settled]
    assert events[1].winner == OK and events[1].transfers == [T(OR, OK, 2, "discard")]
    assert UXINJO.describe(t.state, events[1], None).startswith("cy (Ok) wins on ann (Or)'s G9")


def test_centro_as_revealed_card_in_a_win():
    t = Table()
    t.deal(build_deck(OR, {OR: ["R1", "R2", "C", "G4", "G5"]}, stock=["G6"], revealed="R3"))
    events = t.act(OR, "draw") + t.act(OR, "munt")
    s = events[-1]
    assert s.rows == {"base": 2, "centro": 1} and s.points == 3
    assert s.split == [["R1", "R2", "C=R3"], ["G4", "G5", "G6"]]
    assert t.pair(OR, SU) == 2 and t.pair(OR, OK) == 2


def test_e_ajx_liability_on_a_discard_win():
    t = Table()
    t.deal(build_deck(OR, {OR: ["AJ", "B1", "B2", "B5", "B7"], SU: ["G7", "G8", "R1", "R2", "R3"]}, stock=["R5", "G9"]))
    t.act(OR, "draw")
    assert t.act(OR, "eltiri", "AJ") == [Exposed(seat=OR, card="AJ", replacement="G9")]
    assert UXINJO.view(t.state, None)["exposed"]["ann"] == ["AJ"]
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")
    events = t.act(OK, "pass")
    assert events[-1].transfers == [T(OR, SU, 2, "discard"), T(OR, SU, 1, "e-ajx")]
    assert t.pair(SU, OR) == 3


def test_eltiro_adds_a_point_and_replacement_win_is_a_stock_win():
    t = Table()
    t.deal(build_deck(OR, {OR: ["PJ", "R1", "R2", "G4", "G5"]}, stock=["B7", "R3", "G6"]))
    t.act(OR, "draw")  # B7
    t.act(OR, "eltiri", "PJ")  # draws R3
    t.act(OR, "discard", "B7")
    t.act(SU, "pass")
    t.act(OK, "pass")
    t.act(SU, "draw")  # G6: not wanted by Su
    t.act(SU, "discard", "G6")
    t.act(OR, "munt")
    events = t.act(OK, "pass")
    assert events[-1].rows == {"base": 2, "eltiro": 1} and events[-1].points == 3
    assert events[-1].transfers == [T(SU, OR, 3, "discard")]


def test_the_turn_passes_clockwise_after_both_pass():
    t = Table()
    t.deal(build_deck(OR, {OR: ["AJ", "R1", "R2", "G4", "G5"]}, stock=["B7", "R3"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "B7")
    t.act(SU, "pass")
    assert UXINJO.to_act(t.state) == [OK]
    t.refuse(SU, "draw")  # Su passed explicitly: it waits for Ok
    t.act(OK, "pass")
    assert t.state.phase.value == "turn" and UXINJO.to_act(t.state) == [SU]
    assert [c.text() for c in UXINJO.legal_commands(t.state, SU)] == ["draw", "levu", "take"]


def test_eltiri_then_munt_on_replacement():
    t = Table()
    t.deal(build_deck(OR, {OR: ["AJ", "R1", "R2", "G4", "G5"]}, stock=["G6", "R3"]))
    t.act(OR, "draw")  # G6
    t.act(OR, "eltiri", "AJ")  # R3 replaces
    events = t.act(OR, "munt")
    s = events[-1]
    assert s.win == "stock" and s.card == "R3" and s.rows == {"base": 2, "eltiro": 1}
    assert s.transfers == [T(SU, OR, 2, "stock"), T(OK, OR, 2, "stock")]


# --- levu -------------------------------------------------------------------------


def test_levu_raises_points_needed_and_loser_pays_levu_penalty():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R3", "G3", "B3"]}, stock=["G9"]))
    assert t.act(OR, "levu") == [LevuDeclared(seat=OR)]
    assert UXINJO.view(t.state, None)["points_needed"] == 3
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")
    s = t.act(OK, "pass")[-1]
    assert s.points == 3 and s.needed == 3 and s.levu == [OR]
    assert s.rulings == ["RULING §2.3: points needed = 2 + 1 per valid levu"]
    assert s.transfers == [T(OR, SU, 3, "discard"), T(OR, SU, 1, "levu"), T(OR, OK, 1, "levu")]
    assert t.pair(SU, OR) == 4 and t.pair(OK, OR) == 1 and t.pair(SU, OK) == 0


def test_levu_declarer_who_wins_pays_nothing():
    t = Table()
    t.deal(build_deck(OR, {OR: ["R1", "R2", "R3", "G4", "B4"]}, stock=["R4"]))
    t.act(OR, "draw")
    t.act(OR, "levu")  # after drawing, before discarding
    s = t.act(OR, "munt")[-1]
    assert s.needed == 3 and s.transfers == [T(SU, OR, 2, "stock"), T(OK, OR, 2, "stock")]


def test_all_three_levu_are_void():
    t = Table()
    t.deal(build_deck(OR, {OR: ["G7", "G8", "R1", "R2", "R3"]}, stock=["B5", "B6", "G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "B5")
    t.act(OK, "pass")
    t.act(SU, "draw")  # counts as Su's pass: Ok has passed, nobody claimed
    t.act(SU, "levu")
    assert UXINJO.view(t.state, None)["points_needed"] == 4
    t.act(SU, "discard", "B6")
    t.act(OR, "pass")
    t.act(OK, "pass")
    t.act(OK, "levu")
    v = UXINJO.view(t.state, None)
    assert v["points_needed"] == 2 and v["levu_void"] and v["levu"] == ["ann", "bob", "cy"]
    t.act(OK, "draw")
    t.act(OK, "discard", "G9")
    t.act(OR, "munt")
    s = t.act(SU, "pass")[-1]
    assert s.needed == 2 and s.transfers == [T(OK, OR, 2, "discard")]
    assert s.rulings == ["§4.2: all three declared levu, so every levu is void"]


def test_levu_penalty_in_a_stock_exhaustion_draw():
    t = Table()
    t.deal(build_deck(OR, {OR: ["PJ", "PJ", "AJ", "AJ", "C"]}))
    t.act(OR, "draw")
    t.act(OR, "discard", t.state.drawn)
    t.act(SU, "pass")
    t.act(OK, "pass")
    t.act(SU, "levu")
    turns = 1
    while len(t.state.stock) > 2:
        seat = t.state.active
        t.act(seat, "draw")
        card = t.state.drawn
        t.act(seat, "discard", card)
        turns += 1
        if len(t.state.stock) > 2:
            t.act((seat + 2) % 3, "pass")
            t.act((seat + 1) % 3, "pass")
    assert turns == 21
    assert UXINJO.view(t.state, None)["window"]["last"]
    nxt = (t.state.active + 1) % 3
    t.act((nxt + 1) % 3, "pass")
    err = t.refuse(nxt, "draw")
    assert "§2.3 2" in err.rule
    t.refuse(nxt, "take")
    events = t.act(nxt, "pass")
    assert events[-1] == DealDrawn(
        deal=1, reason="stock", transfers=[T(SU, OK, 1, "levu"), T(SU, OR, 1, "levu")], levu=[SU],
    )
    assert t.pair(OR, SU) == 1 and t.pair(OK, SU) == 1
    assert UXINJO.next_dealer(t.state) == SU


# --- several munts in one window ----------------------------------------------------


def test_levu_can_make_one_of_two_claims_invalid():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R1", "R2", "R3"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")
    events = t.act(OK, "munt")
    assert events[0] == MuntDeclared(seat=OK, claim=True)
    # with levu 3 points are needed: Su's two runs (2) are invalid, Ok's trio (3) is valid
    assert isinstance(events[-1], Settled) and events[-1].winner == OK and events[-1].void_claims == [SU]


def test_double_valid_munt_is_a_draw():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R1", "R2", "R3"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(OK, "munt")
    events = t.act(SU, "munt")
    assert events == [MuntDeclared(seat=SU, claim=True), DealDrawn(deal=1, reason="double-munt", claimants=[OK, SU])]
    assert t.markers()["ann"] == {"bob": 0, "cy": 0}
    assert t.penalties() == [0, 0, 0]


def test_invalid_and_valid_munt_in_one_window_no_foul():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "R1", "R2", "R3", "B5"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")  # invalid
    events = t.act(OK, "munt")
    assert not any(isinstance(e, Foul) for e in events)
    assert events[-1].winner == OK and events[-1].void_claims == [SU]
    assert events[-1].rows == {"base": 2, "trio": 1}
    assert t.penalties() == [0, 0, 0] and t.pair(OK, OR) == 3


# --- fouls and penalties ------------------------------------------------------------


def test_invalid_munt_is_a_foul_and_draws_the_deal():
    t = Table()
    events = foul_deal(t, OR)
    foul = events[1]
    assert isinstance(foul, Foul) and foul.ruling_id == "uxinjo-d1-Or" and foul.seat == OR and foul.deal == 1
    assert "§2.3 3" in foul.rule and "RULING" in foul.rule
    assert foul.facts["cards"] == ["R1", "R3", "R5", "G2", "G6", "G9"]
    assert foul.facts["split"] is None and foul.facts["needed"] == 2
    assert foul.effect["penalties_before"] == 0 and foul.effect["penalties_after"] == 1
    assert events[2] == DealDrawn(deal=1, reason="foul")
    assert t.penalties() == [1, 0, 0]
    assert UXINJO.view(t.state, None)["penalties"] == {"ann": 1, "bob": 0, "cy": 0}


def test_a_fouls_effect_names_the_player_and_an_old_wording_still_folds():
    """The ruling's effect says "ann (Or)", as every other text does; a Foul stored
    with the earlier wording ("transfers to Or …") still decodes and folds to the same
    state (the text is only shown, never read back)."""
    import msgspec

    from kartludo.engine.base import fold
    from kartludo.events.base import decode, encode

    t = Table()
    foul = foul_deal(t, OR)[1]
    assert foul.effect["scoring"] == "transfers to ann (Or) are void until 1 valid munt"
    old_text = "transfers to Or are void until 1 valid munt"
    old = msgspec.structs.replace(foul, effect={**foul.effect, "scoring": old_text})
    stored = decode(Foul.type_tag(), Foul.schema, encode(old))
    assert stored == old
    assert fold(UXINJO, t.created, [stored if e is foul else e for e in t.events]) == t.state


def test_the_text_view_names_the_dealer_and_the_levu_players():
    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "G8", "R3", "G3", "B3"]}, stock=["G9"]))
    t.act(OR, "levu")
    text = UXINJO.render(t.state, None)
    assert "dealer ann (Or)" in text and "levu ann (Or)" in text
    assert "Or (ann)" not in text
    rows = [line.split(" total")[0].strip() for line in text.splitlines() if " total " in line]
    assert rows == ["*ann (Or)", "bob (Su)", "cy (Ok)"]  # the acting seat starred, each name first


def test_invalid_claim_alone_is_a_foul_with_points_facts():
    t = Table()
    t.deal(build_deck(OR, {OK: ["G7", "G8", "R1", "R2", "R3"]}, stock=["G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(OK, "munt")
    before_foul = t.state
    events = t.act(SU, "pass")
    foul = events[1]
    assert isinstance(foul, Foul) and foul.seat == OK
    assert foul.facts["points"] == 2 and foul.facts["needed"] == 3 and foul.facts["claim"]
    assert foul.facts["split"] == [["R1", "R2", "R3"], ["G7", "G8", "G9"]]
    assert UXINJO.describe(t.state, foul, None).startswith(
        "cy (Ok) claims munt on G9: invalid, 2 points < 3 needed — foul")
    # the levu declarer still pays; the fouler's own levu income is void
    # ... voided by the penalty that stands from the foul ruled a moment before
    at_foul = UXINJO.evolve(before_foul, events[0])
    ruled = UXINJO.evolve(at_foul, events[1])
    assert UXINJO.penalty_changes(events[1], at_foul, ruled) == PenaltyChanges(started=["uxinjo-d1-Ok"])
    changes = UXINJO.penalty_changes(events[2], ruled, UXINJO.evolve(ruled, events[2]))
    assert changes == PenaltyChanges(reason="a valid munt lifted the penalty", transfers=[(OR, OK, 1, "levu")])
    assert events[2] == DealDrawn(
        deal=1, reason="foul",
        transfers=[T(OR, SU, 1, "levu"), T(OR, OK, 1, "levu", moved=0, void=True)],
        levu=[OR],
    )


def test_penalty_voids_scoring_until_a_valid_munt_then_lifts():
    t = Table()
    foul_deal(t, OR)  # deal 1
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]  # deal 2 (dealer Su)
    assert s.transfers == [
        T(SU, OR, 2, "stock", moved=0, void=True),
        T(OK, OR, 2, "stock", moved=0, void=True),
    ]
    assert s.lifted == "uxinjo-d1-Or"
    assert t.markers()["ann"] == {"bob": 0, "cy": 0} and t.penalties() == [0, 0, 0]
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]  # deal 3: scores again
    assert s.lifted is None and s.transfers == [T(SU, OR, 2, "stock"), T(OK, OR, 2, "stock")]
    assert t.markers()["ann"] == {"bob": 2, "cy": 2}


def test_penalised_player_still_pays():
    t = Table()
    foul_deal(t, OR)
    s = stock_win_deal(t, SU, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]
    assert s.transfers == [T(OK, SU, 2, "stock"), T(OR, SU, 2, "stock")]
    assert t.pair(SU, OR) == 2


def test_penalties_accumulate_two_fouls_need_two_munts():
    t = Table()
    foul_deal(t, OR)
    foul_deal(t, OR)
    assert t.penalties() == [2, 0, 0]
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]
    assert s.lifted == "uxinjo-d1-Or" and all(tr.void for tr in s.transfers)
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]
    assert s.lifted == "uxinjo-d2-Or" and all(tr.moved == 0 for tr in s.transfers)
    assert t.markers()["ann"] == {"bob": 0, "cy": 0}
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]
    assert s.lifted is None and t.markers()["ann"] == {"bob": 2, "cy": 2}
    assert UXINJO.view(t.state, None)["fouls"] == {"ann": 2, "bob": 0, "cy": 0}


def test_overturned_foul_restores_voided_transfers():
    t = Table()
    foul_deal(t, OR)
    stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")
    assert t.markers()["ann"] == {"bob": 0, "cy": 0}
    before = t.state
    t.apply([RulingAppealed(ruling_id="uxinjo-d1-Or", by="ann", reason="my hand was valid")])
    t.apply([RulingDecided(ruling_id="uxinjo-d1-Or", by="td", decision="uphold", reason="no")])
    assert t.state.markers == before.markers and t.state.penalties == before.penalties
    assert UXINJO.view(t.state, None)["appealed"] == ["uxinjo-d1-Or"]
    t.apply([RulingDecided(ruling_id="uxinjo-d1-Or", by="td", decision="overturn", reason="misdeal")])
    assert t.markers()["ann"] == {"bob": 2, "cy": 2}
    assert t.penalties() == [0, 0, 0]
    assert UXINJO.view(t.state, None)["fouls"]["ann"] == 0
    assert UXINJO.automatic(t.state) == []
    # the next deal plays on from the recomputed markers
    s = stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")[-1]
    assert s.lifted is None and t.markers()["ann"] == {"bob": 4, "cy": 4}


def test_overturn_moves_a_later_lift_to_the_next_penalty():
    t = Table()
    foul_deal(t, OR)  # d1
    foul_deal(t, OR)  # d2
    stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")  # d3: void, lifts d1
    assert t.penalties() == [1, 0, 0] and t.state.penalties[OR] == ("uxinjo-d2-Or",)
    before = t.state
    decided = RulingDecided(ruling_id="uxinjo-d1-Or", by="td", decision="overturn", reason="x")
    t.apply([decided])
    # d2 stops standing with no lift of its own: the audit trail is told the d3 lift moved onto it
    assert UXINJO.penalty_changes(decided, before, t.state) == PenaltyChanges(
        lifted=["uxinjo-d2-Or"], reason="the overturn of uxinjo-d1-Or moved a valid munt's lift onto this penalty")
    # the d3 munt now lifts d2 (still void: d2 was active), nothing scores
    assert t.penalties() == [0, 0, 0] and t.markers()["ann"] == {"bob": 0, "cy": 0}
    t.apply([RulingDecided(ruling_id="uxinjo-d2-Or", by="td", decision="overturn", reason="y")])
    # no penalty ever: d3 scores after all
    assert t.markers()["ann"] == {"bob": 2, "cy": 2}
    assert UXINJO.view(t.state, None)["overturned"] == ["uxinjo-d1-Or", "uxinjo-d2-Or"]


# --- finito -------------------------------------------------------------------------


def test_finito_caps_the_transfer_and_ends_the_match_with_mp():
    t = Table()
    stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")  # deal 1: +2 from each
    # deal 2, dealer Su: Su draws RV and discards it, Or claims with a 6-point hand
    t.deal(build_deck(SU, {OR: ["R4", "R6", "R8", "R9", "RX"]}, stock=["RV"]))
    t.act(SU, "draw")
    t.act(SU, "discard", "RV")
    t.act(OR, "munt")
    events = t.act(OK, "pass")
    settled, ended = events[-2], events[-1]
    assert settled.rows == {"base": 2, "unikoloro": 2, "x-havo": 1, "v-havo": 1} and settled.points == 6
    assert settled.transfers == [T(SU, OR, 6, "discard", moved=4)]
    assert settled.rulings == ["RULING §2.1: a transfer that would pass finito stops at it"]
    assert ended == MatchEnded(
        deal=2,
        markers={"ann": {"bob": 6, "cy": 2}, "bob": {"ann": -6, "cy": 0}, "cy": {"ann": -2, "bob": 0}},
        mp={"ann": 4, "bob": -3, "cy": -1},
        fouls={"ann": 0, "bob": 0, "cy": 0},
    )
    assert UXINJO.is_finished(t.state) and not UXINJO.can_deal(t.state)
    r = UXINJO.result(t.state)
    assert r.scores == {"ann": 4, "bob": -3, "cy": -1} and r.ranks == {"ann": 1, "cy": 2, "bob": 3}
    assert r.match_points == r.scores and r.fouls == {"ann": 0, "bob": 0, "cy": 0}
    v = t.view(None)
    assert v["status"] == "finished" and v["mp"] == {"ann": 4, "bob": -3, "cy": -1}
    t.refuse(OR, "draw")


def test_overturn_between_deals_reaching_finito_ends_the_match():
    t = Table()
    stock_win_deal(t, OR, ["R1", "R2", "R3", "G4", "B4"], "R4")  # +2/+2
    foul_deal(t, OR)
    # Or wins 6 on Su's discard while penalised: void
    t.deal(build_deck(OK, {OR: ["R4", "R6", "R8", "R9", "RX"]}, stock=["B7", "RV"]))
    t.act(OK, "draw")
    t.act(OK, "discard", "B7")
    t.act(SU, "pass")
    t.act(OR, "pass")
    t.act(OR, "draw")  # Or's turn: draws RV from the stock -> stock win, 5 each, void
    s = t.act(OR, "munt")[-1]
    assert all(tr.moved == 0 for tr in s.transfers) and s.lifted == "uxinjo-d2-Or"
    assert not UXINJO.is_finished(t.state)
    t.apply([RulingDecided(ruling_id="uxinjo-d2-Or", by="td", decision="overturn", reason="x")])
    assert t.markers()["ann"] == {"bob": 6, "cy": 6}
    assert UXINJO.is_finished(t.state)
    assert UXINJO.result(t.state).scores == {"ann": 6, "bob": -3, "cy": -3}


# --- decisions without a penalty, as the text replay and the audit trail show them ---


def test_an_invalid_claim_beside_a_valid_one_is_described_and_listed_as_a_decision():
    """Issue 15: the RULING that voids the invalid claim (no foul) shows outside the JSON too."""
    from kartludo.engine.base import PUBLIC, Decision
    from kartludo.engine.uxinjo.rules import RULING_VOID_CLAIM

    t = Table()
    t.deal(build_deck(OR, {SU: ["G7", "R1", "R2", "R3", "B5"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "munt")  # invalid
    before = t.state
    munt, settled = t.act(OK, "munt")
    line = UXINJO.describe(UXINJO.evolve(before, munt), settled, PUBLIC)
    assert line == ("cy (Ok) wins on ann (Or)'s G9: R4 R5 R6 | R9 G9 B9 = 3 points (base 2, trio +1), 2 needed; "
                    "ann→cy 3 discard; bob (Su)'s invalid claim is void, no foul (RULING §2.3)")
    # issue 38: the facts name players, as every other fact does (the key keeps the label, like a ruling id)
    assert UXINJO.decisions(settled, PLAYERS) == [Decision(
        key="uxinjo-d1-Su-void-claim", seat=SU, rule=RULING_VOID_CLAIM,
        facts={"claim_on": "G9", "discarder": "ann", "valid_claim_by": "cy", "points_needed": 2},
        effect={"claim": "void", "foul": False, "penalties": "unchanged"},
    )]
    assert UXINJO.decisions(munt, PLAYERS) == []


def test_all_three_levu_void_is_described_and_listed_as_a_decision():
    from kartludo.engine.base import PUBLIC
    from kartludo.engine.uxinjo.rules import RULING_ALL_LEVU

    t = Table()
    t.deal(build_deck(OR, {OR: ["G7", "G8", "R1", "R2", "R3"]}, stock=["B5", "B6", "G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "B5")
    t.act(OK, "pass")
    t.act(SU, "draw")
    t.act(SU, "levu")
    t.act(SU, "discard", "B6")
    t.act(OR, "pass")
    t.act(OK, "pass")
    t.act(OK, "levu")
    t.act(OK, "draw")
    t.act(OK, "discard", "G9")
    t.act(OR, "munt")
    before = t.state
    settled = t.act(SU, "pass")[-1]
    line = UXINJO.describe(before, settled, PUBLIC)
    assert line.endswith("; every levu is void: all three declared levu (§4.2)")
    decisions = UXINJO.decisions(settled, PLAYERS)
    assert [(d.key, d.seat, d.rule) for d in decisions] == [
        ("uxinjo-d1-Or-levu-void", OR, RULING_ALL_LEVU),
        ("uxinjo-d1-Su-levu-void", SU, RULING_ALL_LEVU),
        ("uxinjo-d1-Ok-levu-void", OK, RULING_ALL_LEVU),
    ]
    assert decisions[0].facts == {"levu": ["ann", "bob", "cy"], "points_needed": 2}
    assert decisions[0].effect == {"levu": "void", "points_needed_raised_by": 0, "levu_penalty": "none"}


def test_all_three_levu_void_in_a_drawn_deal():
    from kartludo.engine.base import PUBLIC

    t = Table()
    t.deal(build_deck(OR, {OR: ["G7", "R1", "R2", "R3", "B5"], SU: ["G8", "G4"], OK: ["R9", "B9"]},
                      stock=["G9"]))
    t.act(OR, "levu")
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(SU, "pass")
    t.act(OK, "pass")
    t.act(SU, "levu")
    t.act(SU, "draw")
    t.act(SU, "discard", t.state.drawn)
    t.act(OK, "pass")
    t.act(OR, "pass")
    t.act(OK, "levu")
    t.act(OK, "draw")
    t.act(OK, "discard", t.state.drawn)
    t.act(SU, "munt")  # Su claims: invalid, a foul, the deal is drawn
    before = t.state
    events = t.act(OR, "pass")
    drawn = events[-1]
    assert isinstance(drawn, DealDrawn) and drawn.reason == "foul"
    state = before
    for e in events[:-1]:
        state = UXINJO.evolve(state, e)
    assert UXINJO.describe(state, drawn, PUBLIC) == (
        "deal 1 drawn: foul; every levu is void: all three declared levu (§4.2)")
    assert [d.key for d in UXINJO.decisions(drawn, PLAYERS)] == ["uxinjo-d1-Or-levu-void", "uxinjo-d1-Su-levu-void",
                                                        "uxinjo-d1-Ok-levu-void"]
