"""Scripted Uxinjo tables for tests: explicit decks, commands by CLI verb."""

from __future__ import annotations

from collections import Counter
from typing import Any

from scripted import ScriptedTable

from kartludo.engine.base import StartDeal
from kartludo.engine.jx import JX_DECK
from kartludo.engine.uxinjo import UXINJO
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated

PLAYERS = ["ann", "bob", "cy"]
OR, SU, OK = 0, 1, 2


def build_deck(
    dealer: int = 0,
    hands: dict[int, list[str]] | None = None,
    stock: list[str] | None = None,
    revealed: str | None = None,
    bottom: str | None = None,
) -> tuple[str, ...]:
    """A 38-card deck dealing ``hands`` (seat -> up to 5 cards), with ``stock`` on top
    of the stock (top first) and ``revealed`` as card 37; the rest is filled with the
    unused cards in canonical order."""
    deck: list[str | None] = [None] * 38
    pool = Counter(JX_DECK)

    def place(i: int, card: str) -> None:
        assert pool[card] > 0, f"{card} used twice"
        pool[card] -= 1
        deck[i] = card

    for seat, cards in (hands or {}).items():
        slots = [i for i in range(15) if (dealer + 1 + i) % 3 == seat]
        assert len(cards) <= 5
        for i, card in zip(slots, cards):
            place(i, card)
    for k, card in enumerate(stock or []):
        place(15 + k, card)
    if revealed is not None:
        place(36, revealed)
    if bottom is not None:
        place(37, bottom)
    rest = list(pool.elements())
    rest.sort(key=JX_DECK.index)
    it = iter(rest)
    return tuple(c if c is not None else next(it) for c in deck)


class Table(ScriptedTable):
    game = UXINJO

    def __init__(self, options: dict[str, Any] | None = None, players: list[str] | None = None) -> None:
        super().__init__(MatchCreated(
            game="uxinjo",
            ruleset=UXINJO.ruleset,
            players=list(players or PLAYERS),
            seed=1,
            options={"needed_base": 2, **(options or {})},
        ))

    def deal(self, deck: tuple[str, ...] | None = None, **kw: Any) -> list[Event]:
        if deck is None:
            deck = build_deck(dealer=UXINJO.next_dealer(self.state), **kw)
        return self.command(StartDeal(deck=tuple(deck)))

    def markers(self) -> dict[str, dict[str, int]]:
        return UXINJO.view(self.state, -1)["markers"]

    def pair(self, a: int, b: int) -> int:
        names = self.created.players
        return self.markers()[names[a]][names[b]]

    def penalties(self) -> list[int]:
        return [len(p) for p in self.state.penalties]
