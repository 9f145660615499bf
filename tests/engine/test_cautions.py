"""Cautions (``Game.caution``): an Uxinjo munt that is a foul or ends the deal, a Hakamo
resign; and a caution is judged from the seat's own view only: two states that differ
only in cards hidden from the seat (other hands, the stock) give the same cautions."""

from __future__ import annotations

import random

import msgspec
from gamespecs import SPECS, Choices, play

from kartludo.engine.base import StartDeal
from kartludo.engine.registry import get_game


def shuffled_hidden(state, seat: int, rng: random.Random):
    """``state`` with the cards ``seat`` cannot see (the other hands, the stock but its
    revealed card) dealt again among the same places."""
    others = [i for i in range(len(state.hands)) if i != seat]
    stock = list(state.stock)
    revealed_at = len(stock) - 2 if state.revealed is not None and len(stock) >= 2 else None
    pool = [c for i in others for c in state.hands[i]] + [c for j, c in enumerate(stock) if j != revealed_at]
    rng.shuffle(pool)
    hands = list(state.hands)
    for i in others:
        n = len(hands[i])
        hands[i], pool = tuple(pool[:n]), pool[n:]
    new_stock = []
    for j in range(len(stock)):
        if j == revealed_at:
            new_stock.append(stock[j])
        else:
            new_stock.append(pool.pop(0))
    return msgspec.structs.replace(state, hands=tuple(hands), stock=tuple(new_stock))


def test_uxinjo_munt_cautions_come_from_the_seat_view_only():
    game = get_game("uxinjo")
    spec = SPECS["uxinjo"]
    seen = {"foul": 0, "ends": 0}
    rng = random.Random(4)

    def check(before, played, events):
        state = played.state
        for seat in game.to_act(state):
            cautions = game.legal_cautions(state, seat)
            if not cautions:
                continue
            assert set(cautions) == {"munt"}
            seen["foul" if "foul" in cautions["munt"]["text"] else "ends"] += 1
            for _ in range(3):
                other = shuffled_hidden(state, seat, rng)
                assert game.view(other, seat) == game.view(state, seat)
                assert game.legal_cautions(other, seat) == cautions

    for seed in range(6):
        play(game, spec.created(3, seed, {}), Choices(seed, [game.bots()["heuristic"]] * 3), deals=3, check=check)
    assert seen["foul"] and seen["ends"]


def test_a_hakamo_resign_is_cautioned_and_other_games_have_none_by_default():
    hk = get_game("hakamo")
    from kartludo.engine.hakamo.commands import Play, Resign

    assert "ends the deal" in hk.caution(None, Resign(seat=0))[0]
    assert hk.caution(None, Play(seat=0, card="R5")) is None
    sk = get_game("svoi-kozyri")
    assert sk.caution(None, StartDeal(deck=())) is None


def test_an_uxinjo_claim_caution_names_the_card_in_words():
    """The card claimed reads as every other text reads it ("green 9"), not as its code."""
    from uxinjo_helpers import OR, SU, Table, build_deck

    t = Table()
    t.deal(build_deck(OR, {SU: ["R1", "R3", "R5", "G2", "G6"]}, stock=["G9"]))
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    text = get_game("uxinjo").legal_cautions(t.state, SU)["munt"]["text"]
    assert "a claim on green 9 is a foul" in text and "G9" not in text
