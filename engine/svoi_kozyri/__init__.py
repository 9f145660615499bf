"""Svoi Kozyri: the 2-4 player Russian beating game with one's own trumps
(rules: docs/rules/svoi-kozyri.md)."""

from __future__ import annotations

from typing import Any, Sequence

from kartludo.engine.base import (
    BadCommand,
    Bot,
    Command,
    ModuleGame,
    Option,
    Result,
    Viewer,
    ranks_from_scores,
)
from kartludo.engine.svoi_kozyri import rules
from kartludo.engine.svoi_kozyri import view as _view
from kartludo.engine.svoi_kozyri.cards import (
    CARDS,
    DECK,
    DEFAULT_TRUMPS,
    beats,
    check_deals,
    check_trumps,
    parse_trumps,
    pickup_rule,
)
from kartludo.engine.svoi_kozyri.rules import COMMAND_TYPES, DEFAULT_DEALS, Pickup, Play
from kartludo.engine.svoi_kozyri.state import SEAT_LABELS, Phase, SkState
from kartludo.events.base import Event

_VERBS = "verbs: play CARD (e.g. play QH, play TH or play 10H), pickup"


def parse_card(text: str) -> str:
    """A card as typed: ``qh`` -> ``QH``; ``10H`` -> ``TH``. Raises ``BadCommand``."""
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if code not in CARDS:
        raise BadCommand(f"{text!r} is not a card of the 36-card pack (A K Q J T 9 8 7 6 of S H D C, e.g. QH, TS, 6C)")
    return code


class SvoiKozyri(ModuleGame[SkState]):
    rules = rules
    views = _view
    name = "svoi-kozyri"
    title = "Svoi Kozyri"
    ruleset = "svoi-kozyri-1"
    player_counts = (2, 3, 4)
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
        ),
    }
    command_types = COMMAND_TYPES

    def deck(self, options: dict[str, Any]) -> tuple[str, ...]:
        return DECK

    def seat_labels(self, n_players: int) -> tuple[str, ...]:
        return SEAT_LABELS[:n_players]

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

    def redact(self, event: Event, viewer: Viewer, n_players: int | None = None) -> Event:
        return _view.redact(event, viewer, n_players)

    def parse_command(self, seat: int, verb: str, args: Sequence[str]) -> Command:
        verb = verb.lower()
        args = list(args)
        if verb == "pickup":
            if args:
                raise BadCommand("pickup takes no arguments")
            return Pickup(seat=seat)
        if verb == "play":
            if len(args) != 1:
                raise BadCommand("play takes one card, e.g. play QH")
            return Play(seat=seat, card=parse_card(args[0]))
        raise BadCommand(f"unknown Svoi Kozyri verb {verb!r} ({_VERBS})")

    def bots(self) -> dict[str, Bot[SkState]]:
        from kartludo.engine.bots import RandomBot
        from kartludo.engine.svoi_kozyri.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


SVOI_KOZYRI = SvoiKozyri()

__all__ = [
    "SVOI_KOZYRI",
    "SvoiKozyri",
    "SkState",
    "Phase",
    "Play",
    "Pickup",
    "beats",
    "pickup_rule",
    "parse_card",
]
