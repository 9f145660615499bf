"""The games kartludo knows: every installed ``kartludo.engine`` subpackage exposing
``GAME``, found without importing it (keeps CLI start-up fast) and imported when asked for.

A game registers itself by being installed: its package ``kartludo.engine.<pkg>``
defines ``GAME``, a ``Game`` whose ``name`` is the package name with ``_`` written
``-`` (``svoi_kozyri`` -> ``svoi-kozyri``). Nothing here lists the games.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from kartludo.engine import __path__ as _engine_path
from kartludo.engine.base import BadCommand, Game

_loaded: dict[str, Game[Any]] = {}


def _packages() -> dict[str, str]:
    """Game name -> module, for every subpackage of ``kartludo.engine`` (sorted by name)."""
    found = {}
    for info in pkgutil.iter_modules(_engine_path):
        if info.ispkg and not info.name.startswith("_"):
            found[info.name.replace("_", "-")] = f"kartludo.engine.{info.name}"
    return dict(sorted(found.items()))


def game_names() -> list[str]:
    """The installed games, by name."""
    return list(_packages())


def get_game(name: str) -> Game[Any]:
    game = _loaded.get(name)
    if game is not None:
        return game
    module = _packages().get(name)
    if module is None:
        raise BadCommand(f"unknown game {name!r} (games: {', '.join(game_names())})")
    game = getattr(importlib.import_module(module), "GAME", None)
    if not isinstance(game, Game) or game.name != name:
        raise BadCommand(f"package {module} does not define GAME, the game {name!r}")
    _loaded[name] = game
    return game


def all_games() -> list[Game[Any]]:
    """Every installed game, imported (registering all event types for decoding)."""
    return [get_game(name) for name in game_names()]


def load_all() -> None:
    """Import every game, registering all event types for decoding."""
    all_games()
