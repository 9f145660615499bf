"""French-suited decks shared by Laugavatnsmanni (52 cards) and Svoi Kozyri (36).

Codes are rank + suit: ``AS``, ``TH`` (ten of hearts), ``6C``. Nothing here knows a
game's rules; games decide what ranks they use and how they compare.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: ranks high to low
RANKS_52 = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")
RANKS_36 = RANKS_52[:9]
RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}

#: the canonical order: suit by suit, each high to low
DECK_52: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS_52)
DECK_36: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS_36)

#: a rank's strength: 2 -> 2 … A -> 14
RANK_VALUE = {r: 14 - i for i, r in enumerate(RANKS_52)}
_ORDER = {code: i for i, code in enumerate(DECK_52)}


def suit(code: str) -> str:
    return code[1]


def rank(code: str) -> str:
    return code[0]


def value(code: str) -> int:
    """Strength of the card's rank (A = 14 … 2 = 2)."""
    return RANK_VALUE[code[0]]


def is_card(code: str) -> bool:
    return len(code) == 2 and code in _ORDER


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Suit by suit (S H D C), high to low: how a hand is shown."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def card_name(code: str) -> str:
    """A spoken name for screen readers: ``TH`` -> "10 of hearts"."""
    r = code[0]
    return f"{RANK_NAMES.get(r, r)} of {SUIT_NAMES[code[1]]}"
