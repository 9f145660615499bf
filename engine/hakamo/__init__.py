"""Hakamo: four-player bidding trick-taking with the Jx deck (rules: docs/rules/hakamo.md)."""

from __future__ import annotations

from typing import Any

from kartludo.engine.base import Bot, Game, Result, ranks_from_scores
from kartludo.engine.hakamo import cautions as _cautions
from kartludo.engine.hakamo import commands, fold, rules, settle
from kartludo.engine.hakamo import view as _view
from kartludo.engine.hakamo.commands import (
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
from kartludo.engine.jx import JX_DECK
from kartludo.events.hakamo import Played, TrickEnded


class Hakamo(Game[HkState]):
    name = "hakamo"
    title = "Hakamo"
    total_column = ("points", "Hakamo game points; higher is better")
    ruleset = "hakamo-1"
    player_counts = (4,)
    seat_names = SEAT_LABELS
    full_deck = JX_DECK
    command_types = COMMAND_TYPES
    recorded_commands = commands.RECORDED
    trick_events = (Played, TrickEnded)
    #: a flag fall under ``bot-penalty`` costs what resigning the lowest contract does
    #: (−⌈13/2⌉, §7): the mildest loss the score table gives a seat that gives up
    flag_penalty = 7

    start = staticmethod(fold.start)
    next_dealer = staticmethod(rules.next_dealer)
    check = staticmethod(commands.check)
    candidates = staticmethod(commands.candidates)
    evolve = staticmethod(fold.evolve)
    automatic = staticmethod(settle.automatic)
    to_act = staticmethod(rules.to_act)
    view = staticmethod(_view.view)
    redact = staticmethod(_view.redact)
    render = staticmethod(_view.render)

    def table_zones(self, view: dict[str, Any], /) -> list[tuple[str, list[str]]]:
        zones: list[tuple[str, list[str]]] = []
        trick = view.get("trick") or {}
        if trick.get("plays"):
            zones.append(("trick", [p["card"] for p in trick["plays"]]))
        kas = view.get("kasxetoj") or {}
        cards = [kas[k] for k in ("upper", "lower") if kas.get(k)]
        if cards:
            zones.append(("kasxetoj", cards))
        return zones
    describe = staticmethod(_view.describe)
    caution = staticmethod(_cautions.caution)

    def result(self, state: HkState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        scores = {state.players[i]: state.totals[i] for i in range(len(state.players))}
        return Result(scores=scores, ranks=ranks_from_scores(scores), higher_is_better=True)

    def bots(self) -> dict[str, Bot[HkState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.hakamo.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


GAME = HAKAMO = Hakamo()

__all__ = [
    "GAME",
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
