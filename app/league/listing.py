"""The match list as a TD filters it: by game, status, player and series (``match
list`` on the command line, ``GET /matches`` over HTTP; the same filters, the same rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kartludo.store import EventStore

#: what a match's status may be
MATCH_STATUSES = ["in_progress", "finished"]


def game_name(game: str | None) -> str | None:
    """A game's registry name (refusing an unknown one, naming the games)."""
    if game is None:
        return None
    from kartludo.engine.registry import get_game

    return get_game(game).name


def list_matches(store: EventStore, *, game: str | None = None, status: str | None = None,
                 player: str | None = None, series: str | None = None,
                 refreshed: bool = False) -> list[dict[str, Any]]:
    """Every match (``match``, ``game``, ``status``, ``deal``, ``players``, ``series``,
    ``created_at``), oldest first: of ``game`` (any name the registry knows), in
    ``status``, played by ``player``, of the series ``series`` (its full id)."""
    from kartludo.projections.queries import list_matches as all_matches

    rows = all_matches(store, game_name(game), refreshed=refreshed)
    return [r for r in rows if (status is None or r["status"] == status)
            and (player is None or player in r["players"]) and (series is None or r["series"] == series)]
