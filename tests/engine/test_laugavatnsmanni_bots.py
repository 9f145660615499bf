"""Laugavatnsmanni's heuristic bot (the invariants every game keeps are in
``test_games_properties.py``; Laugavatnsmanni's are in ``gamespecs/laugavatnsmanni.py``)."""

from __future__ import annotations

from kartludo.engine.laugavatnsmanni.bots import HeuristicBot


def test_heuristic_bot_ducks_in_nullo_and_wins_cheaply_otherwise():
    bot = HeuristicBot()
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "JS", "4S"], ["KS", "JS", "4S"], v) == "JS"  # the highest card under QS
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}]}
    assert bot._play(["AH", "2C"], ["AH", "2C"], v) == "AH"  # void: discard the most dangerous card
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "AS", "4S"], ["KS", "AS", "4S"], v) == "KS"  # last to play: the cheapest winner
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["3H", "KH", "2C"], ["3H", "KH", "2C"], v) == "3H"  # void: ruff low


def test_the_declarer_exchanges_without_listing_every_exchange():
    """Its own discards are checked alone (``engine.legal.Legal``): listing and sorting the
    ~2,500 exchanges a hand allows was most of a rollout's time (issue 41)."""
    import random

    from kartludo.engine.base import StartDeal, seeded_deck
    from kartludo.engine.laugavatnsmanni import GAME
    from kartludo.engine.legal import Legal
    from kartludo.events.match import MatchCreated

    created = MatchCreated(game=GAME.name, ruleset=GAME.ruleset, players=["ann", "bob", "cy"], seed=3,
                           options={k: o.default for k, o in GAME.options.items()})
    state = GAME.start(created)
    bot = HeuristicBot()
    rng = random.Random(3)
    for event in GAME.decide(state, StartDeal(deck=seeded_deck(GAME.deck(created.options), 3, 1)[0])):
        state = GAME.evolve(state, event)
    while GAME.phase(state) != "exchange":
        seat = GAME.to_act(state)[0]
        for event in GAME.decide(state, bot.choose(GAME, state, seat, Legal(GAME, state, seat), rng)):
            state = GAME.evolve(state, event)
    seat = GAME.to_act(state)[0]
    legal = Legal(GAME, state, seat)
    chosen = bot.choose(GAME, state, seat, legal, rng)
    assert not legal.listed and chosen.verb() == "exchange"
    assert chosen in GAME.legal_commands(state, seat) and len(GAME.legal_commands(state, seat)) > 2000
