"""Uxinjo: three-player rummy with the Jx deck (rules: docs/rules/uxinjo.md)."""

from __future__ import annotations

from typing import Any, Sequence

from kartludo.engine.base import (
    BadCommand,
    Bot,
    Command,
    Decision,
    ModuleGame,
    Option,
    Result,
    ranks_from_scores,
)
from kartludo.engine.jx import JX_DECK, is_card
from kartludo.engine.uxinjo import rules
from kartludo.engine.uxinjo import view as _view
from kartludo.engine.uxinjo.hand import HandScore, best_split
from kartludo.engine.uxinjo.rules import (
    COMMAND_TYPES,
    Discard,
    Draw,
    Eltiri,
    Levu,
    Munt,
    Pass,
    Take,
)
from kartludo.engine.uxinjo.state import SEAT_LABELS, Phase, UxState, match_points
from kartludo.events.base import Event


def _check_needed(value: Any) -> str | None:
    return None if isinstance(value, int) and 1 <= value <= 6 else "must be an integer 1-6"


_SIMPLE = {"draw": Draw, "take": Take, "munt": Munt, "pass": Pass, "levu": Levu}


class Uxinjo(ModuleGame[UxState]):
    rules = rules
    views = _view
    name = "uxinjo"
    title = "Uxinjo"
    ruleset = "uxinjo-2"
    player_counts = (3,)
    options = {
        "needed_base": Option(
            default=2,
            help="points a win needs before levu (RULING: 2, the base point every win carries)",
            parse=int,
            check=_check_needed,
        ),
    }
    command_types = COMMAND_TYPES

    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        return JX_DECK

    def seat_labels(self, n_players: int) -> tuple[str, ...]:
        return SEAT_LABELS[:n_players]

    def result(self, state: UxState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        mp = match_points(state.markers)
        scores = {state.players[i]: mp[i] for i in range(3)}
        return Result(
            scores=scores,
            ranks=ranks_from_scores(scores),
            match_points=dict(scores),
            fouls=rules.foul_counts(state),
        )

    def standing(self, state: UxState) -> Result | None:
        """MP from the markers as they stand (§6.x: a series match cut at its
        deadline is scored from the markers at the end of the deal in progress)."""
        if state.deal == 0:
            return None
        mp = match_points(state.markers)
        scores = {state.players[i]: mp[i] for i in range(3)}
        return Result(scores=scores, ranks=ranks_from_scores(scores), match_points=dict(scores),
                      fouls=rules.foul_counts(state))

    def closed_fields(self, state: UxState) -> dict[str, Any]:
        """§6.x RULING (time): a series match cut at its deadline is scored from the
        markers at the end of the deal in progress, so it has its MP like any finished match."""
        mp = match_points(state.markers)
        return {"mp": {state.players[i]: mp[i] for i in range(3)}}

    def decisions(self, event: Event) -> list[Decision]:
        return rules.decisions(event)

    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        verb = verb.lower()
        args = list(args)
        if verb in _SIMPLE:
            if args:
                raise BadCommand(f"{verb} takes no arguments")
            return _SIMPLE[verb](seat=seat)
        if verb in ("discard", "eltiri"):
            if len(args) != 1:
                raise BadCommand(f"{verb} takes one card, e.g. {verb} {'R5' if verb == 'discard' else 'PJ'}")
            card = args[0].upper()
            if not is_card(card):
                raise BadCommand(f"{args[0]!r} is not a Jx card (R1…B9, RX GX BX, RV GV BV, C, PJ, AJ)")
            return Discard(seat=seat, card=card) if verb == "discard" else Eltiri(seat=seat, card=card)
        raise BadCommand(f"unknown Uxinjo verb {verb!r} (verbs: draw, take, discard CARD, munt, pass, levu, eltiri PJ|AJ)")

    def bots(self) -> dict[str, Bot[UxState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.uxinjo.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


UXINJO = Uxinjo()

__all__ = [
    "UXINJO",
    "Uxinjo",
    "UxState",
    "Phase",
    "HandScore",
    "best_split",
    "Draw",
    "Take",
    "Discard",
    "Munt",
    "Pass",
    "Levu",
    "Eltiri",
]
