"""Svoi Kozyri state: one immutable struct, replaced field by field by ``evolve``."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

SEAT_LABELS = ("P1", "P2", "P3", "P4")


class Phase(str, enum.Enum):
    WAITING_DEAL = "waiting_deal"  # between deals: a ``deal`` command is due
    PASSING = "passing"  # dealt: the engine passes the sixes
    LEAD = "lead"  # the pile is empty: play any card
    BEAT = "beat"  # beat the top card (``play``) or ``pickup``
    EXTRA = "extra"  # just beat: add one more card, any card
    FREE = "free"  # the previous player beat with the last card: play any card
    SETTLING = "settling"  # one player still holds cards: the engine ends the deal
    FINISHED = "finished"


#: phases in which a seat is asked to act
PLAY_PHASES = frozenset({Phase.LEAD, Phase.BEAT, Phase.EXTRA, Phase.FREE})


class SkState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    players: tuple[str, ...]
    options: dict[str, Any]
    ruleset: str
    trumps: tuple[str, ...]  # trump suit by seat
    deals: int  # match length in deals
    problem: str | None = None  # why the options cannot make a match (no deal is possible)

    phase: Phase = Phase.WAITING_DEAL
    deal: int = 0  # deals started
    completed: int = 0  # deals ended (lost or drawn)
    dealer: int = -1  # this deal's dealer (-1 before the first deal)
    upcoming_dealer: int = 0  # who deals the next deal (drawn from the seed, then the loser)

    hands: tuple[tuple[str, ...], ...] = ()  # each in ``french.sort_cards`` order
    pile: tuple[str, ...] = ()  # bottom first; [-1] is the top card
    turn: int = -1  # the seat to act
    out: tuple[int, ...] = ()  # seats that emptied their hands this deal, in order
    last_card_beats: int = 0  # last-card beats this deal (a RULING applied)

    losses: tuple[int, ...] = ()
    results: tuple[int, ...] = ()  # per ended deal: the loser's seat, or -1 for a draw

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def top(self) -> str | None:
        return self.pile[-1] if self.pile else None

    def holding(self) -> list[int]:
        """Seats that still hold cards."""
        return [s for s, h in enumerate(self.hands) if h]

    def next_in(self, seat: int) -> int:
        """The next seat clockwise (to the left) that still holds cards, other than ``seat``;
        ``seat`` itself when nobody else does."""
        n = len(self.players)
        for k in range(1, n):
            s = (seat + k) % n
            if self.hands[s]:
                return s
        return seat
