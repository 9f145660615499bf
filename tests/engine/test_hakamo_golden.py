"""Scripted Hakamo deals with explicit decks, checked event by event."""

from __future__ import annotations

import msgspec
import pytest
from hakamo_helpers import NO, OK, OR, SU, Table, build_deck

from kartludo.engine.hakamo import HAKAMO, Play
from kartludo.engine.hakamo import rules as R
from kartludo.engine.hakamo.state import Phase
from kartludo.engine.jx import ORDER
from kartludo.events.hakamo import (
    Award,
    Bid,
    Cancel,
    Count,
    DealScored,
    Declared,
    KasxetojKept,
    KasxetojLaid,
    KasxetojTaken,
    Matatis,
    MatchEnded,
    Passed,
    PassedOut,
    Played,
    Recruited,
    Resigned,
    ShareBid,
    SharePassed,
    Solo,
    TrickCard,
    TrickEnded,
)
from kartludo.events.match import DealStarted, RulingAppealed, RulingDecided

# --- Deal A: colour trump, normal order, same-number discards, lead matatis -----------

DEAL_A = dict(
    hands={
        OR: "RX R9 R8 R7 R6 R4 R3 R2 PJ",
        SU: "G9 G8 G7 G6 G4 G3 G2 G1 AJ",
        OK: "B9 B8 B7 B6 B4 B3 B2 B1 AJ",
        NO: "GX BX RV GV BV R5 G5 B5 PJ",
    },
    upper="R1",
    lower="C",
)
TRICKS_A = ["RX G1 B2 R5", "R9 G2 B3 RV", "R8 G3 B4 G5", "R7 G4 B1 B5", "R6 G6 B6 GV", "R4 G7 B8 BV",
            "R3 G8 B7 GX", "R2 G9 B9 BX"]


def deal_a(t: Table, kunulo: tuple[int, int] | None, declare: str) -> None:
    t.deal(**DEAL_A)
    t.auction(OR, 13)
    t.act(OR, "exchange")
    t.act(OR, "lay", "R1:up", "C:down")
    if kunulo is None:
        t.act(OR, "solo")
    else:
        t.act(OR, "recruit")
        t.shares(*kunulo)
    t.act(OR, "declare", declare)
    for trick in TRICKS_A:
        t.play(trick)


def test_deal_order_auction_and_exchange():
    t = Table()
    deck = build_deck(OR, **DEAL_A)
    assert t.deal(deck) == [DealStarted(deal=1, dealer=OR, deck=list(deck))]
    # cards 1-36 one at a time clockwise from the dealer's left: Su gets cards 1, 5, 9, …
    assert t.state.hands[SU] == tuple(sorted(deck[0:36:4], key=ORDER.__getitem__))
    assert set(t.state.hands[OR]) == set(deck[3:36:4])
    assert t.state.kasxetoj == ("R1", "C")  # card 37 upper, card 38 lower
    assert HAKAMO.to_act(t.state) == [OR]  # the auction starts with the dealer
    assert t.act(OR, "bid", "13") == [Bid(seat=OR, amount=13)]
    assert t.act(SU, "bid", "15") == [Bid(seat=SU, amount=15)]
    assert t.act(OK, "pass") == [Passed(seat=OK)]
    assert t.act(NO, "pass") == [Passed(seat=NO)]
    assert HAKAMO.to_act(t.state) == [OR]  # a passed seat is skipped; Or may raise
    assert t.act(OR, "bid", "16") == [Bid(seat=OR, amount=16)]
    assert t.act(SU, "pass") == [Passed(seat=SU)]
    v = t.view(None)
    assert (v["deklaristo"], v["contract"], v["kunulo"], v["phase"]) == ("ann", 16, None, "kasxetoj")
    assert v["kasxetoj"] == {"kept": None, "upper": "??", "upper_up": False, "lower": "??", "lower_up": False}
    assert t.act(OR, "exchange") == [KasxetojTaken(seat=OR, cards=["R1", "C"])]
    assert len(t.state.hands[OR]) == 11 and t.view(None)["kasxetoj"]["upper"] is None
    assert t.act(OR, "lay", "R1:up", "C:down") == [
        KasxetojLaid(seat=OR, upper="R1", upper_up=True, lower="C", lower_up=False)
    ]
    assert (t.state.trump_mode, t.state.trump, t.state.inversa, t.state.copy) == ("colour", "R", "", "R1")
    assert t.view(None)["kasxetoj"]["lower"] == "??" and t.view(OR)["kasxetoj"]["lower"] == "C"
    assert t.view(SU)["kasxetoj"] == {"kept": False, "upper": "R1", "upper_up": True, "lower": "??", "lower_up": False}


