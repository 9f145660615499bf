"""Commands the Hakamo rules refuse: a clear message, the rule cited, nothing recorded."""

from __future__ import annotations

import pytest
from hakamo_helpers import NO, OK, OR, SU, Table, build_deck

from kartludo.engine.base import BadCommand, IllegalCommand, StartDeal
from kartludo.engine.hakamo import HAKAMO, Bid, Declare, Lay, Play
from kartludo.engine.jx import JX_DECK
from kartludo.engine.registry import get_game


def test_registry_finds_the_game():
    g = get_game("hakamo")
    assert g is HAKAMO and g.ruleset == "hakamo-1" and g.player_counts == (4,)
    assert g.seat_names[:4] == ("Or", "Su", "Ok", "No") and g.deck({}) == JX_DECK
    assert set(g.bots()) == {"random", "heuristic"}


def test_a_bid_below_13_or_not_above_the_last():
    t = Table()
    t.deal()
    err = t.refuse(OR, "bid", "12")
    assert "at least 13" in err.message and err.rule.startswith("hakamo §1")
    t.act(OR, "bid", "14")
    for n in ("14", "13"):
        err = t.refuse(SU, "bid", n)
        assert "bid at least 15" in err.message
        assert err.rule == "hakamo §1 auction (a bid is at least 13 and at least 1 above the last)"
    err = t.refuse(SU, "bid", "58")
    assert err.message == "a bid is at most 57, not 58 (the project's bound on bids)"
    # issue 15: the cap is the project's bound, not a RULING, and no deal reaches 57 (42 at most: issue 38)
    assert err.rule == ("hakamo §1 auction (the project's bound, not a rule of the game: no bid above 57, "
                        "the most a GV could count with all 39 card points and every bonus listed; "
                        "the highest GV a deal can reach is 42)")
    assert "RULING" not in err.rule
    t.act(SU, "bid", "57")


def test_the_highest_gv_the_bound_names_is_reached():
    """The bound's text says a deal reaches 42 at most: 41 card points, less the two
    Kasxetoj (out of play, 2 at least) and the one Matisto's hand (1 at least), + 2 for
    kept Kasxetoj + 2 for one Matisto (two never arise). This deal reaches it: Su takes
    all nine tricks without a cancel, and No, left holding only C with both Kasxetoj face
    down, is mati in the ninth."""
    from kartludo.events.hakamo import DealScored

    t = Table()
    t.deal(build_deck(OR, {OR: "R1 R2 R3 R4 R5 R6 R7 RV G1", SU: "PJ RX R9 R8 GX G9 G8 BX B9",
                           OK: "AJ G2 G3 G4 G5 G6 G7 GV B1", NO: "C B2 B3 B4 B5 B6 B7 B8 BV"}, upper="PJ", lower="AJ"))
    t.auction(OR, 42)
    t.act(OR, "keep")
    t.act(OR, "solo")
    t.act(OR, "declare", "Su")
    for trick in ["R1 PJ AJ B2", "RX GV B3 R2", "R9 G2 B4 R3", "R8 G3 B5 R4", "GX G4 B6 G1", "G9 G5 B7 R5",
                  "G8 G6 B8 R6", "BX B1 BV R7", "B9 G7 RV"]:
        t.play(trick)
    [scored] = [e for e in t.events if isinstance(e, DealScored)]
    assert (scored.gv_base, scored.bonuses, scored.matistos, scored.gv, scored.won) == (
        38, {"kept": 2, "matistos": 2}, [NO], 42, True)


def test_acting_out_of_turn():
    t = Table()
    t.deal()
    err = t.refuse(SU, "bid", "13")
    assert "it is ann (Or)'s turn" in err.message and "not bob (Su)'s" in err.message
    assert err.rule.startswith("hakamo §1")
    t.act(OR, "pass")
    err = t.refuse(OR, "bid", "14")
    assert "a pass is final" in err.message
    t.auction(OK, 13)
    for seat in (OR, SU, NO):
        assert "it is cy (Ok)'s turn" in t.refuse(seat, "keep").message
    err = t.refuse(OK, "play", "R1")
    assert "not possible now" in err.message and "keep or exchange" in err.message


def test_a_kunulo_bid_above_half_the_contract():
    t = Table()
    t.deal()
    t.auction(OR, 15)
    t.act(OR, "keep")
    t.act(OR, "recruit")
    err = t.refuse(SU, "bid", "8")
    assert "at most half the contract 15: 7" in err.message and err.rule.startswith("hakamo §3")
    assert "at least 1" in t.refuse(SU, "bid", "0").message
    t.act(SU, "bid", "7")
    err = t.refuse(OK, "bid", "7")
    assert "bid at most 6" in err.message
    assert "Deklaristo does not bid" in t.refuse(OR, "bid", "3").message


