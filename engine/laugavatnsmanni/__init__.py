"""Laugavatnsmanni: three-player Icelandic contract trick-taking with a 4-card
Manni (rules: docs/rules/laugavatnsmanni.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import (
    BadCommand,
    Bot,
    Command,
    ModuleGame,
    Option,
    Result,
    ranks_from_scores,
)
from kartludo.engine.french import DECK_52, is_card, sort_cards
from kartludo.engine.laugavatnsmanni import rules
from kartludo.engine.laugavatnsmanni import view as _view
from kartludo.engine.laugavatnsmanni.rules import (
    COMMAND_TYPES,
    Contract,
    Exchange,
    Great,
    Hold,
    Pass,
    Play,
    Yield,
)
from kartludo.engine.laugavatnsmanni.state import CONTRACTS, SEAT_LABELS, LvState, Phase
from kartludo.events.laugavatnsmanni import CardPlayed, TrickWon

VERBS = "contract NAME, great NAME, pass, hold NAME, yield, exchange [CARD…], play CARD"


def _check_target(value: Any) -> str | None:
    return None if isinstance(value, int) and value >= 1 else "must be a positive integer"


def _check_max_deals(value: Any) -> str | None:
    # each player chooses each of the six contracts once: at most 18 deals
    return None if isinstance(value, int) and 1 <= value <= 18 else "must be an integer 1-18"


def _card(arg: str) -> str:
    code = arg.upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if not is_card(code):
        raise BadCommand(f"{arg!r} is not a card (rank A K Q J T 9 … 2 + suit S H D C, e.g. AS, TH, 2C)")
    return code


def _contract(verb: str, args: list[str]) -> str:
    """The contract named (lower case); an unknown name is the rules' to refuse (§2)."""
    if len(args) != 1:
        raise BadCommand(f"{verb} takes one contract: {', '.join(CONTRACTS)} (e.g. {verb} hearts)")
    return args[0].lower()


class Laugavatnsmanni(ModuleGame[LvState]):
    rules = rules
    views = _view
    name = "laugavatnsmanni"
    title = "Laugavatnsmanni"
    ruleset = "laugavatnsmanni-2"
    player_counts = (3,)
    options = {
        "target_points": Option(
            default=10,
            help="the match ends after the deal in which a total reaches this (10)",
            parse=int,
            check=_check_target,
        ),
        "max_deals": Option(
            default=18,
            help="the match ends after this many deals at the latest (18; at most 18)",
            parse=int,
            check=_check_max_deals,
        ),
    }
    command_types = COMMAND_TYPES

    def trick_role(self, event: Any) -> str | None:
        return "play" if isinstance(event, CardPlayed) else "end" if isinstance(event, TrickWon) else None

    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        return DECK_52

    def seat_labels(self, n_players: int) -> tuple[str, ...]:
        return SEAT_LABELS[:n_players]

    def result(self, state: LvState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        scores = rules.totals_by_name(state)
        return Result(scores=scores, ranks=ranks_from_scores(scores), higher_is_better=True)

    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        verb = verb.lower()
        args = list(args)
        if verb in ("pass", "yield"):
            if args:
                raise BadCommand(f"{verb} takes no arguments")
            return Pass(seat=seat) if verb == "pass" else Yield(seat=seat)
        if verb == "contract":
            return Contract(seat=seat, contract=_contract(verb, args))
        if verb == "great":
            return Great(seat=seat, contract=_contract(verb, args))
        if verb == "hold":
            return Hold(seat=seat, contract=_contract(verb, args))
        if verb == "exchange":
            cards = [_card(a) for a in args]
            if len(set(cards)) == len(cards):
                cards = list(sort_cards(cards))  # the hand's order, as ``legal`` lists it
            return Exchange(seat=seat, cards=tuple(cards))
        if verb == "play":
            if len(args) != 1:
                raise BadCommand("play takes one card, e.g. play AS")
            return Play(seat=seat, card=_card(args[0]))
        raise BadCommand(f"unknown Laugavatnsmanni verb {verb!r} (verbs: {VERBS})")

    def bots(self) -> dict[str, Bot[LvState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.laugavatnsmanni.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


LAUGAVATNSMANNI = Laugavatnsmanni()

__all__ = [
    "LAUGAVATNSMANNI",
    "Contract",
    "Exchange",
    "Great",
    "Hold",
    "Laugavatnsmanni",
    "LvState",
    "Pass",
    "Phase",
    "Play",
    "Yield",
]
