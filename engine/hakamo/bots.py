"""A sensible Hakamo player: bids from a simple hand evaluation, lays a trump card
of its longest colour, declares itself when strong, and plays to take (or to
avoid) tricks depending on whom the declaration favours.

It reads only ``game.view(state, seat)``. A trick's card is chosen among the cards the
trick allows (the view's hand, lead colour and C copy, as the rules' ``legal_plays``)
and checked alone (``cmd in legal``), without listing every legal command.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import Bot, Command, Game
from kartludo.engine.bots import RandomBot
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.commands import Lay, Play
from kartludo.engine.jx import colour

__all__ = ["HeuristicBot", "RandomBot", "strength", "card_value"]

_HIGH = {"9": 1.2, "8": 0.9, "7": 0.6, "6": 0.4, "V": 0.5}


def card_value(card: str) -> float:
    """A rough worth of one card for taking tricks (normal order)."""
    if card == "PJ":
        return 3.0
    if card == "AJ":
        return 2.5
    if card == "C":
        return 0.5
    if card[1] == "X":
        return 2.0
    return _HIGH.get(card[1], 0.2)


def strength(hand: list[str]) -> float:
    """Card worth plus length: each card beyond three in a colour adds 0.5."""
    lengths = Counter(colour(c) for c in hand if colour(c))
    return sum(card_value(c) for c in hand) + 0.5 * sum(max(0, n - 3) for n in lengths.values())


class HeuristicBot(Bot[Any]):
    name = "heuristic"

    def choose(self, game: Game[Any], state: Any, seat: int, legal: Sequence[Command],
               rng: random.Random) -> Command:
        v = game.view(state, seat)
        me = state.players[seat]
        hand = list(v["hands"].get(me, ()))
        phase = game.phase(state)
        if phase == "tricks" and v["trick"] is not None:  # a card: the one chosen checked alone
            card = self._card(v, me, hand, hc.legal_plays(hand, v["trick"]["lead"], v["c_copies"]))
            if card:
                play = Play(seat=seat, card=card)
                if play in legal:
                    return play
            return legal[0]
        if phase == "lay":  # of the ~250 lays a hand allows, the one chosen checked alone
            upper, upper_up, lower = self._lay_cards(hand)
            lay = Lay(seat=seat, upper=upper, upper_up=upper_up, lower=lower, lower_up=False)
            return lay if lay in legal else legal[0]
        by_text = {c.text(): c for c in legal}
        power = strength(hand)
        pick = None
        if phase == "auction":
            pick = self._bid(v, power, by_text)
        elif phase == "kasxetoj":
            pick = "keep" if power >= 15 else "exchange"
        elif phase == "lay":
            pick = self._lay(hand, by_text)
        elif phase == "kunulo":
            pick = "solo" if power >= 14 else "recruit"
        elif phase == "shares":
            pick = self._share(v, power, by_text)
        elif phase == "no_kunulo":
            pick = "solo" if power >= 10 else "resign"
        elif phase == "declaration":
            pick = f"declare {v['seats'][me]}" if power >= 9 else "declare malhakama"
        elif phase == "tricks":
            pick = self._play(v, me, hand, by_text)
        if pick in by_text:
            return by_text[pick]
        return legal[0]

    # --- bidding ---------------------------------------------------------------
    @staticmethod
    def _bid(v: dict[str, Any], power: float, by_text: dict[str, Command]) -> str:
        if power < 10:
            return "pass"
        limit = min(18, 13 + int((power - 10) / 1.5))
        want = (v["auction"]["high"] or 12) + 1
        return f"bid {want}" if want <= limit else "pass"

    @staticmethod
    def _share(v: dict[str, Any], power: float, by_text: dict[str, Command]) -> str:
        if power < 7:
            return "pass"
        desired = max(1, int(power / 3))
        low = v["kunulo_auction"]["low"]
        top = v["kunulo_auction"]["max_first"] or 1
        cap = min(desired, top, (low - 1) if low else top)
        return f"bid {cap}" if cap >= 1 and cap >= desired - 2 else "pass"

    @classmethod
    def _lay(cls, hand: list[str], by_text: dict[str, Command]) -> str:
        upper, upper_up, lower = cls._lay_cards(hand)
        return f"lay {upper}:{'up' if upper_up else 'down'} {lower}:down"

    @staticmethod
    def _lay_cards(hand: list[str]) -> tuple[str, bool, str]:
        """The new Kasxetoj: the upper card, whether face up, the lower card (face down)."""
        lengths = Counter(c[0] for c in hand if colour(c))
        ranked = sorted(hand, key=lambda c: (card_value(c), c))
        upper_up = False
        upper = ranked[0]
        if lengths:
            long = max(sorted(lengths), key=lambda k: lengths[k])
            low_of_long = [c for c in ranked if colour(c) == long and c[1] not in "XV"]
            if low_of_long:
                upper, upper_up = low_of_long[0], True
        rest = list(hand)
        rest.remove(upper)
        lower = sorted(rest, key=lambda c: (card_value(c), c))[0]
        return upper, upper_up, lower

    # --- play ------------------------------------------------------------------
    def _play(self, v: dict[str, Any], me: str, hand: list[str], by_text: dict[str, Command]) -> str:
        card = self._card(v, me, hand, [t.removeprefix("play ") for t in by_text if t.startswith("play ")])
        return "play " + card if card else ""

    def _card(self, v: dict[str, Any], me: str, hand: list[str], plays: list[str]) -> str:
        """The card to play of ``plays`` (the cards the trick allows; "" for none). The
        choice never depends on their order."""
        if not plays:
            return ""
        copy = v["c_copies"]
        mode, fixed = v["trump"]["mode"], v["trump"]["colour"]
        inversa = "".join(v["inversa"])
        trick = [p["card"] for p in v["trick"]["plays"]]
        want = self._want_win(v, me)

        def cost(card: str) -> float:
            f = hc.face(card, copy)
            if hc.is_jx_face(f):
                return 30 if f == "PJ" else 25
            r = hc.rank(f, inversa)
            return r + (12 if colour(f) == fixed else 0)

        if not trick:
            order = sorted(plays, key=lambda c: (cost(c), c))
            return order[-1] if want else order[0]
        winning = [c for c in plays if hc.resolve(trick + [c], copy, mode, fixed, inversa).winner == len(trick)]
        losing = [c for c in plays if c not in winning]
        if want:
            choice = min(winning, key=lambda c: (cost(c), c)) if winning else min(plays, key=lambda c: (cost(c), c))
        else:
            choice = max(losing, key=lambda c: (cost(c), c)) if losing else min(plays, key=lambda c: (cost(c), c))
        return choice

    @staticmethod
    def _want_win(v: dict[str, Any], me: str) -> bool:
        team = {v["deklaristo"], v["kunulo"]} - {None}
        declared = v["declared"]
        if declared == "malhakama":
            if me in team:
                return bool(v["counts"][me] < 9)
            return True
        if declared == me:
            return True
        return (me in team) != (declared in team)
