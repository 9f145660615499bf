"""Uxinjo: three-player rummy with the Jx deck (rules: docs/rules/uxinjo.md)."""

from __future__ import annotations

from typing import Any

from kartludo.engine.base import Bot, Game, Option, Result, ranks_from_scores
from kartludo.engine.jx import JX_DECK
from kartludo.engine.uxinjo import cautions as _cautions
from kartludo.engine.uxinjo import commands, fold, settle
from kartludo.engine.uxinjo import view as _view
from kartludo.engine.uxinjo.commands import COMMAND_TYPES, Discard, Draw, Eltiri, Levu, Munt, Pass, Take
from kartludo.engine.uxinjo.hand import HandScore, best_split
from kartludo.engine.uxinjo.state import SEAT_LABELS, Phase, UxState, match_points


def _check_needed(value: Any) -> str | None:
    return None if isinstance(value, int) and 1 <= value <= 6 else "must be an integer 1-6"


def _scored(state: UxState) -> Result:
    """MP from the markers as they stand, and the fouls standing."""
    mp = match_points(state.markers)
    scores = {state.players[i]: mp[i] for i in range(3)}
    return Result(scores=scores, ranks=ranks_from_scores(scores), match_points=dict(scores),
                  fouls=settle.foul_counts(state))


class Uxinjo(Game[UxState]):
    name = "uxinjo"
    title = "Uxinjo"
    total_column = ("match_points", "Uxinjo MP from the markers; higher is better")
    ruleset = "uxinjo-3"
    player_counts = (3,)
    seat_names = SEAT_LABELS
    full_deck = JX_DECK
    command_types = COMMAND_TYPES
    options = {
        "needed_base": Option(
            default=2,
            help="points a win needs before levu (RULING: 2, the base point every win carries)",
            parse=int,
            check=_check_needed,
        ),
    }
    recorded_commands = commands.RECORDED
    #: §6.x: in a series every foul costs a further 2 MP
    foul_series_mp = 2
    #: a deal's scores (marker totals) always sum to 0: so must an adjusted one
    zero_sum_scores = True

    start = staticmethod(fold.start)
    next_dealer = staticmethod(commands.next_dealer)
    check = staticmethod(commands.check)
    candidates = staticmethod(commands.candidates)
    #: every player command, whatever the phase (tests try each for its refusal)
    every_candidate = staticmethod(commands.every_candidate)
    evolve = staticmethod(fold.evolve)
    automatic = staticmethod(settle.automatic)
    to_act = staticmethod(commands.to_act)
    decisions = staticmethod(settle.decisions)
    penalty_changes = staticmethod(settle.penalty_changes)
    view = staticmethod(_view.view)
    redact = staticmethod(_view.redact)
    render = staticmethod(_view.render)

    def table_zones(self, view: dict[str, Any], /) -> list[tuple[str, list[str]]]:
        zones: list[tuple[str, list[str]]] = []
        if view.get("top_discard"):
            zones.append(("top of the discards", [view["top_discard"]]))
        if view.get("revealed"):
            zones.append(("revealed (stock)", [view["revealed"]]))
        return zones
    describe = staticmethod(_view.describe)
    caution = staticmethod(_cautions.caution)

    def result(self, state: UxState) -> Result | None:
        return _scored(state) if state.phase is Phase.FINISHED else None

    def standing(self, state: UxState) -> Result | None:
        """MP from the markers as they stand (§6.x: a series match cut at its
        deadline is scored from the markers at the end of the deal in progress)."""
        return None if state.deal == 0 else _scored(state)

    def closed_fields(self, state: UxState) -> dict[str, Any]:
        """§6.x RULING (time): a series match cut at its deadline is scored from the
        markers at the end of the deal in progress, so it has its MP like any finished match."""
        mp = match_points(state.markers)
        return {"mp": {state.players[i]: mp[i] for i in range(3)}}

    def bots(self) -> dict[str, Bot[UxState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.uxinjo.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


GAME = UXINJO = Uxinjo()

__all__ = [
    "GAME",
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
