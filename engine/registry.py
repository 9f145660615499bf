"""The games kartludo knows, imported only when asked for (keeps CLI start-up fast)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from kartludo.engine.base import BadCommand, Game

#: registry key -> "module:attribute" of the game's stateless rules object
GAMES: dict[str, str] = {
    "uxinjo": "kartludo.engine.uxinjo:UXINJO",
    "hakamo": "kartludo.engine.hakamo:HAKAMO",
    "laugavatnsmanni": "kartludo.engine.laugavatnsmanni:LAUGAVATNSMANNI",
    "svoi-kozyri": "kartludo.engine.svoi_kozyri:SVOI_KOZYRI",
}

_loaded: dict[str, Game[Any]] = {}


def _present(name: str) -> bool:
    """A game is available when its package is installed (found without importing it)."""
    return importlib.util.find_spec(GAMES[name].split(":")[0]) is not None


def game_names() -> list[str]:
    return [name for name in GAMES if _present(name)]


def get_game(name: str) -> Game[Any]:
    game = _loaded.get(name)
    if game is not None:
        return game
    if name not in GAMES or not _present(name):
        raise BadCommand(f"unknown game {name!r} (games: {', '.join(game_names())})")
    module, attr = GAMES[name].split(":")
    game = getattr(importlib.import_module(module), attr)
    _loaded[name] = game
    return game


def load_all() -> None:
    """Import every game, registering all event types for decoding."""
    for name in game_names():
        get_game(name)
