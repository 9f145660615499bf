"""Between deals a table's text render names who deals next: the dealer it shows is
the last deal's, and a player reading "waiting for the next deal, dealer bob" would
wait for the wrong one (seen playing whole matches through the CLI). The one named is
the one whose deal the next ``DealStarted`` records (``Game.render``'s contract)."""

from __future__ import annotations

import random

import pytest

from kartludo.engine.base import PUBLIC, StartDeal, seeded_deck
from kartludo.engine.bots import HEURISTIC, bots_of
from kartludo.engine.registry import game_names, get_game
from kartludo.events.match import MatchCreated


@pytest.mark.parametrize("name", sorted(game_names()))
def test_between_deals_the_render_names_the_next_dealer(name):
    game = get_game(name)
    players = [f"p{i}" for i in range(game.player_counts[-1])]
    options = {k: o.default for k, o in game.options.items()}
    created = MatchCreated(game=name, ruleset=game.ruleset, players=players, seed=5, options=options)
    state = game.start(created)
    assert "next dealer" not in game.render(state, PUBLIC).splitlines()[0]  # before the first deal: no last dealer
    bot, rng = bots_of(game)[HEURISTIC], random.Random(5)
    ended = 0
    for _ in range(20_000):
        if game.is_finished(state) or ended == 2:
            break
        if game.can_deal(state):
            head = game.render(state, PUBLIC).splitlines()[0]
            deck, shuffle = seeded_deck(game.deck(options), 5, game.deal_number(state) + 1)
            events = game.decide(state, StartDeal(deck=deck, shuffle=shuffle))
            if game.deal_number(state):
                ended += 1
                nxt = players[events[0].dealer]  # who deals the deal now started
                named = head.split("next dealer")[1].split(",")[0].split() if "next dealer" in head else []
                assert named[:1] == [nxt], head  # the name first (a seat label may follow)
        else:
            seat = game.to_act(state)[0]
            events = game.decide(state, bot.choose(game, state, seat, game.legal_commands(state, seat), rng))
        for e in events:
            state = game.evolve(state, e)
        if not game.can_deal(state) and not game.is_finished(state):
            assert "next dealer" not in game.render(state, PUBLIC).splitlines()[0]  # during a deal
    assert ended >= 1