def test_deal_a_solo_win_colour_trump_discard_cancels_and_lead_matatis():
    t = Table()
    deal_a(t, None, "Or")
    first = t.events[t.events.index(Declared(seat=OR, target=OR)) + 1 :][:5]
    assert first == [
        Played(seat=OR, card="RX"), Played(seat=SU, card="G1"), Played(seat=OK, card="B2"), Played(seat=NO, card="R5"),
        TrickEnded(
            deal=1, trick=1, leader=OR, lead="R", trump="R",
            plays=[
                TrickCard(seat=OR, card="RX", face="RX", role="trump"),
                TrickCard(seat=SU, card="G1", face="G1", role="discard"),
                TrickCard(seat=OK, card="B2", face="B2", role="discard"),
                TrickCard(seat=NO, card="R5", face="R5", role="trump"),
            ],
            winner=OR, taken=["RX", "G1", "B2", "R5"], points=4,
        ),
    ]
    fifth = [e for e in t.events if isinstance(e, TrickEnded)][4]
    assert fifth.cancels == [Cancel(seats=[SU, OK], cards=["G6", "B6"], why="discards of the same number (6)")]
    assert fifth.taken == ["R6", "GV"] and fifth.points == 3  # V counts 2
    tail = t.events[-3:]
    assert tail[0] == TrickEnded(
        deal=1, trick=8, leader=OR, lead="R", trump="R",
        plays=[
            TrickCard(seat=OR, card="R2", face="R2", role="trump"),
            TrickCard(seat=SU, card="G9", face="G9", role="discard", cancelled=True),
            TrickCard(seat=OK, card="B9", face="B9", role="discard", cancelled=True),
            TrickCard(seat=NO, card="BX", face="BX", role="discard"),
        ],
        cancels=[Cancel(seats=[SU, OK], cards=["G9", "B9"], why="discards of the same number (9)")],
        winner=OR, taken=["R2", "BX"], points=2,
    )
    assert tail[1] == Matatis(
        deal=1, trick=9, seat=OR, hand=["PJ"], lead=True,
        reason="to lead, holding only Jx, which are never led", rule=R.RULING_MATATIS,
    )
    assert tail[2] == DealScored(
        deal=1, counted=1, deklaristo=OR, kunulo=None, contract=13, share=0, solo=True, resigned=False, kept=False,
        target=OR, end="lead-matatis", tricks=8,
        counts=[Count(seat=OR, cards=28, vs=3, count=31), Count(seat=SU, cards=0, vs=0, count=0),
                Count(seat=OK, cards=0, vs=0, count=0), Count(seat=NO, cards=0, vs=0, count=0)],
        top=31, hakamistos=[OR], matistos=[OR], gv_case="declared-hakamisto", gv_base=31,
        bonuses={"matistos": 2}, gv=33, won=True,
        awards=[Award(seat=OR, role="deklaristo", points=13, formula="+(B - S) = +(13 - 0) = +13")],
        rulings=[R.RULING_DECLARATION, R.RULING_GV_SEAT, R.RULING_MATATIS, R.RULING_BONUS, R.RULING_SCORE],
    )
    v = t.view(None)
    assert v["totals"] == {"ann": 13, "bob": 0, "cy": 0, "dan": 0}
    assert v["phase"] == "waiting_deal" and HAKAMO.next_dealer(t.state) == SU
    # the cards not played stay in the hands; Or's shown PJ went to nobody
    assert t.state.mati_cards == ("PJ",) and t.state.hands[SU] == ("AJ",)
    assert HAKAMO.describe(t.state, tail[2], None).startswith("deal 1 scored: counts ann 31, bob 0")