def test_c_laid_face_up():
    t = Table()
    t.deal(hands={OR: "C R1 R2 R3 R4 R5 R6 R7 R8"})
    t.auction(OR, 13)
    t.act(OR, "exchange")
    for args in (("C:up", "R1:down"), ("R1:down", "C:up")):
        err = t.refuse(OR, "lay", *args)
        assert err.rule == "hakamo §2 Kasxetoj (C may only be laid face down)"
    assert "hold no R9" in t.refuse(OR, "lay", "R9:up", "R1:down").message
    assert "hold only one R1" in t.refuse(OR, "lay", "R1:up", "R1:down").message
    t.act(OR, "lay", "C:down", "R1:up")


def dealt_for_tricks(hands, declare="Or", upper="R1", lower="C", lay=("R1:down", "C:down")):
    t = Table()
    t.deal(hands=hands, upper=upper, lower=lower)
    t.auction(OR, 13)
    t.act(OR, "exchange")
    t.act(OR, "lay", *lay)
    t.act(OR, "solo")
    t.act(OR, "declare", declare)
    return t


def test_leading_a_jx():
    t = dealt_for_tricks({OR: "PJ AJ R2 R3 R4 R5 R6 R7 R8"})
    for card in ("PJ", "AJ"):
        err = t.refuse(OR, "play", card)
        assert "never led" in err.message
        assert err.rule == "hakamo §5 tricks (Jx can never be led; a C copying a Jx is a Jx)"


def test_revoking_is_refused_but_a_jx_may_always_be_played():
    t = dealt_for_tricks({OR: "R2 R3 R4 R5 R6 R7 R8 R9 RX", SU: "RV PJ G1 G2 G3 G4 G5 G6 G7"})
    t.act(OR, "play", "R2")
    err = t.refuse(SU, "play", "G1")
    assert "must follow R" in err.message and err.rule == "hakamo §5 must follow (RULING: a Jx may always be played)"
    assert sorted(c.text() for c in HAKAMO.legal_commands(t.state, SU)) == ["play PJ", "play RV"]
    assert "do not hold" in t.refuse(SU, "play", "B1").message


def test_c_cannot_be_played_with_both_kasxetoj_face_down():
    t = dealt_for_tricks({OR: "R2 R3 R4 R5 R6 R7 R8 R9 RX", SU: "C G1 G2 G3 G4 G5 G6 G7 G8"},
                         upper="PJ", lower="PJ", lay=("PJ:down", "PJ:down"))
    t.act(OR, "play", "R2")
    err = t.refuse(SU, "play", "C")
    assert "both Kasxetoj lie face down" in err.message and "RULING" in err.rule


def test_deal_refusals():
    t = Table()
    with pytest.raises(IllegalCommand, match="38-card deck"):
        HAKAMO.decide(t.state, StartDeal(deck=("R1", "R2")))
    assert "no deal is in progress" in t.refuse(OR, "pass").message
    t.deal()
    with pytest.raises(IllegalCommand, match="still in progress"):
        HAKAMO.decide(t.state, StartDeal(deck=build_deck()))


def test_parse_errors_and_round_trips():
    for verb, args in (("bid", ["x"]), ("bid", []), ("lay", ["R1:up"]), ("lay", ["R1:sideways", "R2:up"]),
                       ("lay", ["Z9:up", "R2:up"]), ("declare", ["Xx"]), ("play", ["R0"]), ("fold", []),
                       ("pass", ["now"])):
        with pytest.raises(BadCommand):
            HAKAMO.parse_command(OR, verb, args)
    assert "verbs: bid N, pass" in str(pytest.raises(BadCommand, HAKAMO.parse_command, OR, "fold", []).value)
    cmds = [Bid(seat=SU, amount=14), Lay(seat=OR, upper="RX", upper_up=True, lower="G3", lower_up=False),
            Declare(seat=OR, target=NO), Declare(seat=OR, target=None), Play(seat=OK, card="C")]
    for cmd in cmds:
        verb, *args = cmd.text().split()
        assert HAKAMO.parse_command(cmd.seat, verb, args) == cmd
    assert HAKAMO.parse_command(OR, "declare", ["su"]) == Declare(seat=OR, target=SU)
    assert HAKAMO.parse_command(OR, "lay", ["rx:UP", "g3:down"]) == cmds[1]
    assert Lay(seat=OR, upper="RX", upper_up=True, lower="G3", lower_up=False).text() == "lay RX:up G3:down"
