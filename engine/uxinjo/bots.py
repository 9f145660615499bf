"""A sensible Uxinjo player: munts only valid hands, keeps cards that combine.

It reads only what ``game.view(state, seat)`` shows (``view.seat_view``: the part of it
it weighs, built alone every turn); ``foul_rate`` > 0 makes it declare
invalid munts on purpose (for tests of the penalty machinery).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from kartludo.engine.base import Bot, Command, Game
from kartludo.engine.bots import RandomBot
from kartludo.engine.jx import colour, is_jx
from kartludo.engine.uxinjo.commands import Discard
from kartludo.engine.uxinjo.hand import WILD, best_split, face
from kartludo.engine.uxinjo.view import seat_view

__all__ = ["HeuristicBot", "RandomBot", "affinity"]


def _rank(f: str) -> int | None:
    """A face's place in a run (V = 5); X handled apart."""
    if f[1] == "V":
        return 5
    return int(f[1]) if f[1].isdigit() else None


@lru_cache(maxsize=4096)
def affinity(a: str, b: str) -> int:
    """How much two faces help each other towards a combination (cached: a few
    hundred pairs of faces, weighed for every discard of every turn)."""
    if a == WILD or b == WILD:
        return 3
    if a[1] == "X" and b[1] == "X" or a[1] == "V" and b[1] == "V":
        return 2  # towards an X or V trio
    same_colour = colour(a) == colour(b)
    if a[1] == "X" or b[1] == "X":
        other = b if a[1] == "X" else a
        n = _rank(other)
        return 2 if same_colour and n in (1, 9) else 1 if same_colour and n in (2, 8) else 0
    na, nb = _rank(a), _rank(b)
    if na is None or nb is None:
        return 0
    score = 0
    if na == nb and a[1] != "V" and b[1] != "V" and not same_colour:
        score += 2  # towards a number trio
    if same_colour and na != nb and abs(na - nb) <= 2:
        score += 3 - abs(na - nb)
    return score


class HeuristicBot(Bot[Any]):
    name = "heuristic"

    def __init__(self, foul_rate: float = 0.0, levu: bool = False) -> None:
        self.foul_rate = foul_rate
        self.levu = levu

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        by_text = {c.text(): c for c in legal}
        v = seat_view(state, seat)
        hand, revealed, needed, eltiro = v.hand, v.revealed, v.points_needed, v.exposed

        def wins(six: tuple[str, ...]) -> bool:
            score = best_split(six, revealed, eltiro)
            return score is not None and score.points >= needed

        fouling = self.foul_rate > 0 and rng.random() < self.foul_rate
        if fouling and "munt" in by_text:
            return by_text["munt"]
        top = v.top_discard  # in a claim window, its card
        if "pass" in by_text:  # a claim window
            if "munt" in by_text and top is not None and wins(hand + (top,)):
                return by_text["munt"]
            return by_text["pass"]
        if "munt" in by_text:  # six cards in hand
            if wins(hand):
                return by_text["munt"]
            if self.levu and "levu" in by_text and self._strength(hand, revealed) >= 14:
                return by_text["levu"]
            jx = [c for c in hand if is_jx(c)]
            if len(jx) >= 2 and f"eltiri {jx[0]}" in by_text and "PJ" in jx:
                return by_text["eltiri PJ"]
            discards = [c for c in legal if type(c) is Discard]
            if discards:
                faces = self._faces(hand, revealed)
                return min(discards, key=lambda c: (self._kept(faces, c.card, revealed), c.card))
        if "take" in by_text and top is not None:
            if wins(hand + (top,)) or self._gain(hand, top, revealed) >= 4:
                return by_text["take"]
        if "draw" in by_text:
            return by_text["draw"]
        return legal[0]

    @staticmethod
    def _faces(cards: Iterable[str], revealed: str | None) -> list[str]:
        return [f for f in (face(c, revealed) for c in cards) if f is not None]

    @staticmethod
    def _kept(faces: list[str], card: str, revealed: str | None) -> int:
        """How much ``card`` combines with the rest of the hand (low = discard it), from
        the hand's faces taken once per turn: its affinity to every face but its own."""
        f = face(card, revealed)
        if f is None:
            return -1
        return sum(affinity(f, g) for g in faces) - affinity(f, f)

    def _gain(self, hand: Iterable[str], card: str, revealed: str | None) -> int:
        f = face(card, revealed)
        return 0 if f is None else sum(affinity(f, g) for g in self._faces(hand, revealed))

    def _strength(self, hand: Iterable[str], revealed: str | None) -> int:
        faces = self._faces(hand, revealed)
        return sum(affinity(a, b) for i, a in enumerate(faces) for b in faces[i + 1 :])