def test_deal_a_declared_seat_wrong_loses_with_kunulo_share_and_voids_bonus():
    t = Table()
    deal_a(t, (SU, 6), "Su")
    recruit = t.events.index(Recruited(seat=OR))
    assert t.events[recruit + 1 : recruit + 4] == [ShareBid(seat=SU, share=6), SharePassed(seat=OK),
                                                   SharePassed(seat=NO)]
    scored = t.events[-1]
    assert isinstance(scored, DealScored)
    assert (scored.kunulo, scored.share, scored.solo, scored.target) == (SU, 6, False, SU)
    assert (scored.gv_case, scored.gv_base, scored.bonuses, scored.bonuses_void, scored.gv) == (
        "declared-not-hakamisto", 0, {}, {"matistos": 2}, 0)
    assert scored.won is False
    assert scored.awards == [
        Award(seat=OR, role="deklaristo", points=-7, formula="-(B - S) = -(13 - 6) = -7"),
        Award(seat=SU, role="kunulo", points=-6, formula="-S = -6"),
    ]
    assert R.RULING_BONUS in scored.rulings and R.RULING_GV_SEAT not in scored.rulings
    assert t.view(None)["totals"] == {"ann": -7, "bob": -6, "cy": 0, "dan": 0}


def test_deal_a_malhakama_wrong_when_a_hakamisto_arises():
    t = Table()
    deal_a(t, None, "malhakama")
    scored = t.events[-1]
    assert (scored.target, scored.hakamistos, scored.gv_case, scored.gv, scored.won) == (
        None, [OR], "malhakama-hakamisto", 0, False)
    assert scored.awards[0].points == -13


# --- Deal B: keep (no trump), Kunulo auction, all-cancelled trick, malhakama right ------

DEAL_B = dict(
    hands={
        OR: "R9 R5 R8 R7 R6 R4 R3 R2 RX",
        SU: "RV R1 G9 G8 G7 G6 G5 G4 G2",
        OK: "G1 G3 GX GV B9 B8 B7 B6 C",
        NO: "B2 B3 B1 B4 B5 BV BX PJ AJ",
    },
    upper="PJ",
    lower="AJ",
)


def test_deal_b_keep_all_cancelled_trick_malhakama_right_kunulo_wins():
    t = Table()
    t.deal(**DEAL_B)
    t.auction(OR, 13)
    assert t.act(OR, "keep") == [KasxetojKept(seat=OR)]
    assert (t.state.trump_mode, t.state.inversa, t.state.copy, t.state.kept) == ("none", "", None, True)
    assert t.view(OR)["kasxetoj"]["upper"] == "??"  # kept unseen: even the Deklaristo does not know them
    assert t.act(OR, "recruit") == [Recruited(seat=OR)]
    assert HAKAMO.to_act(t.state) == [SU]  # from the Deklaristo's left
    assert t.act(SU, "bid", "6") == [ShareBid(seat=SU, share=6)]
    assert t.act(OK, "bid", "5") == [ShareBid(seat=OK, share=5)]
    assert t.act(NO, "pass") == [SharePassed(seat=NO)]
    assert t.act(SU, "pass") == [SharePassed(seat=SU)]
    v = t.view(None)
    assert (v["kunulo"], v["share"], v["phase"]) == ("cy", 5, "declaration")
    assert t.act(OR, "declare", "malhakama") == [Declared(seat=OR, target=None)]
    t.play("R9 R1 G1 B2")
    events = t.play("R5 RV G3 B3")
    trick, scored = events[-2], events[-1]
    assert trick == TrickEnded(
        deal=1, trick=2, leader=OR, lead="R", trump=None,
        plays=[
            TrickCard(seat=OR, card="R5", face="R5", role="lead", cancelled=True),
            TrickCard(seat=SU, card="RV", face="RV", role="lead", cancelled=True),
            TrickCard(seat=OK, card="G3", face="G3", role="discard", cancelled=True),
            TrickCard(seat=NO, card="B3", face="B3", role="discard", cancelled=True),
        ],
        cancels=[
            Cancel(seats=[OR, SU], cards=["R5", "RV"], why="same strength (R5 = RV)"),
            Cancel(seats=[OK, NO], cards=["G3", "B3"], why="discards of the same number (3)"),
        ],
        winner=None, stops=True,
    )
    assert scored == DealScored(
        deal=1, counted=1, deklaristo=OR, kunulo=OK, contract=13, share=5, solo=False, resigned=False, kept=True,
        target=None, end="all-cancelled", tricks=2,
        counts=[Count(seat=OR, cards=4, vs=0, count=4), Count(seat=SU, cards=0, vs=0, count=0),
                Count(seat=OK, cards=0, vs=0, count=0), Count(seat=NO, cards=0, vs=0, count=0)],
        top=4, hakamistos=[], gv_case="malhakama", gv_base=16, bonuses={"kept": 2}, gv=18, won=True,
        awards=[Award(seat=OR, role="deklaristo", points=8, formula="+(B - S) = +(13 - 5) = +8"),
                Award(seat=OK, role="kunulo", points=5, formula="+S = +5")],
        rulings=[R.RULING_DECLARATION, R.RULING_BONUS, R.RULING_SCORE],
    )
    assert t.view(None)["totals"] == {"ann": 8, "bob": 0, "cy": 5, "dan": 0}
    assert sorted(t.state.cancelled) == sorted(["R5", "RV", "G3", "B3"])
    assert "every card is cancelled" in HAKAMO.describe(t.state, trick, None)


