"""The rows the list commands print, with the filters a TD looks for.

The library lists matches, audit entries and series; filtering them by status,
player, game or match is presentation, so it lives here beside the commands and
leaves ``app/`` alone.
"""

from __future__ import annotations

from typing import Any

MATCH_STATUSES = ["in_progress", "finished"]
AUDIT_STATUSES = ["standing", "appealed", "upheld", "overturned", "decision"]


def game_name(game: str | None) -> str | None:
    """A game's registry name (refusing an unknown one, naming the games)."""
    if game is None:
        return None
    from kartludo.engine.registry import get_game

    return get_game(game).name


def list_matches(store: Any, *, game: str | None = None, status: str | None = None,
                 player: str | None = None, series: str | None = None, refreshed: bool = False) -> list[dict[str, Any]]:
    from kartludo.projections.queries import list_matches as all_matches

    rows = all_matches(store, game_name(game), refreshed=refreshed)
    return [r for r in rows if (status is None or r["status"] == status)
            and (player is None or player in r["players"]) and (series is None or r["series"] == series)]


def list_audit(store: Any, *, match: str | None = None, player: str | None = None, game: str | None = None,
               status: str | None = None, refreshed: bool = False) -> list[Any]:
    from kartludo.projections.queries import list_entries

    name = game_name(game)
    return [r for r in list_entries(store, match, player, refreshed=refreshed)
            if (name is None or r.game == name) and (status is None or r.status == status)]


def list_series(store: Any, *, game: str | None = None, player: str | None = None,
                status: str | None = None) -> list[dict[str, Any]]:
    import sqlalchemy as sa

    from kartludo.app.series import fmt_time, load_series
    from kartludo.events.streams import SERIES_PREFIX

    name = game_name(game)
    with store.engine.connect() as conn:
        newest = conn.execute(sa.text("SELECT max(recorded_at_us) FROM events")).scalar() or 0
    rows = []
    for stream in store.streams(SERIES_PREFIX):
        s = load_series(store, stream.removeprefix(SERIES_PREFIX))
        state = ("upcoming" if newest < s.created.starts_at_us
                 else "ended" if newest >= s.deadline_us else "running")
        if (name and s.created.game != name) or (player and player not in s.created.players) \
                or (status and state != status):
            continue
        rows.append({"series": s.id, "game": s.created.game, "status": state,
                     "starts_at": fmt_time(s.created.starts_at_us), "deadline": fmt_time(s.deadline_us),
                     "minutes": s.created.minutes, "matches": len(s.match_ids),
                     "players": list(s.created.players), "_start": s.created.starts_at_us})
    rows.sort(key=lambda r: (r.pop("_start"), r["series"]))
    return rows


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
