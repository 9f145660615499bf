"""Svoi Kozyri event types.

Player actions first (a card played, a pick-up), then what the engine decides by
itself (``derived``): the passing of sixes after the deal, the end of a deal (loss
or draw, with every fact it was judged on) and the match end. Seats are indices
into ``MatchCreated.players``.
"""

from __future__ import annotations

import msgspec

from kartludo.events.base import Event, register_union


class SixPass(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One six handed over after the deal: ``giver`` does not own its suit, ``receiver`` does."""

    card: str
    giver: int
    receiver: int


# --- player actions ------------------------------------------------------------


class Played(Event, frozen=True, kw_only=True, tag="svoi-kozyri.played"):
    """A card put on the pile. ``role`` says what was due: "lead" (the pile is
    empty), "beat" (it beats the top card), "extra" (the compulsory card after a
    beat) or "free" (any card after the previous player's last-card beat)."""

    seat: int
    card: str
    role: str


class PickedUp(Event, frozen=True, kw_only=True, tag="svoi-kozyri.picked-up"):
    """The top ``len(cards)`` cards of the pile taken into the hand (``cards`` bottom
    first, as they lay). ``rule`` is what the top card asked for: "3" (not the
    player's trump suit), "5" (the player's trump, not its ace) or "all" (the ace
    of the player's trump); fewer are taken when the pile is shorter."""

    seat: int
    top: str
    rule: str
    cards: list[str]


# --- engine decisions ----------------------------------------------------------


class SixesPassed(Event, frozen=True, kw_only=True, tag="svoi-kozyri.sixes-passed"):
    """Every six not of its holder's trump suit went to that suit's owner (a six of
    a suit nobody owns stays). ``trumps`` by seat; ``passes`` may be empty."""

    derived = True

    deal: int
    trumps: list[str]
    passes: list[SixPass]


class DealEnded(Event, frozen=True, kw_only=True, tag="svoi-kozyri.deal-ended"):
    """Only ``last`` still holds cards. ``outcome`` is "loss" (``last`` loses) or
    "draw" (``last`` holds exactly one card and it beats ``top``). ``hand`` is what
    ``last`` held, ``beats`` whether a single card beat ``top`` under ``trump``;
    ``out`` the seats in the order they emptied their hands; ``losses`` the match
    losses by name after this deal; ``next_dealer`` the loser, or the same dealer
    after a draw; ``rulings`` the project RULINGs that decided the outcome."""

    derived = True
    ends_deal = True

    deal: int
    outcome: str
    last: int
    hand: list[str]
    top: str | None
    trump: str
    beats: bool
    out: list[int]
    losses: dict[str, int]
    next_dealer: int
    rulings: list[str] = []


class MatchEnded(Event, frozen=True, kw_only=True, tag="svoi-kozyri.match-ended"):
    """All ``deals`` deals are played; standing is fewest ``losses`` (``ranks`` 1 = best)."""

    derived = True
    ends_deal = True

    deals: int
    losses: dict[str, int]
    draws: int
    ranks: dict[str, int]
    rulings: list[str] = []


SVOI_KOZYRI_EVENTS: tuple[type[Event], ...] = (Played, PickedUp, SixesPassed, DealEnded, MatchEnded)
svoi_kozyri_decoder = register_union(*SVOI_KOZYRI_EVENTS)
