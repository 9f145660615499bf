"""Laugavatnsmanni: three-player Icelandic contract trick-taking with a 4-card
Manni (rules: docs/rules/laugavatnsmanni.md)."""

from __future__ import annotations

from typing import Any

from kartludo.engine.base import Bot, Game, Option, Result, ranks_from_scores
from kartludo.engine.french import DECK_52
from kartludo.engine.laugavatnsmanni import commands, fold, rules, settle
from kartludo.engine.laugavatnsmanni import view as _view
from kartludo.engine.laugavatnsmanni.commands import (
    COMMAND_TYPES,
    Contract,
    Exchange,
    Great,
    Hold,
    Pass,
    Play,
    Yield,
)
from kartludo.engine.laugavatnsmanni.state import SEAT_LABELS, LvState, Phase
from kartludo.events.laugavatnsmanni import CardPlayed, TrickWon


def _check_target(value: Any) -> str | None:
    return None if isinstance(value, int) and value >= 1 else "must be a positive integer"


def _check_max_deals(value: Any) -> str | None:
    # each player chooses each of the six contracts once: at most 18 deals
    return None if isinstance(value, int) and 1 <= value <= 18 else "must be an integer 1-18"


class Laugavatnsmanni(Game[LvState]):
    name = "laugavatnsmanni"
    title = "Laugavatnsmanni"
    total_column = ("points", "Laugavatnsmanni points; higher is better")
    ruleset = "laugavatnsmanni-2"
    player_counts = (3,)
    seat_names = SEAT_LABELS
    full_deck = DECK_52
    command_types = COMMAND_TYPES
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
            short="2",
        ),
    }
    recorded_commands = commands.RECORDED
    trick_events = (CardPlayed, TrickWon)

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
        if view.get("trick"):
            zones.append(("trick", [p["card"] for p in view["trick"]]))
        if view.get("manni"):
            zones.append(("manni", list(view["manni"])))
        if view.get("discards"):
            zones.append(("discards", list(view["discards"])))
        return zones
    describe = staticmethod(_view.describe)

    def result(self, state: LvState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        scores = rules.totals_by_name(state)
        return Result(scores=scores, ranks=ranks_from_scores(scores), higher_is_better=True)

    def bots(self) -> dict[str, Bot[LvState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.laugavatnsmanni.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


GAME = LAUGAVATNSMANNI = Laugavatnsmanni()

__all__ = [
    "GAME",
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
