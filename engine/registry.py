"""The games kartludo knows, imported only when asked for (keeps CLI start-up fast)."""

from __future__ import annotations

import importlib
from typing import Any

from kartludo.engine.base import BadCommand, Game

#: registry key -> "module:attribute" of the game's stateless rules object
GAMES: dict[str, str] = {
    "uxinjo": "kartludo.engine.uxinjo:UXINJO",
}

_loaded: dict[str, Game[Any]] = {}


def game_names() -> list[str]:
    return list(GAMES)


def get_game(name: str) -> Game[Any]:
    game = _loaded.get(name)
    if game is not None:
        return game
    try:
        target = GAMES[name]
    except KeyError:
        raise BadCommand(f"unknown game {name!r} (games: {', '.join(GAMES)})") from None
    module, attr = target.split(":")
    game = getattr(importlib.import_module(module), attr)
    _loaded[name] = game
    return game


def load_all() -> None:
    """Import every game, registering all event types for decoding."""
    for name in GAMES:
        get_game(name)