# --- Deal C: per-trick Jx trump, one colour inversa, C copying a PJx --------------------

DEAL_C = dict(
    hands={
        OR: "R3 G9 PJ R8 R9 RX B1 B2 B3",
        SU: "G1 G8 AJ B4 B6 B7 B8 B9 BX",
        OK: "G3 BV B5 G5 G6 G7 GX GV AJ",
        NO: "R4 G4 C R1 R2 R5 RV R6 R7",
    },
    upper="PJ",
    lower="G2",
)


def test_deal_c_jx_trump_per_trick_green_inversa_and_c_as_pj():
    t = Table()
    t.deal(**DEAL_C)
    t.auction(OR, 14)
    t.act(OR, "exchange")
    t.act(OR, "lay", "PJ:up", "G2:up")
    assert (t.state.trump_mode, t.state.trump, t.state.inversa, t.state.copy) == ("jx", None, "G", "PJ")
    t.act(OR, "solo")
    t.act(OR, "declare", "No")
    # trick 1: Su's G1 is the first card off the lead colour, so green is trump this trick
    t1 = t.play("R3 G1 B5 R4")[-1]
    assert (t1.trump, t1.winner, [p.role for p in t1.plays]) == ("G", SU, ["lead", "trump", "discard", "lead"])
    # trick 2: all follow green; in green inversa G3 > G4 > G8 > G9
    t2 = t.play("G8 G3 G4 G9")[-1]
    assert (t2.trump, t2.winner) == (None, OK)
    assert R.RULING_ORDER in t2.rulings
    # trick 3: No's C counts as PJ and cancels Or's PJ; Su's AJ (played while holding blue) wins
    assert t.view(NO)["hands"]["dan"].count("C") == 1
    t3 = t.play("BV C PJ AJ")[-1]
    assert t3 == TrickEnded(
        deal=1, trick=3, leader=OK, lead="B", trump=None,
        plays=[
            TrickCard(seat=OK, card="BV", face="BV", role="lead"),
            TrickCard(seat=NO, card="C", face="PJ", role="PJ", cancelled=True),
            TrickCard(seat=OR, card="PJ", face="PJ", role="PJ", cancelled=True),
            TrickCard(seat=SU, card="AJ", face="AJ", role="AJ"),
        ],
        cancels=[Cancel(seats=[NO, OR], cards=["C", "PJ"], why="PJ pair; C as a copy")],
        winner=SU, taken=["BV", "AJ"], points=3,
        rulings=[R.RULING_C, R.RULING_FOLLOW],
    )
    assert HAKAMO.describe(t.state, Played(seat=NO, card="C"), None) == "dan (No) plays C (as PJ)"


# --- Deal E: upper face down, lower a face-up Jx: every colour inversa, C copies the lower ---

DEAL_E = dict(
    hands={
        OR: "R2 PJ B1 R3 R4 R6 R7 R8 G9",
        SU: "R9 C G1 G3 G4 G5 G6 G7 G8",
        OK: "R1 G2 B2 B3 B4 B5 B6 B7 B8",
        NO: "R5 PJ B9 BX BV RX RV GX GV",
    },
    upper="AJ",
    lower="AJ",
)


