"""Hakamo: four-player bidding trick-taking with the Jx deck (rules: docs/rules/hakamo.md)."""

from __future__ import annotations

from typing import Any, Sequence

from kartludo.engine.base import (
    BadCommand,
    Bot,
    Command,
    ModuleGame,
    Result,
    ranks_from_scores,
)
from kartludo.engine.hakamo import rules
from kartludo.engine.hakamo import view as _view
from kartludo.engine.hakamo.rules import (
    COMMAND_TYPES,
    Bid,
    Declare,
    Exchange,
    Keep,
    Lay,
    Pass,
    Play,
    Recruit,
    Resign,
    Solo,
)
from kartludo.engine.hakamo.state import SEAT_LABELS, HkState, Phase
from kartludo.engine.jx import JX_DECK, is_card
from kartludo.events.hakamo import Played, TrickEnded

_SIMPLE = {"pass": Pass, "keep": Keep, "exchange": Exchange, "solo": Solo, "recruit": Recruit, "resign": Resign}
VERBS = (
    "bid N, pass, keep, exchange, lay CARD:up|down CARD:up|down, solo, recruit, resign, "
    "declare Or|Su|Ok|No|malhakama, play CARD"
)
_CARDS = "R1…B9, RX GX BX, RV GV BV, C, PJ, AJ"


def _card(text: str, verb: str) -> str:
    card = text.upper()
    if not is_card(card):
        raise BadCommand(f"{verb}: {text!r} is not a Jx card ({_CARDS})")
    return card


def _laid(text: str) -> tuple[str, bool]:
    card, sep, side = text.partition(":")
    side = side.lower()
    if not sep or side not in ("up", "down"):
        raise BadCommand(f"lay: {text!r} must be CARD:up or CARD:down, e.g. lay RX:up G3:down")
    return _card(card, "lay"), side == "up"


class Hakamo(ModuleGame[HkState]):
    rules = rules
    views = _view
    name = "hakamo"
    title = "Hakamo"
    ruleset = "hakamo-1"
    player_counts = (4,)
    command_types = COMMAND_TYPES

    def trick_role(self, event: Any) -> str | None:
        return "play" if isinstance(event, Played) else "end" if isinstance(event, TrickEnded) else None

    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        return JX_DECK

    def seat_labels(self, n_players: int) -> tuple[str, ...]:
        return SEAT_LABELS[:n_players]

    def result(self, state: HkState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        scores = {state.players[i]: state.totals[i] for i in range(len(state.players))}
        return Result(scores=scores, ranks=ranks_from_scores(scores), higher_is_better=True)

    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        verb = verb.lower()
        args = list(args)
        if verb in _SIMPLE:
            if args:
                raise BadCommand(f"{verb} takes no arguments")
            return _SIMPLE[verb](seat=seat)
        if verb == "bid":
            if len(args) != 1:
                raise BadCommand("bid takes one number, e.g. bid 15")
            try:
                amount = int(args[0])
            except ValueError:
                raise BadCommand(f"bid: {args[0]!r} is not a number") from None
            return Bid(seat=seat, amount=amount)
        if verb == "lay":
            if len(args) != 2:
                raise BadCommand("lay takes two cards, upper first: lay RX:up G3:down")
            (upper, upper_up), (lower, lower_up) = _laid(args[0]), _laid(args[1])
            return Lay(seat=seat, upper=upper, upper_up=upper_up, lower=lower, lower_up=lower_up)
        if verb == "declare":
            if len(args) != 1:
                raise BadCommand("declare takes a seat (Or, Su, Ok, No) or malhakama")
            word = args[0].lower()
            if word == "malhakama":
                return Declare(seat=seat, target=None)
            seats = [s.lower() for s in SEAT_LABELS]
            if word not in seats:
                raise BadCommand(f"declare: {args[0]!r} is not a seat (Or, Su, Ok, No) or malhakama")
            return Declare(seat=seat, target=seats.index(word))
        if verb == "play":
            if len(args) != 1:
                raise BadCommand("play takes one card, e.g. play B7")
            return Play(seat=seat, card=_card(args[0], "play"))
        raise BadCommand(f"unknown Hakamo verb {verb!r} (verbs: {VERBS})")

    def bots(self) -> dict[str, Bot[HkState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.hakamo.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


HAKAMO = Hakamo()

__all__ = [
    "HAKAMO",
    "Hakamo",
    "HkState",
    "Phase",
    "Bid",
    "Pass",
    "Keep",
    "Exchange",
    "Lay",
    "Solo",
    "Recruit",
    "Resign",
    "Declare",
    "Play",
]
