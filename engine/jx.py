"""The 38-card Jx deck shared by Uxinjo and Hakamo.

Codes: ``R1``…``R9``, ``G1``…, ``B1``… (numbers), ``RX GX BX``, ``RV GV BV``, ``C``
(Centro), ``PJ``×2 (PJx) and ``AJ``×2 (AJx). Same code = identical card: the deck is a
multiset. Nothing here knows a game's rules.
"""

from __future__ import annotations

from collections.abc import Iterable

COLOURS = ("R", "G", "B")
COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue"}
NUMBERS = tuple(range(1, 10))

#: every coloured number card, colour-major (R1…R9, G1…, B1…)
NUMBER_CARDS: tuple[str, ...] = tuple(f"{c}{n}" for c in COLOURS for n in NUMBERS)
X_CARDS = ("RX", "GX", "BX")
V_CARDS = ("RV", "GV", "BV")
CENTRO = "C"
PJX = "PJ"
AJX = "AJ"
JX = (PJX, AJX)

#: the canonical order of the full deck (also the sort order of a hand)
JX_DECK: tuple[str, ...] = NUMBER_CARDS + X_CARDS + V_CARDS + (CENTRO, PJX, PJX, AJX, AJX)

CODES: frozenset[str] = frozenset(JX_DECK)
#: sort key of a code (index of its first copy in ``JX_DECK``)
ORDER: dict[str, int] = {code: JX_DECK.index(code) for code in CODES}


def is_card(code: str) -> bool:
    return code in CODES


def colour(code: str) -> str | None:
    """``R``/``G``/``B`` for numbers, X and V; None for C and the Jx."""
    return code[0] if len(code) == 2 and code[0] in COLOUR_NAMES and code not in JX else None


def number(code: str) -> int | None:
    """1–9 for a coloured number card, else None."""
    return int(code[1]) if len(code) == 2 and code[0] in COLOUR_NAMES and code[1].isdigit() else None


def kind(code: str) -> str:
    """``number``, ``X``, ``V``, ``C``, ``PJ`` or ``AJ``."""
    if code in JX or code == CENTRO:
        return code
    if code[1] in "XV":
        return code[1]
    return "number"


def is_jx(code: str) -> bool:
    return code in JX


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))


def card_name(code: str) -> str:
    """A spoken name for screen readers: ``R7`` → "red 7", ``GX`` → "green X"."""
    if code == CENTRO:
        return "Centro"
    if code == PJX:
        return "PJx"
    if code == AJX:
        return "AJx"
    c = colour(code)
    if c is None:
        return code
    return f"{COLOUR_NAMES[c]} {code[1]}"
