"""Bots every game shares, and the bots a game is played by.

DESIGN asks every game for a random-legal player and one sensible heuristic player.
``RandomBot`` is every game's; a game names its own in ``Game.bots`` (its sensible
player ``"heuristic"``). ``bots_of`` is what simulations, rollouts, the demo and the
tests choose from: a game without a heuristic bot still plays, the random bot standing
in for it, and ``stand_in`` says so in a line a user reads.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from kartludo.engine.base import Bot, Command, Game

#: every game's random-legal player
RANDOM = "random"
#: the name of a game's sensible player (the default of ``simulate``, ``demo`` and rollouts)
HEURISTIC = "heuristic"


class RandomBot(Bot[Any]):
    """Plays a uniformly random legal command: the property tests' fuzzer."""

    name = RANDOM

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        return legal[rng.randrange(len(legal))]


def bots_of(game: Game[Any]) -> dict[str, Bot[Any]]:
    """Every bot ``game`` is played by, by name: ``"random"``, the game's own
    (``Game.bots``), and ``"heuristic"``: the game's, or the random bot standing in."""
    found: dict[str, Bot[Any]] = {RANDOM: RandomBot(), **game.bots()}
    found.setdefault(HEURISTIC, found[RANDOM])
    return found


def stand_in(game: Game[Any], names: Iterable[str]) -> str | None:
    """The line saying the random bot plays for a heuristic bot ``game`` lacks, when
    ``names`` ask for one; else None."""
    if HEURISTIC in names and HEURISTIC not in game.bots():
        return f"{game.title} has no heuristic bot: the random bot plays for it"
    return None
