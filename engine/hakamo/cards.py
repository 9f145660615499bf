"""Hakamo card logic on top of the shared Jx deck: rank orders, *inversa*, C as a
copy, legal plays, and how a trick is resolved (roles, cancels, winner).

Pure functions over card codes; ``kartludo.engine.jx`` supplies the deck and the
colour/number/kind helpers. Nothing here knows seats' names or events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from kartludo.engine.jx import AJX, CENTRO, PJX, colour

#: a face-down Kasxetoj card (and an unplayable C) has no copy
NO_COPY = None

#: trump modes set by the upper Kasxetoj card
TRUMP_COLOUR = "colour"  # face-up number, X or V: its colour
TRUMP_JX = "jx"  # face-up Jx: per trick, the first colour differing from the lead
TRUMP_NONE = "none"  # face down


def copy_of(upper: str, upper_up: bool, lower: str, lower_up: bool) -> str | None:
    """What C stands for (RULING): the upper card if face up, else the lower card
    if face up, else nothing (C cannot be played)."""
    if upper_up:
        return upper
    if lower_up:
        return lower
    return NO_COPY


def trump_of(upper: str, upper_up: bool) -> tuple[str, str | None]:
    """The trump mode and fixed trump colour set by the upper card."""
    if not upper_up:
        return TRUMP_NONE, None
    if upper in (PJX, AJX):
        return TRUMP_JX, None
    return TRUMP_COLOUR, colour(upper)


def inversa_of(lower: str, lower_up: bool) -> str:
    """The inversa colours set by the lower card (RULING): face down none, a face-up
    coloured card its colour, a face-up Jx every colour. Returned as a string of
    colour letters (``""``, ``"G"``, ``"RGB"``)."""
    if not lower_up:
        return ""
    if lower in (PJX, AJX):
        return "RGB"
    c = colour(lower)
    return c or ""


def playable(card: str, copy: str | None) -> bool:
    """C can be played only while it copies a face-up Kasxetoj card."""
    return card != CENTRO or copy is not None


def face(card: str, copy: str | None) -> str:
    """The card as it counts in play: C is its copy (call only when playable)."""
    return copy if card == CENTRO and copy is not None else card


def is_jx_face(f: str) -> bool:
    return f == PJX or f == AJX


def rank(f: str, inversa: str) -> int:
    """Strength inside a colour, higher wins: ``X 9 8 7 6 5=V 4 3 2 1``, or in an
    inversa colour ``X 1 2 3 4 5=V 6 7 8 9``. X is 10, 5 and V are both 5."""
    k = f[1]
    if k == "X":
        return 10
    if k == "V":
        return 5
    n = int(k)
    return 10 - n if f[0] in inversa else n


def discard_number(f: str) -> str:
    """The number two discards are compared by: V counts as 5, X as X."""
    k = f[1]
    return "5" if k == "V" else k


def lead_colour(plays: Sequence[tuple[int, str]], copy: str | None) -> str | None:
    """The trick's lead colour (the led card's colour), None before the lead."""
    if not plays:
        return None
    return colour(face(plays[0][1], copy))


def legal_plays(hand: Iterable[str], lead: str | None, copy: str | None) -> list[str]:
    """Distinct cards of ``hand`` that may be played now (sorted as the hand is).

    Leading: anything playable except a Jx (a C copying a Jx is a Jx). Following:
    a holder of the lead colour plays it, but a Jx may always be played (RULING);
    a player without the lead colour plays anything playable.
    """
    cards = [c for c in dict.fromkeys(hand) if playable(c, copy)]
    if lead is None:
        return [c for c in cards if not is_jx_face(face(c, copy))]
    follow = [c for c in cards if colour(face(c, copy)) == lead]
    if not follow:
        return cards
    return [c for c in cards if colour(face(c, copy)) == lead or is_jx_face(face(c, copy))]


class Resolved(NamedTuple):
    """A trick worked out: one entry per play, in play order."""

    faces: tuple[str, ...]
    roles: tuple[str, ...]  # "PJ", "AJ", "trump", "lead", "discard"
    lead: str
    trump: str | None  # this trick's trump colour
    cancelled: tuple[bool, ...]
    groups: tuple[tuple[tuple[int, ...], str], ...]  # (play indices, why) per cancel
    winner: int | None  # index into the plays; None when every card is cancelled
    by_first_discard: bool  # RULING: only discards survived, the first one took it


def trick_trump(faces: Sequence[str], lead: str, mode: str, fixed: str | None) -> str | None:
    if mode == TRUMP_COLOUR:
        return fixed
    if mode == TRUMP_JX:
        for f in faces:
            c = colour(f)
            if c is not None and c != lead:
                return c
    return None


def roles_of(faces: Sequence[str], lead: str, trump: str | None) -> tuple[str, ...]:
    out = []
    for f in faces:
        if f == PJX or f == AJX:
            out.append(f)
        else:
            c = colour(f)
            out.append("trump" if c == trump else "lead" if c == lead else "discard")
    return tuple(out)


def strength_key(f: str, role: str) -> tuple[str, ...]:
    """Cards with equal keys in one trick have the same strength and cancel: a
    colour's 5 and V, AJx pairs, PJx pairs, C and the card it copies (same face),
    and discards of the same number whatever their colours."""
    if role == PJX or role == AJX:
        return (role,)
    if role == "discard":
        return ("discard", discard_number(f))
    return (f[0], "5" if f[1] == "V" else f[1])


def _why(faces: Sequence[str], cards: Sequence[str], idx: Sequence[int], key: tuple[str, ...]) -> str:
    if key[0] in (PJX, AJX):
        why = f"{key[0]} pair"
    elif key[0] == "discard":
        why = f"discards of the same number ({'X' if key[1] == 'X' else key[1]})"
    else:
        why = f"same strength ({key[0]}5 = {key[0]}V)" if key[1] == "5" else "same strength"
    if any(cards[i] == CENTRO for i in idx):
        why += "; C as a copy"
    return why


def resolve(
    cards: Sequence[str], copy: str | None, mode: str, fixed: str | None, inversa: str
) -> Resolved:
    """Work out a complete trick given its cards in play order (the first led)."""
    faces = tuple(face(c, copy) for c in cards)
    lead = colour(faces[0]) or ""
    trump = trick_trump(faces, lead, mode, fixed)
    roles = roles_of(faces, lead, trump)
    by_key: dict[tuple[str, ...], list[int]] = {}
    for i, (f, r) in enumerate(zip(faces, roles)):
        by_key.setdefault(strength_key(f, r), []).append(i)
    cancelled = [False] * len(cards)
    groups = []
    for key, idx in by_key.items():
        if len(idx) > 1:
            for i in idx:
                cancelled[i] = True
            groups.append((tuple(idx), _why(faces, cards, idx, key)))
    alive = [i for i in range(len(cards)) if not cancelled[i]]
    winner: int | None = None
    first_discard = False
    if alive:
        best = None
        for i in alive:
            r = roles[i]
            if r == PJX:
                score = (4, 0)
            elif r == AJX:
                score = (3, 0)
            elif r == "trump":
                score = (2, rank(faces[i], inversa))
            elif r == "lead":
                score = (1, rank(faces[i], inversa))
            else:
                score = (0, 0)
            if best is None or score > best:
                best, winner = score, i
        first_discard = best is not None and best[0] == 0
    return Resolved(faces, roles, lead, trump, tuple(cancelled), tuple(groups), winner, first_discard)


def value(card: str) -> int:
    """A taken card's count: 1, a V 2, C 1 (RULING: C counts as itself)."""
    return 2 if len(card) == 2 and card[1] == "V" else 1


def count(cards: Iterable[str]) -> int:
    return sum(value(c) for c in cards)
