"""The rows the list commands print, with the filters a TD looks for.

The library lists and filters matches (``app.league.listing``), audit entries
(``app.audit.trail.list_audit``) and series, for the command line and the HTTP
service alike; these are the commands' names for them.
"""

from __future__ import annotations

from typing import Any

from kartludo.app.audit import AUDIT_STATUSES
from kartludo.app.league.listing import MATCH_STATUSES, game_name

__all__ = ["AUDIT_STATUSES", "MATCH_STATUSES", "audit_rows", "list_audit", "list_matches", "list_series"]


def list_matches(store: Any, *, game: str | None = None, status: str | None = None,
                 player: str | None = None, series: str | None = None, refreshed: bool = False) -> list[dict[str, Any]]:
    from kartludo.app.league.listing import list_matches as listed

    return listed(store, game=game, status=status, player=player, series=series, refreshed=refreshed)


def list_audit(store: Any, *, match: str | None = None, player: str | None = None, game: str | None = None,
               status: str | None = None, refreshed: bool = False) -> list[Any]:
    from kartludo.app.audit.trail import list_audit as listed

    return listed(store, match=match, player=player, game=game, status=status, refreshed=refreshed)


def list_series(store: Any, *, game: str | None = None, player: str | None = None,
                status: str | None = None) -> list[dict[str, Any]]:
    from kartludo.app.league.series import list_series as every_series

    return every_series(store, game=game_name(game), player=player, status=status)


def audit_rows(records: list[Any]) -> list[dict[str, Any]]:
    """Audit records as rows: every field, plus ``judged`` (points against needed)."""
    import msgspec

    rows = []
    for r in records:
        row = msgspec.to_builtins(r)
        points, needed = r.facts.get("points"), r.facts.get("needed")
        row["judged"] = f"{points} < {needed} needed" if points is not None and needed is not None else ""
        rows.append(row)
    return rows
