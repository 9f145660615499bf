"""Scripted Hakamo tables for tests: explicit decks, commands by CLI verb."""

from __future__ import annotations

from collections import Counter
from typing import Any

from scripted import ScriptedTable

from kartludo.engine.base import StartDeal
from kartludo.engine.hakamo import HAKAMO
from kartludo.engine.jx import JX_DECK
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated

PLAYERS = ["ann", "bob", "cy", "dan"]
OR, SU, OK, NO = 0, 1, 2, 3


def build_deck(
    dealer: int = OR,
    hands: dict[int, list[str] | str] | None = None,
    upper: str | None = None,
    lower: str | None = None,
) -> tuple[str, ...]:
    """A 38-card deck dealing ``hands`` (seat -> up to 9 cards, a list or a
    space-separated string) with ``upper``/``lower`` as cards 37/38; the rest is
    filled with the unused cards in canonical order."""
    deck: list[str | None] = [None] * 38
    pool = Counter(JX_DECK)

    def place(i: int, card: str) -> None:
        assert pool[card] > 0, f"{card} used twice"
        pool[card] -= 1
        deck[i] = card

    for seat, cards in (hands or {}).items():
        if isinstance(cards, str):
            cards = cards.split()
        slots = [i for i in range(36) if (dealer + 1 + i) % 4 == seat]
        assert len(cards) <= 9
        for i, card in zip(slots, cards):
            place(i, card)
    if upper is not None:
        place(36, upper)
    if lower is not None:
        place(37, lower)
    rest = sorted(pool.elements(), key=JX_DECK.index)
    it = iter(rest)
    return tuple(c if c is not None else next(it) for c in deck)


class Table(ScriptedTable):
    game = HAKAMO

    def __init__(self, players: list[str] | None = None) -> None:
        super().__init__(MatchCreated(game="hakamo", ruleset=HAKAMO.ruleset, players=list(players or PLAYERS), seed=1))

    def deal(self, deck: tuple[str, ...] | None = None, **kw: Any) -> list[Event]:
        if deck is None:
            deck = build_deck(dealer=HAKAMO.next_dealer(self.state), **kw)
        return self.command(StartDeal(deck=tuple(deck)))

    @property
    def turn(self) -> int:
        seats = HAKAMO.to_act(self.state)
        assert len(seats) == 1, seats
        return seats[0]

    def auction(self, winner: int, amount: int) -> list[Event]:
        """``winner`` bids ``amount`` at its first turn; everyone else passes."""
        out: list[Event] = []
        while self.state.phase.value == "auction":
            seat = self.turn
            out += self.act(seat, "bid", str(amount)) if seat == winner else self.act(seat, "pass")
        return out

    def shares(self, kunulo: int | None, share: int = 1) -> list[Event]:
        """The Kunulo auction: ``kunulo`` bids ``share``, the others pass."""
        out: list[Event] = []
        while self.state.phase.value == "shares":
            seat = self.turn
            out += self.act(seat, "bid", str(share)) if seat == kunulo else self.act(seat, "pass")
        return out

    def play(self, cards: str) -> list[Event]:
        """Play the cards in turn order, each by the seat to act."""
        out: list[Event] = []
        for card in cards.split():
            out += self.act(self.turn, "play", card)
        return out
