"""League standings as a TD reads them: every column named for what it counts.

The library's ``Standing`` calls each game's own total ``score``; here it gets the
game's word (``Game.total_column``: Svoi Kozyri counts ``losses``, lower is better), a ``rank`` column says
who leads by the chosen sort, and a legend under the table explains each column once.
The same names are the table's headers, the CSV's header and keys of the JSON objects
(which keep every field of ``Standing`` besides, for the API's readers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

#: --sort choices: the library's sorts, and the column names that mean them
SORT_ALIASES = {"match_points": "score", "points": "score", "losses": "score", "placement_points": "placement"}

LEGEND_PLACEMENT = "placement_points: per match, players placed below minus players placed above (ties share)"
LEGEND_FOULS = "fouls: penalty rulings standing against the player (an overturn removes one)"


def total_column(game: str | None) -> tuple[str, str] | None:
    """The game's total column and its legend (None across games: totals do not add up)."""
    if game is None:
        return None
    from kartludo.engine.registry import get_game

    return get_game(game).total_column


def _rank_key(row: Any, sort: str) -> Any:
    return {
        "rating": lambda r: r.rating,
        "matches": lambda r: (r.matches, r.rating),
        "wins": lambda r: (r.wins, r.rating),
        "score": lambda r: (r.score, r.rating),
        "placement": lambda r: (r.placement_points, r.rating),
        "player": lambda r: r.player,
    }[sort](row)


def standing_rows(standings: Sequence[Any], game: str | None, sort: str,
                  provisional_below: int) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    """The columns, the rows (dicts) and the legend lines of a standings table."""
    total = total_column(game)
    columns = ["rank", "player", "matches", "wins", "places"]
    if total:
        columns.append(total[0])
    columns += ["placement_points", "fouls", "rating", "provisional", "mu", "sigma"]
    rows: list[dict[str, Any]] = []
    previous: Any = object()
    rank = 0
    for i, s in enumerate(standings, 1):
        key = _rank_key(s, sort)
        if sort == "player" or key != previous:
            rank = i  # ties share a rank (1, 1, 3)
        previous = key
        row = {"rank": rank, **msgspec.to_builtins(s)}
        row["places"] = dict(sorted(row["places"].items()))
        if total:
            row[total[0]] = s.score
        rows.append(row)
    by = {"score": total[0] if total else "score", "placement": "placement_points"}.get(sort, sort)
    legend = [f"rank: by {by}{'' if sort == 'player' else ', ties share a rank'}; "
              "places: how often the player finished 1st, 2nd, …"]
    if total:
        legend.append(f"{total[0]}: {total[1]}")
    legend += [LEGEND_PLACEMENT, LEGEND_FOULS,
               f"rating: openskill mu - 3 sigma; * provisional: fewer than {provisional_below} matches"]
    return columns, rows, legend


def table_cells(row: dict[str, Any]) -> dict[str, Any]:
    """A row dressed for the table: the provisional rating marked with *."""
    return {**row, "rating": f"{row['rating']:.2f}{'*' if row['provisional'] else ''}"}
