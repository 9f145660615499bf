"""Uxinjo: three-player rummy with the Jx deck (rules: docs/rules/uxinjo.md)."""

from __future__ import annotations

from typing import Any, Sequence

from kartludo.engine.base import BadCommand, Bot, Command, Game, Option, Result, Viewer, ranks_from_scores
from kartludo.engine.jx import JX_DECK, is_card
from kartludo.engine.uxinjo import rules, view as _view
from kartludo.engine.uxinjo.hand import HandScore, best_split
from kartludo.engine.uxinjo.rules import COMMAND_TYPES, Discard, Draw, Eltiri, Levu, Munt, Pass, Take
from kartludo.engine.uxinjo.state import SEAT_LABELS, Phase, UxState, match_points
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated


def _check_needed(value: Any) -> str | None:
    return None if isinstance(value, int) and 1 <= value <= 6 else "must be an integer 1-6"


_SIMPLE = {"draw": Draw, "take": Take, "munt": Munt, "pass": Pass, "levu": Levu}


class Uxinjo(Game[UxState]):
    name = "uxinjo"
    title = "Uxinjo"
    ruleset = "uxinjo-1"
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

    def start(self, created: MatchCreated) -> UxState:
        return rules.start(created)

    def next_dealer(self, state: UxState) -> int:
        return rules.next_dealer(state)

    def decide(self, state: UxState, command: Command) -> list[Event]:
        return rules.decide(state, command)

    def evolve(self, state: UxState, event: Event) -> UxState:
        return rules.evolve(state, event)

    def automatic(self, state: UxState) -> list[Event]:
        return rules.automatic(state)

    def legal_commands(self, state: UxState, seat: int) -> list[Command]:
        return rules.legal_commands(state, seat)

    def to_act(self, state: UxState) -> list[int]:
        return rules.to_act(state)

    def phase(self, state: UxState) -> str:
        return state.phase.value

    def deal_number(self, state: UxState) -> int:
        return state.deal

    def is_finished(self, state: UxState) -> bool:
        return state.phase is Phase.FINISHED

    def can_deal(self, state: UxState) -> bool:
        return rules.can_deal(state)

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

    def view(self, state: UxState, viewer: Viewer) -> dict[str, Any]:
        return _view.view(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event:
        return _view.redact(event, viewer)

    def render(self, state: UxState, viewer: Viewer) -> str:
        return _view.render(state, viewer)

    def describe(self, before: UxState, event: Event, viewer: Viewer) -> str:
        return _view.describe(before, event, viewer)

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
