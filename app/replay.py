"""Replaying a deal step by step, purely by folding the stored events.

A step is one stored event: the state after it, as a viewer may see it, and a
one-line description. Game-neutral: a game brings only its renderer.
"""

from __future__ import annotations

from typing import Any, Iterator

import msgspec

from kartludo.app.errors import AppError
from kartludo.app.matches import Match, describe, fold_records, step
from kartludo.engine.base import Viewer
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.store import Recorded


class Step(msgspec.Struct):
    """The match right after ``record`` (step ``index`` of the deal, 1-based)."""

    index: int
    record: Recorded
    description: str
    state: Any


def deal_numbers(records: list[Recorded]) -> list[int]:
    return [r.event.deal for r in records if isinstance(r.event, DealStarted)]


def steps(records: list[Recorded], deal: int, viewer: Viewer) -> Iterator[Step]:
    """Every event of ``deal`` (from its DealStarted to the next one), folded in order."""
    if not records or not isinstance(records[0].event, MatchCreated):
        raise AppError("not a match stream")
    match: Match = fold_records("", records[:1])
    game, state = match.game, match.state
    index = 0
    in_deal = False
    for rec in records[1:]:
        event = rec.event
        if isinstance(event, DealStarted):
            if in_deal:
                return
            in_deal = event.deal == deal
        if in_deal:
            index += 1
            description = describe(game, state, event, viewer, match.players)
            state = step(game, state, event)
            yield Step(index, rec, description, state)
        else:
            state = step(game, state, event)
    if not in_deal and index == 0:
        known = deal_numbers(records)
        raise AppError(f"no deal {deal} in this match (deals: {', '.join(map(str, known)) or 'none yet'})")
