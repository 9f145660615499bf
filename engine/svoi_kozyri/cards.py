"""The card rules of Svoi Kozyri that need no state: beating, pick-up sizes, sixes.

Cards are the 36 French codes of ``kartludo.engine.french`` (``AS``, ``TH``, ``6C``);
the same order in every suit, A high. Each player owns one trump suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from kartludo.engine.french import DECK_36, SUITS, suit, value

DECK: tuple[str, ...] = DECK_36
CARDS = frozenset(DECK_36)
DEFAULT_TRUMPS: tuple[str, ...] = SUITS  # S, H, D, C by seat


def beats(card: str, top: str, trump: str) -> bool:
    """Whether ``card`` beats ``top`` for the owner of ``trump``: a higher card of the
    top card's suit, or any card of one's own trump suit when the top card is not of
    that suit (over an own-trump top card only a higher trump beats)."""
    if card[1] == top[1]:
        return value(card) > value(top)
    return card[1] == trump


def pickup_rule(top: str, trump: str) -> str:
    """What the top card asks of a player who picks up: "3", "5" or "all"."""
    if suit(top) != trump:
        return "3"
    return "all" if top[0] == "A" else "5"


def pickup_count(rule: str, pile_size: int) -> int:
    """How many cards a pick-up takes (fewer when the pile is shorter)."""
    return pile_size if rule == "all" else min(int(rule), pile_size)


def sixes_to_pass(hands: Sequence[Sequence[str]], trumps: Sequence[str]) -> list[tuple[str, int, int]]:
    """(card, giver, receiver) for every six not of its holder's trump suit whose suit
    somebody owns; a six of a suit nobody owns stays where it is."""
    owner = {t: seat for seat, t in enumerate(trumps)}
    out = []
    for seat, hand in enumerate(hands):
        for card in hand:
            if card[0] == "6" and card[1] != trumps[seat] and card[1] in owner:
                out.append((card, seat, owner[card[1]]))
    return out


def parse_trumps(text: str) -> list[str]:
    """``"S,H,D,C"`` -> ``["S", "H", "D", "C"]`` (suit letters in seat order)."""
    parts = [p.strip().upper() for p in str(text).split(",") if p.strip()]
    bad = [p for p in parts if p not in SUITS]
    if bad:
        raise ValueError(f"not suits: {', '.join(bad)} (use S, H, D, C separated by commas)")
    return parts


def check_trumps(value: object) -> str | None:
    if not isinstance(value, list) or not all(isinstance(s, str) and s in SUITS for s in value):
        return "must be suit letters S, H, D, C separated by commas"
    if len(set(value)) != len(value):
        return "each player needs a different trump suit"
    if not 2 <= len(value) <= 4:
        return "one suit per player (2 to 4 players)"
    return None


def check_deals(value: object) -> str | None:
    return None if isinstance(value, int) and value >= 1 else "must be a whole number of deals, at least 1"