def test_deal_e_all_inversa_pj_pair_and_c_copying_the_lower_card():
    t = Table()
    t.deal(**DEAL_E)
    t.auction(OR, 13)
    t.act(OR, "exchange")
    t.refuse(OR, "lay", "C:down", "AJ:up")  # Or holds no C
    t.act(OR, "lay", "B1:down", "AJ:up")
    assert (t.state.trump_mode, t.state.inversa, t.state.copy) == ("none", "RGB", "AJ")
    t.act(OR, "solo")
    t.act(OR, "declare", "Or")
    # inversa: R1 > R2 > R5 > R9
    t1 = t.play("R2 R9 R1 R5")[-1]
    assert t1.winner == OK and not t1.cancels
    # Ok leads G2; Su (holding green) may still play C as AJ; both PJ cancel; C-as-AJ wins
    t2 = t.play("G2 PJ PJ C")[-1]
    assert [p.cancelled for p in t2.plays] == [False, True, True, False]
    assert t2.cancels == [Cancel(seats=[NO, OR], cards=["PJ", "PJ"], why="PJ pair")]
    assert (t2.winner, t2.plays[3].face, t2.points) == (SU, "AJ", 2)


# --- Deal F: keep; 5/V and AJ cancels; a non-lead matatis (C with both face down) -------

DEAL_F = dict(
    hands={
        OR: "RX R9 R8 R7 R6 R5 R4 R3 R2",
        SU: "C G1 G2 G3 G4 G5 G6 G7 G8",
        OK: "B1 B2 B3 B4 B5 B6 B7 B8 AJ",
        NO: "R1 RV G9 GX GV B9 BX BV AJ",
    },
    upper="PJ",
    lower="PJ",
)
TRICKS_F = ["RX G1 B2 R1", "R9 G2 B3 RV", "R8 G5 B4 GV", "R7 G3 AJ AJ", "R6 G4 B5 G9", "R5 G6 B1 GX",
            "R4 G7 B6 B9", "R3 G8 B7 BX"]


def test_deal_f_non_lead_matatis_bonuses_and_a_loss_with_kunulo():
    t = Table()
    t.deal(**DEAL_F)
    t.auction(OR, 40)
    t.act(OR, "keep")
    t.act(OR, "recruit")
    t.refuse(SU, "bid", "21")  # above half of 40
    t.act(SU, "bid", "20")
    t.act(OK, "bid", "3")
    t.act(NO, "pass")
    t.act(SU, "pass")
    t.act(OR, "declare", "Or")
    for trick in TRICKS_F:
        t.play(trick)
    ends = [e for e in t.events if isinstance(e, TrickEnded)]
    assert ends[2].cancels == [Cancel(seats=[SU, NO], cards=["G5", "GV"], why="discards of the same number (5)")]
    assert ends[3].cancels == [Cancel(seats=[OK, NO], cards=["AJ", "AJ"], why="AJ pair")]
    assert HAKAMO.legal_commands(t.state, OR) == [Play(seat=OR, card="R2")]
    assert t.view(SU)["hands"]["bob"] == ["C"]
    events = t.play("R2")
    assert events[1] == Matatis(
        deal=1, trick=9, seat=SU, hand=["C"], lead=False,
        reason="to play, holding only C, which cannot be played with both Kasxetoj face down", rule=R.RULING_MATATIS,
    )
    assert HAKAMO.to_act(t.state) == [OK]  # Su's turn is skipped
    events = t.play("B8 BV")
    assert [p.seat for p in events[-2].plays] == [OR, OK, NO] and events[-2].winner == OR
    scored = events[-1]
    assert (scored.end, scored.tricks, scored.matistos, scored.counts[OR].count) == ("nine-tricks", 9, [SU], 33)
    assert (scored.gv_base, scored.bonuses, scored.gv, scored.won) == (33, {"kept": 2, "matistos": 2}, 37, False)
    assert [a.points for a in scored.awards] == [-37, -3]
    assert sorted(t.state.mati_cards) == ["C"]


# --- resign, solo after no Kunulo, redeals, the match end -------------------------------


def test_all_pass_redeals_with_the_same_dealer_and_does_not_count():
    t = Table()
    t.deal()
    events = []
    for seat in (OR, SU, OK):
        events += t.act(seat, "pass")
    events += t.act(NO, "pass")  # the last seat may still bid, but passes
    assert events[-2:] == [Passed(seat=NO), PassedOut(deal=1, dealer=OR)]
    assert HAKAMO.can_deal(t.state) and HAKAMO.next_dealer(t.state) == OR
    assert (t.state.deal, t.state.counted) == (1, 0)
    deck = build_deck(OR)
    before = t.state
    assert t.deal(deck) == [DealStarted(deal=2, dealer=OR, deck=list(deck))]
    assert HAKAMO.describe(before, t.events[-1], None).startswith("deal 2 (redeal): ann (Or) deals")


