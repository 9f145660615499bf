"""Hakamo card logic: orders, inversa, C as a copy, legal plays, trick resolution."""

from __future__ import annotations

import pytest

from kartludo.engine.hakamo import cards as hc


@pytest.mark.parametrize(
    "upper, upper_up, lower, lower_up, copy, trump, inversa",
    [
        ("R1", True, "C", False, "R1", ("colour", "R"), ""),
        ("GX", True, "BV", True, "GX", ("colour", "G"), "B"),
        ("PJ", True, "AJ", True, "PJ", ("jx", None), "RGB"),
        ("AJ", False, "G2", True, "G2", ("none", None), "G"),
        ("R5", False, "C", False, None, ("none", None), ""),
    ],
)
def test_kasxetoj_set_trump_order_and_what_c_copies(upper, upper_up, lower, lower_up, copy, trump, inversa):
    assert hc.copy_of(upper, upper_up, lower, lower_up) == copy
    assert hc.trump_of(upper, upper_up) == trump
    assert hc.inversa_of(lower, lower_up) == inversa


def test_rank_orders():
    normal = sorted(["RX", "R9", "R8", "R7", "R6", "R5", "R4", "R3", "R2", "R1"], key=lambda c: -hc.rank(c, ""))
    assert normal == ["RX", "R9", "R8", "R7", "R6", "R5", "R4", "R3", "R2", "R1"]
    inv = sorted(["RX", "R9", "R8", "R7", "R6", "R5", "R4", "R3", "R2", "R1"], key=lambda c: -hc.rank(c, "R"))
    assert inv == ["RX", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]
    assert hc.rank("RV", "") == hc.rank("R5", "") == hc.rank("RV", "R") == 5


def resolve(cards, copy=None, mode="none", fixed=None, inversa=""):
    return hc.resolve(cards.split(), copy, mode, fixed, inversa)


def test_highest_lead_card_wins_without_trump():
    r = resolve("R4 R9 G9 B2")
    assert r.winner == 1 and r.roles == ("lead", "lead", "discard", "discard") and not any(r.cancelled)


def test_trump_beats_lead_and_inversa_applies_to_the_trump_colour():
    r = resolve("R9 G2 G8 B1", mode="colour", fixed="G", inversa="G")
    assert r.roles == ("lead", "trump", "trump", "discard") and r.winner == 1  # G2 > G8 in green inversa


def test_jx_order_pj_over_aj_over_trump():
    assert resolve("R9 AJ GX PJ", mode="colour", fixed="G").winner == 3
    assert resolve("R9 AJ GX B1", mode="colour", fixed="G").winner == 1


def test_jx_trump_mode_first_off_colour_card_sets_trump():
    r = resolve("R3 AJ B1 G9", mode="jx")  # AJ has no colour; B1 is the first colour off the lead
    assert r.trump == "B" and r.roles == ("lead", "AJ", "trump", "discard") and r.winner == 1
    r = resolve("R3 R4 B1 B9", mode="jx")
    assert r.trump == "B" and r.winner == 3


@pytest.mark.parametrize(
    "cards, cancelled",
    [
        ("R5 RV G1 B2", (True, True, False, False)),  # a colour's 5 and V
        ("R5 GV B1 G2", (False, False, False, False)),  # different colours, GV a discard alone
        ("R3 G5 BV B1", (False, True, True, False)),  # discards: V counts as 5 whatever the colour
        ("R3 GX BX B1", (False, True, True, False)),  # discards: X as X
        ("R3 AJ AJ B1", (False, True, True, False)),
        ("R3 PJ PJ AJ", (False, True, True, False)),
        ("R3 G7 R7 B1", (False, False, False, False)),  # a follow and a discard of one number do not cancel
    ],
)
def test_cancels(cards, cancelled):
    assert resolve(cards).cancelled == cancelled


def test_discards_of_one_number_cancel_even_across_an_inversa_colour():
    assert resolve("R3 G4 B4 B1", inversa="G").cancelled == (False, True, True, False)


def test_c_cancels_with_the_jx_it_copies_and_takes_its_colour_otherwise():
    r = resolve("R3 C PJ B1", copy="PJ", mode="jx")
    assert r.faces[1] == "PJ" and r.cancelled == (False, True, True, False)
    r = resolve("R3 C R5 B1", copy="RV")  # C as RV cancels R5 (5 = V)
    assert r.cancelled == (False, True, True, False) and r.winner == 0


def test_only_discards_survive_the_first_surviving_card_wins():
    r = resolve("R5 RV G1 B2")
    assert r.winner == 2 and r.by_first_discard


def test_every_card_cancelled():
    r = resolve("R5 RV G3 B3")
    assert r.winner is None and all(r.cancelled)


def test_legal_plays_lead_follow_jx_and_c():
    hand = ["R2", "G4", "PJ", "C"]
    assert hc.legal_plays(hand, None, None) == ["R2", "G4"]  # Jx never led; C unplayable face down
    assert hc.legal_plays(hand, None, "AJ") == ["R2", "G4"]  # C as a Jx is never led
    assert hc.legal_plays(hand, None, "BX") == ["R2", "G4", "C"]
    assert hc.legal_plays(hand, "R", None) == ["R2", "PJ"]  # follow, or a Jx
    assert hc.legal_plays(hand, "B", "BX") == ["PJ", "C"]  # C counts as blue: it must follow
    assert hc.legal_plays(hand, "B", None) == ["R2", "G4", "PJ"]  # no blue: anything playable
    assert hc.legal_plays(["C"], "R", None) == [] and hc.legal_plays(["PJ", "AJ"], None, None) == []


def test_count_v_is_two_c_is_one():
    assert hc.count(["RV", "C", "R1", "PJ"]) == 5
