"""What the cross-game tests take from each installed game: the registry's names, table
sizes, options for a short match and the bots, asked of the game contract, so that no
test lists the games (a new game is checked by every cross-game test as it is installed)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import Bot, Command, Game
from kartludo.engine.bots import HEURISTIC, bots_of
from kartludo.engine.registry import game_names, get_game

#: players, in the order tests seat them
NAMES = ("ann", "bob", "cy", "dan")


def games() -> list[str]:
    """Every installed game, by name (the registry's order)."""
    return game_names()


def seats(game: str, *, smallest: bool = False) -> int:
    """A table size the game is played at: the middle of its ``player_counts`` (Svoi
    Kozyri: 3 of 2-4), or the smallest (whose deals are the quickest)."""
    counts = get_game(game).player_counts
    return counts[0] if smallest else counts[len(counts) // 2]


def players(game: str, names: tuple[str, ...] | list[str] = NAMES, *, smallest: bool = False) -> list[str]:
    """The first ``seats(game)`` of ``names``."""
    return list(names[: seats(game, smallest=smallest)])


def short_options(game: str) -> dict[str, str]:
    """The options, as typed (``--option KEY=VALUE``, a request's ``options``), that keep a
    match of ``game`` short (``Option.short``): none for a game without such options."""
    return {key: opt.short for key, opt in get_game(game).options.items() if opt.short is not None}


def heuristic(game: str) -> Bot[Any]:
    """The game's heuristic bot (the random bot for a game without one)."""
    return bots_of(get_game(game))[HEURISTIC]


def trick_games() -> list[str]:
    """The installed games played in tricks (``Game.trick_events``)."""
    return [name for name in game_names() if get_game(name).trick_events is not None]


class Erratic(Bot[Any]):
    """The game's heuristic bot, but one move in four a random legal one: it fouls as
    random bots do (Uxinjo's fill the audit trail) yet ends its deals (random play may
    not: a random Svoi Kozyri deal runs to thousands of moves).

    ``until_deal``: erratic up to that deal, the heuristic bot after it, for a test that
    needs the match to end: a foul voids an Uxinjo deal's score, so a match erratic
    throughout can run hundreds of deals (seen: 214 deals, no end)."""

    name = "erratic"

    def __init__(self, game: str, share: float = 0.25, until_deal: int | None = None) -> None:
        self.heuristic, self.share, self.until_deal = heuristic(game), share, until_deal

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        calm = self.until_deal is not None and (game.deal_number(state) or 0) > self.until_deal
        if not calm and rng.random() < self.share:
            return legal[rng.randrange(len(legal))]
        return self.heuristic.choose(game, state, seat, legal, rng)
