"""Svoi Kozyri: the 2-4 player Russian beating game with one's own trumps
(rules: docs/rules/svoi-kozyri.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import BadCommand, Bot, Game, Option, Result, ranks_from_scores
from kartludo.engine.svoi_kozyri import commands, fold, rules, settle
from kartludo.engine.svoi_kozyri import view as _view
from kartludo.engine.svoi_kozyri.cards import (
    DECK,
    DEFAULT_TRUMPS,
    beats,
    check_deals,
    check_trumps,
    parse_trumps,
    pickup_rule,
)
from kartludo.engine.svoi_kozyri.commands import COMMAND_TYPES, Pickup, Play, read_card
from kartludo.engine.svoi_kozyri.rules import DEFAULT_DEALS
from kartludo.engine.svoi_kozyri.state import SEAT_LABELS, Phase, SkState


class SvoiKozyri(Game[SkState]):
    name = "svoi-kozyri"
    title = "Svoi Kozyri"
    total_column = ("losses", "deals lost (the last player holding cards); lower is better")
    low_totals_win = True
    ruleset = "svoi-kozyri-1"
    player_counts = (2, 3, 4)
    seat_names = SEAT_LABELS
    full_deck = DECK
    command_types = COMMAND_TYPES
    options = {
        "trumps": Option(
            default=list(DEFAULT_TRUMPS),
            help="trump suits in seat order, one per player, all different, e.g. H,S,C "
            "(default by seat: S, H, D, C, as many as there are players)",
            parse=parse_trumps,
            check=check_trumps,
        ),
        "deals": Option(
            default=DEFAULT_DEALS,
            help="number of deals in the match (RULING: 8)",
            parse=int,
            check=check_deals,
            short="2",
        ),
    }
    recorded_commands = commands.RECORDED

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
        return [("pile", list(view["pile"]))] if view.get("pile") else []
    describe = staticmethod(_view.describe)

    def check_setup(self, players: Sequence[str], options: dict[str, Any]) -> None:
        trumps = list(options.get("trumps", []))
        if len(trumps) < len(players):
            raise BadCommand(
                f"option trumps names {len(trumps)} suits for {len(players)} players: each player owns one"
            )

    def result(self, state: SkState) -> Result | None:
        if state.phase is not Phase.FINISHED:
            return None
        return self.standing(state)

    def standing(self, state: SkState) -> Result | None:
        """Losses as they stand (a series match cut at its deadline is scored from
        the deals ended so far); None before the first deal."""
        if state.deal == 0:
            return None
        scores = rules.losses_by_name(state)
        return Result(scores=scores, ranks=ranks_from_scores(scores, higher_is_better=False), higher_is_better=False)

    def bots(self) -> dict[str, Bot[SkState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.svoi_kozyri.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


GAME = SVOI_KOZYRI = SvoiKozyri()

__all__ = [
    "GAME",
    "SVOI_KOZYRI",
    "SvoiKozyri",
    "SkState",
    "Phase",
    "Play",
    "Pickup",
    "beats",
    "pickup_rule",
    "read_card",
]
