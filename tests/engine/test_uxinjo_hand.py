"""The hand evaluator: combinations, wild limits and every points-table row."""

from __future__ import annotations

import pytest

from kartludo.engine.jx import JX_DECK, card_name, colour, kind, number
from kartludo.engine.uxinjo.hand import best_split, forms_combinations, is_valid_win

PLAIN = "B9"  # a revealed card none of these hands uses


def score(six, revealed=PLAIN, eltiro=0):
    return best_split(six.split(), revealed, eltiro)


def rows(six, revealed=PLAIN, eltiro=0):
    s = score(six, revealed, eltiro)
    assert s is not None, six
    return s.rows_dict()


def test_deck_is_38_cards():
    assert len(JX_DECK) == 38
    assert JX_DECK.count("PJ") == 2 and JX_DECK.count("AJ") == 2
    assert len(set(JX_DECK)) == 36
    assert (colour("R7"), number("R7"), kind("R7")) == ("R", 7, "number")
    assert (colour("GX"), kind("GX"), kind("BV"), kind("C"), kind("PJ")) == ("G", "X", "V", "C", "PJ")
    assert colour("PJ") is None and number("RV") is None
    assert card_name("R7") == "red 7" and card_name("BX") == "blue X" and card_name("AJ") == "AJx"


def test_base_only_two_runs():
    s = score("R1 R2 R3 G4 G5 G6")
    assert s.points == 2 and s.rows == (("base", 2),)
    assert s.split == (("R1", "R2", "R3"), ("G4", "G5", "G6"))


def test_trio_plus_one_each():
    assert rows("R1 R2 R3 R4 G4 B4") == {"base": 2, "trio": 1}
    assert rows("R1 G1 B1 R4 G4 B4") == {"base": 2, "trio": 2}


def test_best_split_is_chosen():
    # R3 G3 B3 | R4 G4 B4 (two trios, 4) beats R3 R4 PJ-less runs: none exist here
    s = score("R3 G3 B3 R4 G4 B4")
    assert s.points == 4 and s.rows_dict()["trio"] == 2
    # PJ with G4 B4 R1 R2 R3: PJ=R4 makes a trio (2+1-1 = 2); no split scores more
    s = score("PJ G4 B4 R1 R2 R3")
    assert s.points == 2
    # R7 R8 R9 G7 G8 G9 + wild choices: with AJ instead of G9 the run G7 G8 AJ=G9 or
    # a trio is possible; the trio split R9 G9? no - check the maximum is taken
    s = score("R7 R8 R9 G9 B9 AJ")  # R7 R8 AJ=R6 | R9 G9 B9 (2+1-1) or AJ=R9? held
    assert s.points == 2 and s.rows_dict()["trio"] == 1


def test_unikoloro():
    assert rows("R1 R2 R3 R4 R5 R6") == {"base": 2, "unikoloro": 2}
    assert rows("G1 G2 G3 G7 G8 G9") == {"base": 2, "unikoloro": 2}
    assert "unikoloro" not in rows("R1 R2 R3 G4 G5 G6")


def test_x_runs_only_8_9_x_and_x_1_2():
    assert rows("R8 R9 RX G1 G2 G3") == {"base": 2, "x-havo": 1}
    assert rows("RX R1 R2 G1 G2 G3") == {"base": 2, "x-havo": 1}
    assert score("R9 RX R1 G1 G2 G3") is None  # 9-X-1 is not a run
    assert score("RX R2 R3 G1 G2 G3") is None
    assert score("R7 R8 RX G1 G2 G3") is None
    assert score("GX R1 R2 G4 G5 G6") is None  # X extends a run of its own colour only


def test_x_trio():
    assert rows("RX GX BX R1 R2 R3") == {"base": 2, "trio": 1, "x-havo": 1}