def test_last_seat_may_bid_after_three_passes():
    t = Table()
    t.deal()
    for seat in (OR, SU, OK):
        t.act(seat, "pass")
    assert t.act(NO, "bid", "13") == [Bid(seat=NO, amount=13)]
    assert (t.state.deklaristo, t.state.contract, t.state.phase) == (NO, 13, Phase.KASXETOJ)


def test_no_kunulo_then_resign_costs_half_the_contract_rounded_up():
    t = Table()
    t.deal()
    t.auction(SU, 15)
    t.act(SU, "keep")
    t.act(SU, "recruit")
    t.shares(None)
    assert t.state.phase is Phase.NO_KUNULO and sorted(c.text() for c in HAKAMO.legal_commands(t.state, SU)) == [
        "resign", "solo"]
    # issue 38: a refusal names the phase in words, never its value no_kunulo
    assert t.refuse(SU, "keep").message == "'keep' is not possible now (no Kunulo: solo or resign): solo or resign"
    events = t.act(SU, "resign")
    assert events == [
        Resigned(seat=SU),
        DealScored(
            deal=1, counted=1, deklaristo=SU, kunulo=None, contract=15, share=0, solo=False, resigned=True, kept=True,
            target=None, end="resigned", tricks=0,
            awards=[Award(seat=SU, role="deklaristo", points=-8, formula="-ceil(B/2) = -ceil(15/2) = -8")],
            rulings=[R.RULING_RESIGN],
        ),
    ]
    assert t.view(None)["totals"]["bob"] == -8


def test_no_kunulo_then_solo():
    t = Table()
    t.deal()
    t.auction(OR, 13)
    t.act(OR, "keep")
    t.act(OR, "recruit")
    t.shares(None)
    assert t.act(OR, "solo") == [Solo(seat=OR)]
    assert t.state.phase is Phase.DECLARATION and t.state.solo and t.state.kunulo == -1


def test_a_match_is_eight_counted_deals_each_seat_dealing_twice():
    t = Table()
    dealers = []
    while not HAKAMO.is_finished(t.state):
        t.deal()
        dealers.append(t.state.dealer)
        if len(dealers) == 3:  # one all-pass redeal in the middle
            for _ in range(4):
                t.act(t.turn, "pass")
            continue
        d = t.turn
        t.auction(d, 13)
        t.act(d, "keep")
        t.act(d, "recruit")
        t.shares(None)
        t.act(d, "resign")
    assert dealers == [OR, SU, OK, OK, NO, OR, SU, OK, NO]
    assert isinstance(t.events[-1], MatchEnded)
    assert t.events[-1] == MatchEnded(
        deals=9, totals={"ann": -14, "bob": -14, "cy": -14, "dan": -14}, ranks={p: 1 for p in t.created.players}
    )
    assert HAKAMO.result(t.state).scores == {"ann": -14, "bob": -14, "cy": -14, "dan": -14}
    assert not HAKAMO.can_deal(t.state) and t.view(None)["status"] == "finished"
    assert "over" in t.refuse(OR, "pass").message


def test_appeals_are_accepted_and_change_nothing():
    t = Table()
    t.deal()
    before = t.state
    t.apply([RulingAppealed(ruling_id="x", by="ann", reason="?"),
             RulingDecided(ruling_id="x", by="td", decision="overturn", reason="-")])
    assert t.state == before


# --- the GV table on constructed ends of tricks -------------------------------------------


def scoring_state(taken: list[list[str]], target, kept=False, matistos=(), contract=13, kunulo=-1, share=0):
    t = Table()
    t.deal()
    t.auction(OR, contract)
    s = msgspec.structs.replace(
        t.state, phase=Phase.SCORING, taken=tuple(tuple(x) for x in taken), target=target, declared=True, kept=kept,
        matistos=tuple(matistos), end="nine-tricks", tricks=9, kunulo=kunulo, share=share, solo=kunulo < 0,
    )
    (scored,) = HAKAMO.automatic(s)
    return scored


FOURTEEN = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9", "RX", "G1", "G2", "G3", "G4", "G6"]
FOURTEEN_B = ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "BX", "G7", "G8", "G9", "RV"]  # 13 cards, V = 2


@pytest.mark.parametrize("target, case, gv", [(SU, "declared-hakamisto", 14), (OK, "declared-hakamisto", 14),
                                               (OR, "declared-not-hakamisto", 0), (None, "malhakama-hakamisto", 0)])
