"""What a match is set up with, checked where it is typed: its players, its seed, a
deck entered by hand. A leaf module: creation, series and rollouts all check with it."""

from __future__ import annotations

import re
from typing import Any

from kartludo.engine.base import BadCommand, Game

_PLAYER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,39}$")


#: seeds fit a signed 64-bit integer (every store and encoder takes them)
SEED_LIMIT = 2**63


def check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise BadCommand(f"seed {seed} is out of range: use 0 <= seed < 2^63")


def check_players(game: Game[Any], players: list[str]) -> None:
    if len(players) not in game.player_counts:
        counts = " or ".join(str(n) for n in game.player_counts)
        raise BadCommand(f"{game.name} needs {counts} players, got {len(players)}")
    for name in players:
        if not _PLAYER_NAME.match(name):
            raise BadCommand(
                f"bad player name {name!r}: use 1-40 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
    if len(set(players)) != len(players):
        dupes = sorted({p for p in players if players.count(p) > 1})
        raise BadCommand(f"duplicate player {', '.join(dupes)}")


def parse_deck(text: str) -> list[str]:
    """A deck as typed: card codes separated by spaces or commas, top first."""
    return [c for c in re.split(r"[\s,]+", text.strip()) if c]
