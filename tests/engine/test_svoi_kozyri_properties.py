"""Svoi Kozyri's own property of random play (the invariants every game keeps are in
``test_games_properties.py``; Svoi Kozyri's are in ``gamespecs/svoi_kozyri.py``)."""

from __future__ import annotations

import pytest
from gamespecs import BotMatch, play_bots
from gamespecs.svoi_kozyri import RANDOM_DEAL_BOUND, SPEC

from kartludo.engine.bots import RandomBot
from kartludo.events.svoi_kozyri import DealEnded


@pytest.mark.slow
def test_random_bots_finish_every_deal():
    """Every deal ends, one loser or a draw (the rules set no limit on a deal's length)."""
    for n in (2, 3, 4):
        for seed in range(2):
            run = BotMatch(n, lambda n=n: [RandomBot()] * n, seeds=[seed], deals=1, per_deal=RANDOM_DEAL_BOUND)
            played = play_bots(SPEC, run, seed)
            assert len(played.lengths) == 1 and played.state.completed == 1
            ended = [e for e in played.events if isinstance(e, DealEnded)]
            assert len(ended) == 1 and ended[0].outcome in ("loss", "draw")
