"""Hakamo event types.

Player actions first (bids, the Kasxetoj choice and lay, the Kunulo auction, the
declaration, plays), then what the engine decides by itself (``derived``): an
all-pass deal, automatic matatis, each trick's result with its cancels, the deal's
settlement with every part of the GV and score computation, and the match end.
Seats are seat indices (0 = Or … 3 = No); names appear only in ``MatchEnded``.
"""

from __future__ import annotations

import msgspec

from kartludo.events.base import Event, register_union

# --- player actions ------------------------------------------------------------


class Bid(Event, frozen=True, kw_only=True, tag="hakamo.bid"):
    """A bid in the auction for Deklaristo: the predicted GV."""

    seat: int
    amount: int


class Passed(Event, frozen=True, kw_only=True, tag="hakamo.pass"):
    """A (final) pass in the auction for Deklaristo."""

    seat: int


class KasxetojKept(Event, frozen=True, kw_only=True, tag="hakamo.keep"):
    """The Deklaristo keeps the Kasxetoj unseen: both count as face down."""

    seat: int


class KasxetojTaken(Event, frozen=True, kw_only=True, tag="hakamo.exchange"):
    """The Deklaristo takes the two Kasxetoj into the hand (upper, lower); only
    the Deklaristo sees ``cards``."""

    seat: int
    cards: list[str]


class KasxetojLaid(Event, frozen=True, kw_only=True, tag="hakamo.lay"):
    """The new Kasxetoj, upper then lower, each face up or down."""

    seat: int
    upper: str
    upper_up: bool
    lower: str
    lower_up: bool


class Solo(Event, frozen=True, kw_only=True, tag="hakamo.solo"):
    seat: int


class Recruited(Event, frozen=True, kw_only=True, tag="hakamo.recruit"):
    """The Deklaristo opens the descending auction for a Kunulo."""

    seat: int


class ShareBid(Event, frozen=True, kw_only=True, tag="hakamo.share-bid"):
    """A bid in the Kunulo auction: the share the bidder will play for."""

    seat: int
    share: int


class SharePassed(Event, frozen=True, kw_only=True, tag="hakamo.share-pass"):
    seat: int


class Resigned(Event, frozen=True, kw_only=True, tag="hakamo.resign"):
    """Nobody offered to be Kunulo and the Deklaristo gives up the deal."""

    seat: int


class Declared(Event, frozen=True, kw_only=True, tag="hakamo.declare"):
    """The Deklaristo's prediction: ``target`` seat as a Hakamisto, or None for
    malhakama (no Hakamisto will arise)."""

    seat: int
    target: int | None


class Played(Event, frozen=True, kw_only=True, tag="hakamo.play"):
    seat: int
    card: str


# --- engine decisions ----------------------------------------------------------


class PassedOut(Event, frozen=True, kw_only=True, tag="hakamo.passed-out"):
    """All four passed: the same dealer redeals; this deal is not one of the eight."""

    derived = True
    ends_deal = True

    deal: int
    dealer: int


class Matatis(Event, frozen=True, kw_only=True, tag="hakamo.matatis"):
    """The player to act has no legal card (RULING: recorded automatically): the
    hand is shown and discarded to nobody; ``lead`` ends trick-taking."""

    derived = True

    deal: int
    trick: int  # 1-9, the trick in which it happened
    seat: int
    hand: list[str]
    lead: bool
    reason: str
    rule: str


class TrickCard(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One card of a finished trick. ``face`` is what it counted as (C's copy);
    ``role`` is "PJ", "AJ", "trump", "lead" (lead colour) or "discard"."""

    seat: int
    card: str
    face: str
    role: str
    cancelled: bool = False


class Cancel(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Cards of the same strength that cancelled each other."""

    seats: list[int]
    cards: list[str]
    why: str


class TrickEnded(Event, frozen=True, kw_only=True, tag="hakamo.trick"):
    """A complete trick worked out: who took it, what cancelled, what it was worth.
    ``winner`` None means every card was cancelled (trick-taking stops)."""

    derived = True

    deal: int
    trick: int
    leader: int
    lead: str
    trump: str | None
    plays: list[TrickCard]
    cancels: list[Cancel] = []
    winner: int | None
    taken: list[str] = []
    points: int = 0  # count value of ``taken`` (V = 2)
    stops: bool = False  # trick-taking ends after this trick
    rulings: list[str] = []


class Count(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One player's card count: ``cards`` taken, of which ``vs`` are V (count 2)."""

    seat: int
    cards: int
    vs: int
    count: int


class Award(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    seat: int
    role: str  # "deklaristo" or "kunulo"
    points: int
    formula: str  # e.g. "+(B - S) = +(15 - 4)"


class DealScored(Event, frozen=True, kw_only=True, tag="hakamo.scored"):
    """A deal settled (§6 GV, §7 score), every part recorded.

    ``end`` says how trick-taking ended: "nine-tricks", "all-cancelled",
    "lead-matatis", or "resigned" (no tricks). ``gv_case`` names the GV row that
    applied; ``bonuses`` the bonuses added (empty when the base GV is 0);
    ``bonuses_void`` those that would have applied to a non-zero GV.
    """

    derived = True
    ends_deal = True

    deal: int
    counted: int  # this deal's place among the match's eight counted deals
    deklaristo: int
    kunulo: int | None
    contract: int
    share: int
    solo: bool
    resigned: bool
    kept: bool | None
    target: int | None  # declared seat; None for malhakama (or after a resign)
    end: str
    tricks: int
    counts: list[Count] = []
    top: int = 0
    hakamistos: list[int] = []
    matistos: list[int] = []
    gv_case: str = ""
    gv_base: int = 0
    bonuses: dict[str, int] = {}
    bonuses_void: dict[str, int] = {}
    gv: int = 0
    won: bool | None = None
    awards: list[Award] = []
    rulings: list[str] = []


class MatchEnded(Event, frozen=True, kw_only=True, tag="hakamo.match-ended"):
    """The eighth counted deal is settled: final totals by player name."""

    derived = True
    ends_deal = True

    deals: int  # deals started, redeals included
    totals: dict[str, int]
    ranks: dict[str, int]


HAKAMO_EVENTS: tuple[type[Event], ...] = (
    Bid,
    Passed,
    KasxetojKept,
    KasxetojTaken,
    KasxetojLaid,
    Solo,
    Recruited,
    ShareBid,
    SharePassed,
    Resigned,
    Declared,
    Played,
    PassedOut,
    Matatis,
    TrickEnded,
    DealScored,
    MatchEnded,
)
hakamo_decoder = register_union(*HAKAMO_EVENTS)