def test_hakami_tie_makes_several_hakamistos(target, case, gv):
    scored = scoring_state([[], FOURTEEN, FOURTEEN_B, []], target)
    assert [c.count for c in scored.counts] == [0, 14, 14, 0]
    assert (scored.hakamistos, scored.gv_case, scored.gv, scored.won) == ([SU, OK], case, gv, gv >= 13)


def test_twelve_is_not_hakami_and_bonuses_add_only_to_non_zero_gv():
    twelve = FOURTEEN[:12]
    scored = scoring_state([twelve, [], [], []], OR, kept=True, matistos=(SU,))
    assert (scored.hakamistos, scored.gv_case, scored.gv, scored.bonuses_void) == (
        [], "declared-no-hakamisto", 0, {"kept": 2, "matistos": 2})
    scored = scoring_state([twelve, [], [], []], None, kept=True, matistos=(SU, NO))
    assert (scored.gv_case, scored.gv_base, scored.bonuses, scored.gv) == (
        "malhakama", 16, {"kept": 2, "matistos": 4}, 22)


@pytest.mark.parametrize("n, bonus", [(1, 2), (2, 4), (3, 8), (4, 16)])
def test_matisto_bonus_table(n, bonus):
    scored = scoring_state([[], [], [], []], None, matistos=tuple(range(n)))
    assert scored.bonuses == {"matistos": bonus} and scored.gv == 16 + bonus


def test_taken_c_counts_one():
    scored = scoring_state([FOURTEEN[:12] + ["C"], [], [], []], OR)
    assert (scored.counts[0].count, scored.gv) == (13, 13)
    assert R.RULING_COUNT_C in scored.rulings


def test_win_with_kunulo_share():
    scored = scoring_state([FOURTEEN, [], [], []], OR, contract=14, kunulo=NO, share=4)
    assert scored.won and [(a.seat, a.points) for a in scored.awards] == [(OR, 10), (NO, 4)]


# --- C copying a face-up coloured upper card ---------------------------------------------


def test_c_copies_a_face_up_trump_card_and_cancels_with_its_v():
    t = Table()
    t.deal(hands={OR: "R2 R3 R4 R6 R7 R8 R9 RX R1", SU: "C B1 B2 B3 B4 B5 B6 B7 B8",
                  OK: "RV R5 B9 BX BV G1 G2 G3 G4", NO: "GV G6 G7 G8 G9 GX PJ PJ AJ"}, upper="G5", lower="AJ")
    t.auction(OR, 13)
    t.act(OR, "exchange")
    t.act(OR, "lay", "G5:up", "AJ:down")
    assert (t.state.trump_mode, t.state.trump, t.state.copy) == ("colour", "G", "G5")
    t.act(OR, "solo")
    t.act(OR, "declare", "Or")
    trick = t.play("R2 C R5 GV")[-1]
    assert [(p.card, p.face, p.role, p.cancelled) for p in trick.plays] == [
        ("R2", "R2", "lead", False), ("C", "G5", "trump", True), ("R5", "R5", "lead", False),
        ("GV", "GV", "trump", True)]
    assert trick.cancels == [Cancel(seats=[SU, NO], cards=["C", "GV"], why="same strength (G5 = GV); C as a copy")]
    assert (trick.winner, trick.taken) == (OK, ["R2", "R5"]) and R.RULING_C in trick.rulings


def test_c_follows_as_the_colour_it_copies():
    t = Table()
    t.deal(hands={OR: "G1 R3 R4 R6 R7 R8 R9 RX R1", SU: "C B1 B2 B3 B4 B5 B6 B7 B8",
                  OK: "RV R5 R2 B9 BX BV G2 G3 G4", NO: "GV G6 G7 G8 G9 GX PJ PJ AJ"}, upper="G5", lower="AJ")
    t.auction(OR, 13)
    t.act(OR, "exchange")
    t.act(OR, "lay", "G5:up", "AJ:down")
    t.act(OR, "solo")
    t.act(OR, "declare", "Or")
    t.act(OR, "play", "G1")
    err = t.refuse(SU, "play", "B1")
    assert "must follow G (C)" in err.message and err.rule == R.R_FOLLOW
    assert HAKAMO.legal_commands(t.state, SU) == [Play(seat=SU, card="C")]