def test_v_is_five_in_runs():
    assert rows("R4 RV R6 G1 G2 G3") == {"base": 2, "v-havo": 1}
    assert rows("RV R6 R7 G1 G2 G3") == {"base": 2, "v-havo": 1}
    assert score("GV R4 R6 G1 G2 G3") is None  # V is the 5 of its own colour


def test_v_only_in_v_trio():
    assert score("RV G5 B5 G1 G2 G3") is None  # never a 5 inside a trio
    assert rows("RV GV BV G1 G2 G3") == {"base": 2, "trio": 1, "v-havo": 1}


def test_x_and_v_havo_together():
    assert rows("R8 R9 RX R4 RV R6") == {"base": 2, "unikoloro": 2, "x-havo": 1, "v-havo": 1}


def test_wild_stands_for_a_missing_number():
    s = score("R1 R2 PJ G4 G5 G6")
    assert s.points == 1 and s.rows_dict() == {"base": 2, "malgxentilo": -1}
    assert any("PJ=R3" in t for t in s.split)
    assert rows("R1 R2 AJ G4 G5 G6") == {"base": 2, "malgxentilo": -1}


def test_wild_never_x_v_or_c():
    assert score("GX BX PJ G1 G2 G3") is None  # PJ cannot be RX
    assert score("GV BV PJ G1 G2 G3") is None  # nor RV
    assert score("R9 PJ R1 G1 G2 G3") is None  # nor the X between 9 and 1
    assert score("R8 R9 PJ G1 G2 G3").split[0] == ("PJ=R7", "R8", "R9")  # a number, never X


def test_wild_limits_ruling_no_duplicate_coloured_number():
    # PJ = R4 is fine while no R4 is held …
    s = score("G4 B4 PJ R1 R2 R3")
    assert s is not None and ("PJ=R4", "G4", "B4") in s.split
    # … but a second R4 cannot be invented while a real R4 is held
    assert score("G4 B4 PJ R3 R4 R5") is None
    # two wilds cannot stand for the same card
    assert score("PJ AJ G4 B4 R2 R3") is not None  # one is R4 (trio), the other R1 (run)
    assert score("PJ AJ G4 B4 R3 R5") is None  # both would have to be R4


def test_wild_limit_against_c():
    # revealed R4: C is R4, so no wild may also be R4
    assert score("C G4 B4 R3 R5 PJ", revealed="R4") is None
    assert score("C G4 B4 R3 R5 PJ", revealed="G9") is None
    s = score("C G4 PJ R1 R2 R3", revealed="R4")
    assert s is not None and ("C=R4", "G4", "PJ=B4") in s.split


def test_centro_as_revealed_card():
    assert rows("C R2 R3 G4 G5 G6", revealed="R1") == {"base": 2, "centro": 1}
    assert score("C R2 R3 G4 G5 G6", revealed="B7") is None
    assert rows("C R8 R9 G4 G5 G6", revealed="RX") == {"base": 2, "x-havo": 1, "centro": 1}
    assert rows("C GV BV G1 G2 G3", revealed="RV") == {"base": 2, "trio": 1, "v-havo": 1, "centro": 1}


def test_centro_when_revealed_is_jx_is_a_wild():
    for jx in ("PJ", "AJ"):
        r = rows("C R2 R3 G4 G5 G6", revealed=jx)
        assert r == {"base": 2, "centro": 1, "malgxentilo": -1}
    assert score("C GX BX G1 G2 G3", revealed="PJ") is None  # a wild, never an X


def test_unikoloro_counts_wild_colour_and_c():
    assert rows("R1 R2 PJ R4 R5 R6") == {"base": 2, "unikoloro": 2, "malgxentilo": -1}
    assert rows("R1 R2 C R4 R5 R6", revealed="R3") == {"base": 2, "unikoloro": 2, "centro": 1}


def test_eltiro_per_exposed_jx():
    assert rows("R1 R2 R3 G4 G5 G6", eltiro=1) == {"base": 2, "eltiro": 1}
    assert rows("R1 R2 R3 G4 G5 G6", eltiro=2) == {"base": 2, "eltiro": 2}
    assert score("R1 R2 R3 G4 G5 G6", eltiro=2).points == 4


