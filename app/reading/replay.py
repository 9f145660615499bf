"""Replaying a deal step by step, purely by folding the stored events.

A step is one stored event with the match's state before and after it. Game-neutral:
the game brings its renderer and its one-line descriptions; the navigation (next,
previous, next turn or trick, next ruling or settlement, jump) is the same for all.
A reader's replay of a stored match, from its nearest snapshot and in the views the
reader may see, is ``reader.MatchReader.replay``; ``build`` folds a whole stream.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.errors import AppError, UnknownMatch
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, Game, Viewer
from kartludo.engine.match import Match, describe, step
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, Ruling
from kartludo.store import Recorded


class Step(msgspec.Struct):
    """Step ``index`` (1-based) of a deal: ``record`` applied to ``before`` gives ``state``."""

    index: int
    record: Recorded
    before: Any
    state: Any


class Replay(msgspec.Struct):
    match: Match
    deal: int
    deals: list[int]
    steps: list[Step]
    #: a match with a clock: the clocks after each event, by version (``app.matches.clock``)
    clocks: dict[int, dict[str, Any]] = {}

    @property
    def game(self) -> Game[Any]:
        return self.match.game

    def description(self, k: int, viewer: Viewer) -> str:
        s = self.steps[k - 1]
        return describe(self.game, s.before, s.record.event, viewer, self.match.players)

    def render(self, k: int, viewer: Viewer) -> str:
        return self.game.render(self.steps[k - 1].state, viewer)

    def rulings(self, k: int) -> list[str]:
        """The rules an engine decision applied, as recorded: a ruling's ``rule`` and a
        settlement's ``rulings`` notes (public: they name rules, never cards)."""
        event = self.steps[k - 1].record.event
        applied = [event.rule] if isinstance(event, Ruling) else []
        return applied + list(getattr(event, "rulings", None) or [])


def is_ruling_or_settlement(event: Event) -> bool:
    """A step the ``r`` key stops at: an event the engine decided (a ruling, a
    settlement, a scoring), not a player's action nor one of the match's own facts
    (a closure, an appeal: none is derived)."""
    return isinstance(event, Ruling) or type(event).derived


def turn_units(game: Game[Any], steps: list[Step]) -> list[int]:
    """The turn or trick each step belongs to (0, 1, …): a trick is its card plays and
    the event closing it; otherwise a turn is a run of events by one actor. ↑/↓ in a
    replay move by these units."""
    units: list[int] = []
    unit, open_trick = -1, False
    actor_before: str | None = None
    for st in steps:
        role = game.trick_role(st.record.event)
        actor: str | None = st.record.actor
        if role == "play":
            if not open_trick:
                unit += 1
                open_trick = True
        elif role == "end":
            if not open_trick:
                unit += 1
            open_trick = False
            actor = None  # whatever follows a trick starts a new unit
        else:
            if open_trick or actor_before is None or actor != actor_before:
                unit += 1
            open_trick = False
        actor_before = actor
        units.append(unit)
    return units


def deal_numbers(records: list[Recorded]) -> list[int]:
    return [r.event.deal for r in records if isinstance(r.event, DealStarted)]


def build(match_id: str, records: list[Recorded], deal: int | None = None) -> Replay:
    """Every event of ``deal`` (default: the latest), from its DealStarted to the next."""
    if not records:
        raise UnknownMatch(f"no match {match_id!r}")
    if not isinstance(records[0].event, MatchCreated):
        raise AppError(f"match {match_id} has no MatchCreated event")
    deals = deal_numbers(records)
    if not deals:
        raise AppError(f"match {match_id} has no deal yet")
    deal = deals[-1] if deal is None else deal
    if deal not in deals:
        raise AppError(f"match {match_id} has no deal {deal} (deals: {', '.join(map(str, deals))})")
    match = aggregate.start(match_id, records[0])
    return Replay(match, deal, deals, _steps(match.game, match.state, None, records[1:], deal))


def _steps(game: Game[Any], state: Any, current: int | None, records: list[Recorded], deal: int) -> list[Step]:
    """The steps of ``deal`` among ``records``, folded from ``state`` (in deal ``current``)."""
    steps: list[Step] = []
    for rec in records:
        event = rec.event
        if isinstance(event, DealStarted):
            current = event.deal
        after = step(game, state, event)
        if current == deal:
            steps.append(Step(len(steps) + 1, rec, state, after))
        elif current is not None and current > deal:
            break
        state = after
    return steps


class Navigator:
    """Where an interactive replay stands, and how each key moves it."""

    def __init__(self, replay: Replay, viewer: Viewer = ALL, start: int = 1) -> None:
        self.replay = replay
        self.count = len(replay.steps)
        self.k = min(max(start, 1), self.count)
        self.viewer = viewer
        self.seats = len(replay.match.players)
        self.units = turn_units(replay.game, replay.steps)

    def _record(self, k: int) -> Recorded:
        return self.replay.steps[k - 1].record

    def next(self) -> None:
        self.k = min(self.k + 1, self.count)

    def prev(self) -> None:
        self.k = max(self.k - 1, 1)

    def first(self) -> None:
        self.k = 1

    def last(self) -> None:
        self.k = self.count

    def jump(self, k: int) -> None:
        self.k = min(max(k, 1), self.count)

    def _end_of(self, unit: int) -> int:
        return max(i for i, u in enumerate(self.units, 1) if u == unit)

    def next_turn(self) -> None:
        """To the end of this turn or trick, or, already there, of the next one."""
        unit = self.units[self.k - 1]
        end = self._end_of(unit)
        if self.k < end:
            self.k = end
        elif unit < self.units[-1]:
            self.k = self._end_of(unit + 1)

    def prev_turn(self) -> None:
        """To the end of the previous turn or trick."""
        unit = self.units[self.k - 1]
        self.k = self._end_of(unit - 1) if unit > 0 else 1

    def next_ruling(self) -> bool:
        """To the next ruling or settlement (an event the engine decided)."""
        for k in range(self.k + 1, self.count + 1):
            if is_ruling_or_settlement(self._record(k).event):
                self.k = k
                return True
        return False

    def prev_ruling(self) -> bool:
        for k in range(self.k - 1, 0, -1):
            if is_ruling_or_settlement(self._record(k).event):
                self.k = k
                return True
        return False

    def toggle_view(self) -> None:
        """All hands -> seat 0 -> seat 1 -> … -> all hands."""
        if self.viewer == ALL:
            self.viewer = 0
        elif self.viewer is not None and self.viewer + 1 < self.seats:
            self.viewer += 1
        else:
            self.viewer = ALL

    def viewer_name(self) -> str:
        if self.viewer == ALL:
            return "all hands"
        if self.viewer is None:
            return "public"
        return f"{self.replay.match.players[self.viewer]}'s view"

    def screen(self) -> str:
        rec = self._record(self.k)
        head = (f"{self.replay.game.title} · match {self.replay.match.id} · deal {self.replay.deal} · "
                f"step {self.k}/{self.count} · #{rec.position} · {self.viewer_name()}")
        applied = [f"  rule applied: {r}" for r in self.replay.rulings(self.k)]
        reading = self.replay.clocks.get(rec.version)
        clocks = []
        if reading is not None:
            from kartludo.app.matches.clock import reading_line

            clocks = [f"  {reading_line(reading)}"]
        return "\n".join([head, f"» {self.replay.description(self.k, self.viewer)}", *applied, *clocks, "",
                          self.replay.render(self.k, self.viewer)])
