"""Laugavatnsmanni event types.

Player actions first (the contract, great calls, the Manni exchange, card plays),
then what the engine decides by itself (``derived``): trick results, each deal's
score with every part of its computation, and the match end. Seats are seat
indices (0-2, clockwise); contracts are their CLI names (``nullo``, ``grand``,
``spades``, ``hearts``, ``diamonds``, ``clubs``).
"""

from __future__ import annotations

import msgspec

from kartludo.events.base import Event, register_union

# --- player actions ------------------------------------------------------------


class ContractChosen(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.contract"):
    """The chooser (left of the dealer) names one of their unused contracts."""

    seat: int
    contract: str


class GreatCalled(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.great"):
    """An opponent of the chooser calls great, naming a Grand or suit contract;
    this uses the caller's one great call of the match."""

    seat: int
    contract: str


class GreatPassed(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.pass"):
    """An opponent of the chooser does not call great."""

    seat: int


class Held(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.hold"):
    """The chooser holds against the great call(s): becomes the great declarer of
    ``contract``, using the chooser's own great call."""

    seat: int
    contract: str


class Yielded(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.yield"):
    """The chooser lets the last great caller be the great declarer."""

    seat: int


class Exchanged(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.exchange"):
    """The declarer's blind Manni exchange: ``discards`` out of play face down, the
    Manni's top ``len(discards)`` cards (``taken``, top first) into the hand.
    Both lists are hidden from everyone but the declarer."""

    seat: int
    discards: list[str]
    taken: list[str]


class CardPlayed(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.play"):
    seat: int
    card: str


# --- engine decisions ----------------------------------------------------------


class TrickWon(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.trick"):
    """A trick's three cards (``cards`` in play order from ``leader``) and who took it."""

    derived = True

    deal: int
    trick: int  # 1-16
    leader: int
    cards: list[str]
    trump: str | None
    winner: int
    card: str  # the winning card


class SeatScore(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One seat's score in a deal: ``basis`` "target" (+1 per trick above, -1 per
    trick below), "limit" (Nullo: +1 per trick under, -1 per trick over) or "fixed"
    (a great contract's 15- or 16-trick payout)."""

    seat: int
    role: str  # "declarer" or "opponent"
    tricks: int
    basis: str
    target: int
    score: int


class DealScored(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.scored"):
    """A deal's 16 tricks scored. ``kind``: "normal", "nullo", "great", "great-15"
    or "great-16". ``chosen`` is the chooser's contract (used even when stolen);
    ``contract`` the one played. ``totals`` per seat after the deal."""

    derived = True
    ends_deal = True

    deal: int
    chooser: int
    chosen: str
    contract: str
    declarer: int
    great: bool
    held: bool
    exchanged: int
    kind: str
    parts: list[SeatScore]
    totals: list[int]
    rulings: list[str] = []


class MatchEnded(Event, frozen=True, kw_only=True, tag="laugavatnsmanni.match-ended"):
    """``reason`` "target" (a total reached the target) or "deals" (the deal limit);
    ``totals`` and ``ranks`` by player name."""

    derived = True
    ends_deal = True

    deal: int
    reason: str
    totals: dict[str, int]
    ranks: dict[str, int]


LAUGAVATNSMANNI_EVENTS: tuple[type[Event], ...] = (
    ContractChosen,
    GreatCalled,
    GreatPassed,
    Held,
    Yielded,
    Exchanged,
    CardPlayed,
    TrickWon,
    DealScored,
    MatchEnded,
)
laugavatnsmanni_decoder = register_union(*LAUGAVATNSMANNI_EVENTS)
