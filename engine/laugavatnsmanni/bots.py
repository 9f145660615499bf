"""A sensible Laugavatnsmanni player.

It chooses the contract its hand suits best, calls great (or holds) only with a
hand worth 14 tricks, exchanges its weakest cards (its most dangerous ones in
Nullo), wins tricks cheaply and, in Nullo, ducks under the card winning the trick.
It reads only ``game.view(state, seat)`` (``view.seat_view``: the part of it it
weighs), and asks the engine about the one command it chose (``cmd in legal``)
rather than listing every legal one, except where it compares them (contracts, calls).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from kartludo.engine.base import Bot, Command, Game
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import SUITS, sort_cards, suit, value
from kartludo.engine.laugavatnsmanni.commands import Exchange, Play
from kartludo.engine.laugavatnsmanni.rules import beats
from kartludo.engine.laugavatnsmanni.state import GREAT_RANK, MAX_EXCHANGE, TRUMP
from kartludo.engine.laugavatnsmanni.view import seat_view

__all__ = ["HeuristicBot", "RandomBot", "estimate_nullo_tricks", "estimate_tricks"]

_HONOUR = {14: 1.0, 13: 0.8, 12: 0.5, 11: 0.2}
_DANGER = {14: 1.0, 13: 0.8, 12: 0.6, 11: 0.4, 10: 0.25}
#: a great call or hold needs at least this many expected tricks
GREAT_NEEDS = 13.5
#: tricks the counted honours and lengths miss (low cards winning late), and the
#: Nullo tricks the dangerous cards do not explain: measured over bot-played deals
LATE_TRICKS = 2.5
NULLO_EXTRA = 1.4


def _by_suit(hand: Iterable[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {s: [] for s in SUITS}
    for c in hand:
        out[suit(c)].append(value(c))
    for values in out.values():
        values.sort(reverse=True)
    return out


def estimate_tricks(hand: Iterable[str], trump: str | None) -> float:
    """Rough tricks a 16-card hand takes as declarer with ``trump`` (None: Grand)."""
    total = LATE_TRICKS
    suits = _by_suit(hand)
    trumps = len(suits[trump]) if trump else 0
    for s, values in suits.items():
        n = len(values)
        for v in values[:4]:
            honour = _HONOUR.get(v, 0.0)
            if v == 14 or n >= 15 - v:  # a guarded honour
                total += honour if s != trump else max(honour, 0.9)
        if s == trump:
            total += max(0, n - 4) * 0.9
        elif trump is None:
            total += max(0, n - 5) * 0.7  # a long suit runs in Grand
        elif trumps >= 5 and n <= 1:
            total += 0.8 * (2 - n)  # ruffing a short side suit
    return total


def estimate_nullo_tricks(hand: Iterable[str]) -> float:
    """Rough tricks a hand cannot avoid taking in Nullo."""
    total = NULLO_EXTRA
    for values in _by_suit(hand).values():
        low = sum(1 for v in values if v <= 7)
        danger = sum(_DANGER.get(v, 0.0) for v in values)
        total += danger * (0.5 if low >= 3 else 0.8 if low >= 1 else 1.0)
    return total


def contract_value(hand: Iterable[str], contract: str) -> float:
    """Expected declarer score of ``contract`` (tricks over 8, Nullo tricks under 4)."""
    if contract == "nullo":
        return 4 - estimate_nullo_tricks(hand)
    return estimate_tricks(hand, TRUMP[contract]) - 8


class HeuristicBot(Bot[Any]):
    name = "heuristic"

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        v = seat_view(state, seat)  # the part of game.view(state, seat) it weighs
        hand = list(v["hand"])
        phase = game.phase(state)
        if phase == "play":  # a trick's card: the one command checked alone, as the exchange's
            card = self._play(self._playable(hand, v), hand, v)
            play = Play(seat=seat, card=card)
            return play if play in legal else legal[0]
        if phase == "exchange":  # its own discards, checked alone: the hand allows ~2,500 exchanges
            cmd = Exchange(seat=seat, cards=self._discards(hand, v["contract"]))
            return cmd if cmd in legal else legal[0]
        by_text = {c.text(): c for c in legal}
        if phase == "contract":
            options = [c for c in legal if c.text().startswith("contract ")]
            return max(options, key=lambda c: (contract_value(hand, c.args()[0]), c.text()))
        if phase in ("great", "hold"):
            verb = "great" if phase == "great" else "hold"
            options = [c for c in legal if c.text().startswith(verb + " ")]
            if options:
                best = max(options, key=lambda c: (estimate_tricks(hand, TRUMP[c.args()[0]]),
                                                   GREAT_RANK[c.args()[0]]))
                if estimate_tricks(hand, TRUMP[best.args()[0]]) >= GREAT_NEEDS:
                    return best
            return by_text.get("pass") or by_text.get("yield") or legal[0]
        return legal[0]

    @staticmethod
    def _playable(hand: list[str], v: dict[str, Any]) -> list[str]:
        """The cards of ``hand`` a trick takes (§4): the suit led while the hand holds
        one, else any. The choice among them never depends on their order."""
        if not v["trick"]:
            return hand
        led = suit(v["trick"][0]["card"])
        follow = [c for c in hand if suit(c) == led]
        return follow or hand

    @staticmethod
    def _discards(hand: list[str], contract: str) -> tuple[str, ...]:
        if contract == "nullo":
            ranked = sorted(hand, key=lambda c: -value(c))
            out = [c for c in ranked if value(c) >= 12][:MAX_EXCHANGE]
        else:
            trump = TRUMP[contract]
            lengths = {s: sum(1 for c in hand if suit(c) == s) for s in SUITS}
            side = [c for c in hand if suit(c) != trump and value(c) <= 8]
            side.sort(key=lambda c: (lengths[suit(c)], value(c)))
            out = side[:MAX_EXCHANGE]
        return sort_cards(out)

    @staticmethod
    def _play(cards: list[str], hand: list[str], v: dict[str, Any]) -> str:
        trick = [t["card"] for t in v["trick"]]
        nullo = v["contract"] == "nullo"
        trump = v["trump"]

        def low(c: str) -> tuple[int, str]:
            return value(c), c

        if not trick:
            if nullo:
                return min(cards, key=low)
            lengths = {s: sum(1 for c in hand if suit(c) == s) for s in SUITS}
            aces = [c for c in cards if value(c) == 14]
            if aces:
                return max(aces, key=lambda c: (suit(c) == trump, lengths[suit(c)], c))
            return min(cards, key=lambda c: (-lengths[suit(c)], value(c), c))
        best = trick[0]
        for c in trick[1:]:
            if beats(c, best, trump):
                best = c
        winners = [c for c in cards if beats(c, best, trump)]
        losers = [c for c in cards if c not in winners]
        last = len(trick) == 2
        if nullo:
            if losers:
                return max(losers, key=low)  # duck as high as possible
            return max(cards, key=low) if last else min(cards, key=low)
        if winners:
            return min(winners, key=low) if last else max(winners, key=low)
        return min(cards, key=lambda c: (suit(c) == trump, value(c), c))
