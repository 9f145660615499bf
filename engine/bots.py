"""Bots every game shares."""

from __future__ import annotations

import random
from typing import Any

from kartludo.engine.base import Bot, Command, Game


class RandomBot(Bot[Any]):
    """Plays a uniformly random legal command: the property tests' fuzzer."""

    name = "random"

    def choose(self, game: Game[Any], state: Any, seat: int, legal: list[Command], rng: random.Random) -> Command:
        return legal[rng.randrange(len(legal))]
