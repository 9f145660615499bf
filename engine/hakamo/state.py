"""Hakamo state: one immutable struct, replaced field by field by ``evolve``."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from kartludo.events.hakamo import TrickEnded

SEATS = 4
SEAT_LABELS = ("Or", "Su", "Ok", "No")
DEALS = 8  # counted deals in a match
HAND = 9  # cards dealt to each player
MIN_BID = 13
#: The project's bound on bids (not a rule of the game, nor a RULING): the most a GV
#: could count if all 39 card points (36 cards, three of them V), the kept-Kasxetoj
#: bonus (2) and the four-Matisto bonus (16) came together. It keeps the legal bids
#: finite; under these rules at most one Matisto arises (a follower is mati only on a
#: lone unplayable C, in the ninth trick; a leader's matatis ends the tricks), and the
#: Matisto's hand goes to nobody, so a deal reaches at most 38 + 2 + 2 = 42.
MAX_BID = 57


class Phase(str, enum.Enum):
    WAITING_DEAL = "waiting_deal"  # between deals: a ``deal`` command is due
    AUCTION = "auction"  # §1 bids for Deklaristo
    PASSED_OUT = "passed_out"  # all four passed: the engine records it (then a redeal)
    KASXETOJ = "kasxetoj"  # §2 the Deklaristo keeps or exchanges
    LAY = "lay"  # §2 the Deklaristo holds 11 and lays the new upper and lower
    KUNULO = "kunulo"  # §3 the Deklaristo plays solo or recruits
    SHARES = "shares"  # §3 the descending auction for Kunulo
    NO_KUNULO = "no_kunulo"  # §3 all three passed: solo or resign
    DECLARATION = "declaration"  # §4 a seat or malhakama
    TRICKS = "tricks"  # §5
    SCORING = "scoring"  # §6-7: the engine settles the deal
    FINISHED = "finished"


def _four(value: Any) -> tuple[Any, ...]:
    return (value,) * SEATS


class HkState(msgspec.Struct, frozen=True, kw_only=True):
    players: tuple[str, ...]
    options: dict[str, Any]
    ruleset: str

    phase: Phase = Phase.WAITING_DEAL
    deal: int = 0  # deals started, redeals included
    counted: int = 0  # deals settled (the match has eight)
    dealer: int = -1
    redeal: bool = False  # the last deal was passed out: the same dealer deals again

    hands: tuple[tuple[str, ...], ...] = ((), (), (), ())  # each sorted by ``jx.ORDER``
    kasxetoj: tuple[str, ...] = ()  # (upper, lower); empty while the Deklaristo holds 11
    upper_up: bool = False
    lower_up: bool = False
    kept: bool | None = None
    copy: str | None = None  # what C stands for (None: C cannot be played)
    trump_mode: str = "none"  # "colour", "jx" or "none"
    trump: str | None = None  # the fixed trump colour
    inversa: str = ""  # inversa colours, e.g. "G" or "RGB"

    turn: int = -1  # the seat to act in the auctions and the Deklaristo's choices
    bids: tuple[tuple[int, int], ...] = ()  # (seat, amount), auction for Deklaristo; -1 = pass
    high: int = 0
    high_seat: int = -1
    passed: tuple[bool, ...] = _four(False)
    deklaristo: int = -1
    contract: int = 0

    share_bids: tuple[tuple[int, int], ...] = ()  # (seat, share); -1 = pass
    share_low: int = 0
    share_seat: int = -1
    share_passed: tuple[bool, ...] = _four(False)
    kunulo: int = -1
    share: int = 0
    solo: bool = False
    resigned: bool = False

    declared: bool = False
    target: int | None = None  # declared seat; None = malhakama

    tricks: int = 0  # tricks completed
    leader: int = -1
    trick: tuple[tuple[int, str], ...] = ()  # (seat, card) in play order
    taken: tuple[tuple[str, ...], ...] = ((), (), (), ())
    cancelled: tuple[str, ...] = ()
    matistos: tuple[int, ...] = ()
    mati_cards: tuple[str, ...] = ()  # matatis hands, discarded to nobody
    end: str | None = None  # how trick-taking ended
    last_trick: TrickEnded | None = None

    totals: tuple[int, ...] = _four(0)
    history: tuple[tuple[int, ...], ...] = ()  # per counted deal: each seat's points

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still taking part in the tricks (not Matistos)."""
        return tuple(s for s in range(SEATS) if s not in self.matistos)