def test_malgxentilo_for_pj_and_aj_each():
    assert rows("R1 R2 PJ G4 G5 AJ") == {"base": 2, "malgxentilo": -2}
    assert score("R1 R2 PJ G4 G5 AJ").points == 0


def test_valid_win_needs_points():
    assert is_valid_win("R1 R2 R3 G4 G5 G6".split(), PLAIN, 0, 2)
    assert not is_valid_win("R1 R2 R3 G4 G5 G6".split(), PLAIN, 0, 3)
    assert not is_valid_win("R1 R2 PJ G4 G5 G6".split(), PLAIN, 0, 2)
    assert not forms_combinations("R1 R2 R4 G4 G5 G6".split(), PLAIN)


def test_not_six_cards():
    assert best_split(["R1", "R2", "R3", "G4", "G5"], PLAIN) is None


@pytest.mark.parametrize(
    "six, points",
    [
        ("R1 G1 B1 RX GX BX", 5),  # 2 + 2 trios + X
        ("RX R1 R2 R8 R9 C", None),  # C needs a revealed card making a run
        ("RV GV BV R4 R6 PJ", 3),  # 2 + trio + V - wild (PJ=R5: exact codes, RV is not R5)
    ],
)
def test_table(six, points):
    s = score(six, revealed="B9")
    assert (s.points if s else None) == points


def test_a_seats_bot_view_is_part_of_its_view():
    """``seat_view`` (what the heuristic bot reads) shows a seat exactly what
    ``view(state, seat)`` shows it of those fields, at every step of played deals."""
    import random

    from kartludo.engine.base import StartDeal, seeded_deck
    from kartludo.engine.registry import get_game
    from kartludo.engine.uxinjo.view import seat_view
    from kartludo.events.match import MatchCreated

    game = get_game("uxinjo")
    rng = random.Random(2)
    bot = game.bots()["heuristic"]
    created = MatchCreated(game=game.name, ruleset=game.ruleset, players=["ann", "bob", "cy"], seed=4)
    state = game.start(created)
    windows = 0
    for _ in range(800):
        if game.is_finished(state):
            break
        for seat, name in enumerate(created.players):
            v, mine = game.view(state, seat), seat_view(state, seat)
            assert mine.hand == tuple(v["hands"].get(name, ()))
            assert (mine.exposed, mine.revealed, mine.points_needed, mine.top_discard) == \
                (len(v["exposed"][name]), v["revealed"], v["points_needed"], v["top_discard"])
            if v["window"] is not None:
                assert v["window"]["card"] == mine.top_discard
                windows += 1
        if game.can_deal(state):
            deck, shuffle = seeded_deck(game.deck(created.options), 4, game.deal_number(state) + 1)
            command = StartDeal(deck=deck, shuffle=shuffle)
        else:
            seat = rng.choice(game.to_act(state))
            command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        for event in game.decide(state, command):
            state = game.evolve(state, event)
    assert windows > 10


def test_uxinjo_commands_spell_their_text_as_every_command_does():
    """The Uxinjo commands write ``text`` out (it is weighed for every candidate):
    the same words as ``Command.text`` makes from the verb and its arguments."""
    from kartludo.engine.commands import Command
    from kartludo.engine.jx import JX_DECK
    from kartludo.engine.uxinjo.commands import COMMAND_TYPES, Discard, Eltiri

    made = [cls(seat=1) for cls in COMMAND_TYPES if cls not in (Discard, Eltiri) and cls.verb() != "deal"]
    made += [cls(seat=2, card=card) for cls in (Discard, Eltiri) for card in JX_DECK]
    assert len(made) == 5 + 2 * len(JX_DECK)
    for command in made:
        assert command.text() == Command.text(command)
        assert type(command).parse(command.seat, command.text().split()[1:]) == command
