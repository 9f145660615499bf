"""A sensible Svoi Kozyri player: beats cheaply, keeps its trumps, picks up wisely.

It reads only ``game.view(state, seat)``: its own hand, the pile, the trump suits,
hand sizes and what is due.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import Bot, Command, Game
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import value

__all__ = ["HeuristicBot", "RandomBot"]


class HeuristicBot(Bot[Any]):
    """``vary`` is the chance of playing another legal card than the preferred one
    (never a pick-up by choice): deterministic players can fall into an endless
    give-and-take (the rules have no limit), and a little variety breaks it."""

    name = "heuristic"

    def __init__(self, vary: float = 0.1) -> None:
        self.vary = vary

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        v = game.view(state, seat)
        players = list(state.players)
        me = players[seat]
        hand = v["hands"].get(me, [])
        trump = v["trumps"][me]
        plays = {c.args()[0]: c for c in legal if c.args()}
        pickup = next((c for c in legal if not c.args()), None)
        if plays and self.vary and rng.random() < self.vary:
            return plays[rng.choice(sorted(plays))]
        if v["due"] == "beat":
            return self._beat_or_pickup(v, hand, trump, plays, pickup)
        return plays[self._card_to_pass_on(v, seat, hand, trump, list(plays))]

    @staticmethod
    def _beat_or_pickup(v: dict[str, Any], hand: list[str], trump: str, plays: dict[str, Command],
                        pickup: Command | None) -> Command:
        if not plays:
            assert pickup is not None
            return pickup
        # cheapest beat: any non-trump before any trump, low before high
        card = min(plays, key=lambda c: (c[1] == trump, value(c)))
        if card[1] != trump or pickup is None:
            return plays[card]
        taking = v["pickup"]["count"]
        if len(hand) <= 3 or value(card) <= 11 or taking >= 5:
            return plays[card]
        return pickup  # keep a high trump rather than spend it on a small pick-up

    @staticmethod
    def _card_to_pass_on(v: dict[str, Any], seat: int, hand: list[str], trump: str, cards: list[str]) -> str:
        """The card the next player should have to beat: their own trump suit if we hold
        it (only a higher one beats it, a pick-up takes five), else our lowest
        non-trump card; our trumps only when nothing else is left."""
        players = list(v["hand_sizes"])  # seat order
        n = len(players)
        sizes = v["hand_sizes"]
        nxt = next(
            (players[(seat + k) % n] for k in range(1, n) if sizes[players[(seat + k) % n]] > 0), None
        )
        their = v["trumps"][nxt] if nxt is not None else None

        def score(c: str) -> tuple[int, int]:
            if c[1] == trump:
                return (0, -value(c))  # last resort: the lowest trump
            if c[1] == their:
                return (2, value(c))  # the highest card of their trump suit
            return (1, -value(c))  # else dump the lowest card

        return max(cards, key=score)
