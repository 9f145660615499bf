"""Hakamo's own property of bot play (the invariants every game keeps are in
``test_games_properties.py``; Hakamo's are in ``gamespecs/hakamo.py``)."""

from __future__ import annotations

import pytest
from gamespecs import BotMatch, play_bots
from gamespecs.hakamo import SPEC

from kartludo.engine.bots import RandomBot
from kartludo.engine.hakamo.bots import HeuristicBot
from kartludo.events.hakamo import DealScored


@pytest.mark.slow
def test_heuristic_deklaristo_wins_more_than_random():
    def wins(bots):
        won = total = 0
        for seed in range(8):
            played = play_bots(SPEC, BotMatch(4, lambda: bots, seeds=[seed], deals=200), seed)
            for e in played.events:
                if isinstance(e, DealScored) and not e.resigned:
                    total += 1
                    won += bool(e.won)
        return won / max(total, 1)

    assert wins([HeuristicBot()] * 4) > wins([RandomBot()] * 4) + 0.3
