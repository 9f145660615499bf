"""What every game promises the pipeline and the service, checked on random play."""

from __future__ import annotations

import random

import pytest

from kartludo.engine.bots import RandomBot
from kartludo.engine.registry import get_game
from kartludo.events.match import MatchCreated

GAMES = ["uxinjo", "hakamo", "laugavatnsmanni", "svoi-kozyri"]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_only_seats_to_act_have_legal_commands(name, seed):
    """A seat the game is not waiting for may give no command: the service answers a
    command with the caller's legal commands only when it is still to act."""
    from kartludo.engine.base import StartDeal, seeded_deck

    game = get_game(name)
    players = [f"p{i}" for i in range(game.player_counts[0])]
    rng = random.Random(seed)
    created = MatchCreated(game=game.name, ruleset=game.ruleset, players=players, seed=seed,
                           options={k: o.default for k, o in game.options.items()})
    state = game.start(created)
    bot = RandomBot()
    checked = 0
    for _ in range(600):
        if game.is_finished(state):
            break
        if game.can_deal(state):
            deal = game.deal_number(state) + 1
            deck, shuffle = seeded_deck(game.deck(created.options), seed, deal)
            command = StartDeal(deck=list(deck), shuffle=shuffle)
        else:
            waiting = game.to_act(state)
            for seat in range(len(players)):
                if seat not in waiting:
                    assert game.legal_commands(state, seat) == [], (game.phase(state), seat)
                    checked += 1
            seat = rng.choice(waiting)
            command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        for event in game.decide(state, command):
            state = game.evolve(state, event)
    assert checked > 100


@pytest.mark.parametrize("name", GAMES)
def test_every_action_event_reads_back_as_its_command(name):
    """``command_for`` is what ``audit recheck`` re-judges a recorded action with: the
    command it gives, decided on the state before, records that very event again; a
    derived event has no command."""
    from kartludo.engine.base import StartDeal, seeded_deck

    game = get_game(name)
    players = [f"p{i}" for i in range(game.player_counts[0])]
    rng = random.Random(5)
    created = MatchCreated(game=game.name, ruleset=game.ruleset, players=players, seed=5,
                           options={k: o.default for k, o in game.options.items()})
    state = game.start(created)
    bots = game.bots()
    kinds = set()
    for _ in range(800):
        if game.is_finished(state):
            break
        if game.can_deal(state):
            deck, shuffle = seeded_deck(game.deck(created.options), 5, game.deal_number(state) + 1)
            command = StartDeal(deck=deck, shuffle=shuffle)
        else:
            seat = rng.choice(game.to_act(state))
            command = bots["heuristic"].choose(game, state, seat, game.legal_commands(state, seat), rng)
        for event in game.decide(state, command):
            again = game.command_for(event)
            if type(event).derived:
                assert again is None
            else:
                assert again is not None and game.decide(state, again)[0] == event
                kinds.add(type(event))
            state = game.evolve(state, event)
    assert len(kinds) >= 3
