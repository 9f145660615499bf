"""Scripted Laugavatnsmanni tables for tests: explicit decks, commands by CLI verb."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scripted import ScriptedTable

from kartludo.engine.base import StartDeal
from kartludo.engine.french import DECK_52, RANKS_52, SUITS
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI, Play
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated

G = LAUGAVATNSMANNI
PLAYERS = ["ann", "bob", "cy"]
ANN, BOB, CY = 0, 1, 2


def slots(dealer: int, seat: int) -> list[int]:
    """Deck positions (0-based) dealt to ``seat``: packets of four from the dealer's left."""
    return [i for i in range(48) if (dealer + 1 + i // 4) % 3 == seat]


def build_deck(dealer: int, hands: dict[int, list[str]] | None = None,
               manni: list[str] | None = None) -> tuple[str, ...]:
    """A 52-card deck dealing ``hands`` (seat -> up to 16 cards, in dealing order)
    and ``manni`` (top first); the rest is filled with the unused cards in
    canonical order."""
    deck: list[str | None] = [None] * 52
    pool = set(DECK_52)

    def place(i: int, card: str) -> None:
        assert card in pool, f"{card} used twice or unknown"
        pool.remove(card)
        deck[i] = card

    for seat, cards in (hands or {}).items():
        assert len(cards) <= 16
        for i, card in zip(slots(dealer, seat), cards):
            place(i, card)
    for k, card in enumerate(manni or []):
        place(48 + k, card)
    rest = iter(c for c in DECK_52 if c in pool)
    return tuple(c if c is not None else next(rest) for c in deck)


def rounds_deal(spec: dict[str, list[str]], manni: tuple[str, ...] = ("2S", "2H", "2D", "2C")) -> dict[int, list[str]]:
    """Hands in which everyone holds four cards of every suit, so every trick is
    followed by all three and, played highest first, the suits go round by round.

    ``spec[suit]`` lists four rounds as strings of three seats ("012"): the seats
    getting that round's three cards, highest first (ranks A K Q, then J T 9, …,
    then 5 4 3). The first seat of a round holds the highest card of that round,
    so wins it. The 2s form the Manni."""
    hands: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for s in SUITS:
        ranks = [r for r in RANKS_52 if r + s not in manni][:12]
        order = "".join(spec.get(s, ["012"] * 4))
        assert len(order) == 12 and all(order[k : k + 3].count(c) == 1 for k in range(0, 12, 3) for c in "012")
        for r, seat in zip(ranks, order):
            hands[int(seat)].append(r + s)
    return hands


class Table(ScriptedTable):
    game = G

    def __init__(self, options: dict[str, Any] | None = None, players: list[str] | None = None) -> None:
        super().__init__(MatchCreated(
            game="laugavatnsmanni",
            ruleset=G.ruleset,
            players=list(players or PLAYERS),
            seed=1,
            options={"target_points": 10, "max_deals": 18, **(options or {})},
        ))

    def deal(self, deck: tuple[str, ...] | None = None, hands: dict[int, list[str]] | None = None,
             manni: list[str] | None = None) -> list[Event]:
        if deck is None:
            deck = build_deck(G.next_dealer(self.state), hands, manni)
        return self.command(StartDeal(deck=tuple(deck)))

    def play_out(self, choose: Callable[[int, list[str]], str] | None = None) -> list[Event]:
        """Play the deal's remaining tricks; by default each seat plays its first
        legal card in hand order (highest of the first suit S H D C it may play)."""
        out: list[Event] = []
        while G.phase(self.state) == "play":
            seat = G.to_act(self.state)[0]
            cards = [c.card for c in G.legal_commands(self.state, seat) if isinstance(c, Play)]
            hand_order = [c for c in self.state.hands[seat] if c in cards]
            card = choose(seat, hand_order) if choose else hand_order[0]
            out.extend(self.act(seat, "play", card))
        return out
