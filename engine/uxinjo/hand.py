"""Uxinjo hands: combinations, wild limits, best split and hand points (§1, §4.1).

Pure functions over card codes. A six-card hand wins when it splits into two
combinations; its points are those of its best split.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

from kartludo.engine.jx import CENTRO, COLOURS, JX, NUMBER_CARDS, ORDER, colour

#: a card that may stand for any coloured number (PJx, AJx, or C when the revealed card is a Jx)
WILD = "*"

#: the points table's rows, in the order they are listed
ROWS = ("base", "trio", "unikoloro", "x-havo", "v-havo", "centro", "eltiro", "malgxentilo")

_NUMBER_FACES = frozenset(NUMBER_CARDS)


class Combo(NamedTuple):
    faces: tuple[str, ...]  # the three faces, in the combination's order
    trio: bool


def _templates() -> list[Combo]:
    """Every combination as three faces (exact codes; V stays ``RV``, never ``R5``)."""
    out: list[Combo] = []
    for c in COLOURS:
        for n in range(1, 8):
            run = [f"{c}{n + i}" for i in range(3)]
            out.append(Combo(tuple(run), False))
            if f"{c}5" in run:  # V stands for the 5 of its colour in a run
                out.append(Combo(tuple(f"{c}V" if f == f"{c}5" else f for f in run), False))
        out.append(Combo((f"{c}8", f"{c}9", f"{c}X"), False))  # X only as 8-9-X …
        out.append(Combo((f"{c}X", f"{c}1", f"{c}2"), False))  # … or X-1-2
    for n in range(1, 10):
        out.append(Combo(tuple(f"{c}{n}" for c in COLOURS), True))
    out.append(Combo(tuple(f"{c}X" for c in COLOURS), True))
    out.append(Combo(tuple(f"{c}V" for c in COLOURS), True))  # V never a 5 in a trio
    return out


TEMPLATES: tuple[Combo, ...] = tuple(_templates())


def _index() -> dict[tuple[tuple[str, ...], int], list[tuple[tuple[str, ...], Combo]]]:
    """(sorted fixed faces, number of wilds) -> [(faces the wilds take, combo)]."""
    index: dict[tuple[tuple[str, ...], int], list[tuple[tuple[str, ...], Combo]]] = {}
    for combo in TEMPLATES:
        faces = combo.faces
        for k in range(4):
            for wild_pos in combinations(range(3), k):
                wild_faces = tuple(faces[i] for i in wild_pos)
                if any(f not in _NUMBER_FACES for f in wild_faces):
                    continue  # a wild stands only for a coloured number 1–9
                fixed = tuple(sorted((faces[i] for i in range(3) if i not in wild_pos), key=ORDER.__getitem__))
                index.setdefault((fixed, k), []).append((wild_faces, combo))
    return index


_INDEX = _index()


class HandScore(NamedTuple):
    """The best split of a six-card hand and its points table rows."""

    points: int
    rows: tuple[tuple[str, int], ...]
    split: tuple[tuple[str, ...], tuple[str, ...]]  # e.g. ("R3", "PJ=R4", "R5")
    wilds: int

    def rows_dict(self) -> dict[str, int]:
        return dict(self.rows)


def face(card: str, revealed: str | None) -> str | None:
    """What ``card`` is in a hand: its own code, the revealed card for C, ``WILD``
    for a Jx (and for C when the revealed card is a Jx); None if unusable."""
    if card in JX:
        return WILD
    if card == CENTRO:
        if revealed in JX:
            return WILD
        if revealed is None or revealed == CENTRO:
            return None
        return revealed
    return card


@lru_cache(maxsize=1 << 16)
def _triple_options(cards: tuple[str, ...],
                    revealed: str | None) -> tuple[tuple[tuple[str, ...], tuple[str, ...], bool], ...]:
    """Ways three cards form a combination: (labels and faces in the combination's
    order, is trio). Cached: six-card hands share their triples (bots and rollouts
    score thousands of hands)."""
    seen = [face(c, revealed) for c in cards]
    faces = [f for f in seen if f is not None]
    if len(faces) < len(seen):
        return ()
    fixed = tuple(sorted((f for f in faces if f != WILD), key=ORDER.__getitem__))
    k = 3 - len(fixed)
    if len(set(fixed)) != len(fixed):
        return ()
    out = []
    for wild_faces, combo in _INDEX.get((fixed, k), ()):
        it = iter(wild_faces)
        pairs = sorted(
            ((c, next(it) if f == WILD else f) for c, f in zip(cards, faces)),
            key=lambda cf: combo.faces.index(cf[1]),
        )
        out.append((tuple(_label(c, f) for c, f in pairs), tuple(f for _, f in pairs), combo.trio))
    return tuple(out)


def _revealed_for(cards: tuple[str, ...], revealed: str | None) -> str | None:
    """The revealed card as far as ``cards`` care: only a C takes its face from it, so
    the caches key hands without a C once, whatever card was revealed."""
    return revealed if CENTRO in cards else None


def _label(card: str, f: str) -> str:
    return card if card == f else f"{card}={f}"


#: the ten ways to split six cards in two triples, the first card in the first one:
#: (positions of the first triple, of the second), in ``combinations`` order
_SPLITS = tuple(
    ((0, 1 + i, 1 + j), tuple(1 + k for k in range(5) if k not in (i, j))) for i, j in combinations(range(5), 2)
)


@lru_cache(maxsize=65536)
def _best(six: tuple[str, ...], revealed: str | None) -> HandScore | None:
    best: HandScore | None = None
    # only a C takes its face from the revealed card (``_revealed_for``)
    c_at = revealed if CENTRO in six else None
    options = _triple_options
    for (x, y, z), (u, v, w) in _SPLITS:
        a = (six[x], six[y], six[z])
        opts_a = options(a, c_at if CENTRO in a else None)
        if not opts_a:
            continue
        b = (six[u], six[v], six[w])
        opts_b = options(b, c_at if CENTRO in b else None)
        for la, fa, ta in opts_a:
            for lb, fb, tb in opts_b:
                faces = fa + fb
                if len(set(faces)) != 6:
                    continue  # RULING: a hand never holds two of the same coloured number
                score = _score(six, faces, int(ta) + int(tb), revealed)
                if best is None or score[0] > best.points:
                    best = HandScore(score[0], score[1], (la, lb), score[2])
    return best


def _score(cards: Sequence[str], faces: Sequence[str], trios: int,
           revealed: str | None) -> tuple[int, tuple[tuple[str, int], ...], int]:
    wilds = sum(1 for c in cards if face(c, revealed) == WILD)
    colours = {colour(f) for f in faces}
    rows: list[tuple[str, int]] = [("base", 2)]
    if trios:
        rows.append(("trio", trios))
    if len(colours) == 1 and None not in colours:
        rows.append(("unikoloro", 2))
    if any(f[1] == "X" for f in faces):
        rows.append(("x-havo", 1))
    if any(f[1] == "V" for f in faces):
        rows.append(("v-havo", 1))
    if CENTRO in cards:
        rows.append(("centro", 1))
    if wilds:
        rows.append(("malgxentilo", -wilds))
    return sum(p for _, p in rows), tuple(rows), wilds


def best_split(six: Sequence[str], revealed: str | None, eltiro: int = 0) -> HandScore | None:
    """The six cards' best split and points (``eltiro`` = the holder's exposed Jx),
    or None when they do not form two combinations."""
    if len(six) != 6:
        return None
    ordered = tuple(sorted(six, key=ORDER.__getitem__))
    score = _best(ordered, _revealed_for(ordered, revealed))
    if score is None or not eltiro:
        return score
    rows = list(score.rows)
    at = next((i for i, (name, _) in enumerate(rows) if name == "malgxentilo"), len(rows))
    rows.insert(at, ("eltiro", eltiro))
    return score._replace(points=score.points + eltiro, rows=tuple(rows))


def is_valid_win(six: Sequence[str], revealed: str | None, eltiro: int, needed: int) -> bool:
    score = best_split(six, revealed, eltiro)
    return score is not None and score.points >= needed


def forms_combinations(six: Sequence[str], revealed: str | None) -> bool:
    return best_split(six, revealed) is not None
