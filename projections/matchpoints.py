"""Duplicate scoring: each table's result on a board compared only with the other
tables' results on that board from the same seat (the same cards).

Matchpoints as duplicate bridge scores them: 2 for every other table beaten, 1 for
every tie, out of 2 x (tables - 1), shown as a percentage; beside it the difference
from the board's mean at that seat. A result is the game's own deal score for the
seat (Uxinjo: the change of the player's total over the deal; Hakamo and
Laugavatnsmanni: points; Svoi Kozyri: -1 for a lost deal, 0 otherwise), compared
the way the game ranks it (``higher_is_better``). A table that has not played the
board (or whose result is withheld) takes no part in its comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import msgspec


class Scored(msgspec.Struct, frozen=True):
    """One table's result at one seat of a board, with its comparison."""

    table: int
    score: int
    matchpoints: int  # 2 per table beaten, 1 per tie
    top: int  # what beating every other table gives: 2 x (tables compared - 1)
    difference: Fraction  # score minus the board's mean at this seat (in the game's favour: + is better)

    @property
    def percentage(self) -> float:
        """Matchpoints as a percentage of the top; a lone table scores 50%."""
        return 50.0 if self.top == 0 else 100.0 * self.matchpoints / self.top


def compare(results: Mapping[int, int], higher_is_better: bool = True) -> dict[int, Scored]:
    """Matchpoints of each table's ``results`` (table -> score) at one seat of one board."""
    tables = sorted(results)
    if not tables:
        return {}
    sign = 1 if higher_is_better else -1
    mean = Fraction(sum(results.values()), len(tables))
    top = 2 * (len(tables) - 1)
    out = {}
    for t in tables:
        mine = sign * results[t]
        points = sum(2 if mine > sign * results[o] else 1 if mine == sign * results[o] else 0
                     for o in tables if o != t)
        out[t] = Scored(t, results[t], points, top, sign * (results[t] - mean))
    return out
