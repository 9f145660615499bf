"""Standings computed from finished matches' results (what the demo prints).

Each game's engine says what its result is (``Game.result``): the game's own
score and the placing. Per player this adds up matches, wins and scores.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from kartludo.app.matches import Match


class Row(msgspec.Struct):
    player: str
    matches: int = 0
    wins: int = 0
    score: int = 0
    placement_points: int = 0


def standings(matches: Iterable[Match], game: str | None = None) -> list[Row]:
    rows: dict[str, Row] = {}
    for m in matches:
        if game and m.game.name != game:
            continue
        result = m.game.result(m.state)
        if result is None:
            continue
        for player in m.players:
            row = rows.setdefault(player, Row(player))
            row.matches += 1
            rank = result.ranks[player]
            row.wins += rank == 1
            row.score += result.scores[player]
            below = sum(1 for r in result.ranks.values() if r > rank)
            above = sum(1 for r in result.ranks.values() if r < rank)
            row.placement_points += below - above
    return sorted(rows.values(), key=lambda r: (-r.placement_points, -r.wins, r.player))
