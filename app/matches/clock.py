"""Match clocks: a time control, folded from the events' recorded times.

A match's time control lives in its ``table-MATCH`` stream (``events.clock.ClockSet``,
written with the match), beside a TD's pauses and extra time (``ClockPaused``,
``ClockResumed``, ``TimeAdded``). A seat's clock is never a timer in a process: it is
the fold of the match's events and the table's, in the store's global order, each at
the time the store recorded it (``Recorded.recorded_at_us``):

- a seat's **turn** starts with the event that puts it to act (``Game.to_act``) and
  ends with the event after which it no longer is; while the match is not paused its
  clock runs for the whole turn (several seats in a claim window run together);
- a turn the seat played (one of its commands was recorded in it, or its flag fell in
  it) earns the increment when it ends;
- remaining = base + increments + a TD's extra time − time used; with a move limit, a
  turn may also last no longer than the limit (plus a TD's extra time for that turn);
- when a running seat's remaining time reaches 0 its **flag falls**: the server appends
  a ``FlagFall`` ruling (``apply_due``) at the match's version, with the expected
  version, so two appliers never both write it; the consequence is the game's
  heuristic bot playing the seat's turn, in the same append: ``"bot"`` alone, or
  ``"bot-penalty"`` with the game's time penalty (``engine.match.flag_penalty``: the
  ruling's ``effect["penalty"]``, which the engine folds as an adjusted score and an
  overturn gives back). Time after the flag fell until the ruling was recorded is not
  charged: the seat's bank is simply empty.

``now`` is always given (the store's injectable clock, ``EventStore.clock``): nothing
here sleeps or reads the time itself.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from kartludo.app.errors import AppError, InvalidInput
from kartludo.app.matches.fixed import UNKNOWN, remembered
from kartludo.engine import match as aggregate
from kartludo.engine.base import Command
from kartludo.engine.match import Match
from kartludo.events.base import Event
from kartludo.events.clock import ClockPaused, ClockResumed, ClockSet, TimeAdded
from kartludo.events.match import FlagFall, RulingDecided
from kartludo.events.streams import match_stream
from kartludo.store import EventStore, Recorded
from kartludo.store.transfer import format_us

#: who records a flag fall (the envelope's actor)
CLOCK_ACTOR = aggregate.CLOCK_ACTOR


def flag_rule(game_name: str) -> str:
    """The rules page section a flag fall cites: the game's own §Clocks."""
    return f"{game_name} §Clocks (RULING: flag fall)"

#: the consequences of a flag fall (``ClockSet.consequence``, ``--on-flag``): what each does
CONSEQUENCES = {
    "bot": "the heuristic bot plays the seat's turn; no penalty",
    "bot-penalty": "the heuristic bot plays the seat's turn, and the seat pays the game's time penalty",
}
#: the most commands the bot plays in one flagged turn (a turn is a few commands at most)
_BOT_COMMANDS = 12

_SECOND = 1_000_000
_UNITS = {"h": 3600 * _SECOND, "m": 60 * _SECOND, "s": _SECOND, "ms": 1000}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
#: the longest duration a clock takes (a day: anything longer is a typing mistake)
LONGEST_US = 24 * 3600 * _SECOND


class NothingDue(AppError):
    """No flag fall is due in this match now."""


def table_stream(match_id: str) -> str:
    return f"table-{match_id}"


# --- reading and writing durations ---------------------------------------------------------
def parse_duration(text: str, what: str) -> int:
    """``90s``, ``5m``, ``1m30s``, ``1h``, ``500ms`` (or a bare number of seconds) in
    microseconds; ``what`` names the option in the error."""
    t = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", t):
        t += "s"
    parts = _PART.findall(t)
    if not t or not parts or "".join(n + u for n, u in parts) != t:
        raise InvalidInput(f"{what} {text!r} is not a duration such as 90s, 5m, 1m30s or 1h")
    us = sum(round(float(n) * _UNITS[u]) for n, u in parts)
    if us > LONGEST_US:
        raise InvalidInput(f"{what} {text!r} is longer than a day")
    return us


def parse_clock(text: str) -> tuple[int, int]:
    """``BASE+INCREMENT`` (``5m+10s``; ``5m`` alone: no increment) in microseconds."""
    base, sep, inc = text.partition("+")
    base_us = parse_duration(base, "--clock base")
    if base_us <= 0:
        raise InvalidInput(f"--clock {text!r}: the base time must be more than 0 (e.g. 5m+10s)")
    return base_us, parse_duration(inc, "--clock increment") if sep else 0


def control_of(clock: str | None, move_limit: str | None, consequence: str = "bot", *,
               on_flag_given: bool = False) -> ClockSet | None:
    """The ``ClockSet`` of ``--clock``, ``--move-limit`` and ``--on-flag`` (None: no
    clock given; ``on_flag_given``: ``--on-flag`` was typed, so it needs a clock)."""
    if not clock and not move_limit:
        if on_flag_given:
            raise InvalidInput(f"--on-flag {consequence} says what a flag fall does: it needs a clock "
                               "(--clock BASE+INC or --move-limit TIME)")
        return None
    if consequence not in CONSEQUENCES:
        raise InvalidInput(f"--on-flag {consequence!r} is not a flag-fall consequence: "
                           + "; ".join(f"{k} ({v})" for k, v in CONSEQUENCES.items()))
    base = inc = limit = 0
    if clock:
        base, inc = parse_clock(clock)
    if move_limit:
        limit = parse_duration(move_limit, "--move-limit")
        if limit <= 0:
            raise InvalidInput(f"--move-limit {move_limit!r} must be more than 0")
    return ClockSet(base_us=base, increment_us=inc, move_limit_us=limit, consequence=consequence)


def duration_text(us: int) -> str:
    """A duration as typed: ``5m``, ``10s``, ``1m30s``, ``1h``, ``250ms``."""
    if us % _SECOND:
        return f"{us // 1000}ms"
    s = us // _SECOND
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{sec}s" if sec else "")
    return out or "0s"


def control_text(control: ClockSet) -> str:
    """``5m+10s``, ``60s a turn``, or both."""
    parts = []
    if control.base_us:
        parts.append(duration_text(control.base_us) + (f"+{duration_text(control.increment_us)}"
                                                       if control.increment_us else ""))
    if control.move_limit_us:
        parts.append(f"{duration_text(control.move_limit_us)} a turn")
    return ", ".join(parts)


def clock_face(us: int) -> str:
    """Remaining time as a clock shows it: ``4:52``, ``1:02:03``; tenths under 10 seconds."""
    us = max(us, 0)
    if us < 10 * _SECOND:
        return f"0:{us // _SECOND:02d}.{us % _SECOND // 100_000}"
    s = us // _SECOND
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


# --- the fold ------------------------------------------------------------------------------
class Clock:
    """The clocks of one match, folded event by event (``fold``)."""

    def __init__(self, control: ClockSet, players: Sequence[str], at_us: int) -> None:
        n = len(players)
        self.control = control
        self.players = list(players)
        self.last_us = at_us
        self.paused = False
        self.used = [0] * n
        self.bonus = [0] * n
        #: time on the current turn, and a TD's extra time for it or, given while the seat
        #: waits, for its next turn (a move limit)
        self.turn = [0] * n
        self.turn_extra = [0] * n
        self.turn_start: list[int | None] = [None] * n
        self.running: list[int] = []
        self.acted: set[int] = set()
        #: standing flag falls per seat (an overturn takes one away)
        self.flags = [0] * n
        #: flag-fall ruling id -> (seat, the time its turn took): what an overturn gives back
        self._flagged: dict[str, tuple[int, int]] = {}
        self.over = False

    # folding
    def advance(self, t: int) -> None:
        dt = t - self.last_us
        if dt <= 0:
            return
        self.last_us = t
        if self.paused:
            return
        for s in self.running:
            self.used[s] += dt
            self.turn[s] += dt

    def table(self, rec: Recorded) -> None:
        """A table event (a control, a pause, extra time)."""
        self.advance(rec.recorded_at_us)
        event = rec.event
        if isinstance(event, ClockSet):
            self.control = event
        elif isinstance(event, ClockPaused):
            self.paused = True
        elif isinstance(event, ClockResumed):
            self.paused = False
        elif isinstance(event, TimeAdded) and 0 <= event.seat < len(self.players):
            if self.control.base_us:
                self.bonus[event.seat] += event.amount_us
            if self.control.move_limit_us:
                self.turn_extra[event.seat] += event.amount_us

    def match_event(self, rec: Recorded, before: Sequence[int], after: Sequence[int], over: bool) -> None:
        """A match event, with the seats to act before and after it."""
        self.advance(rec.recorded_at_us)
        event = rec.event
        if isinstance(event, FlagFall) and 0 <= event.seat < len(self.players):
            s = event.seat
            overshoot = self.turn[s] - int(event.facts.get("turn_us", self.turn[s]))
            if overshoot > 0:  # the time between the flag's fall and the ruling is not the seat's
                self.used[s] -= overshoot
                self.turn[s] -= overshoot
            if self.control.base_us and self.bank(s) < 0:
                self.used[s] = self.control.base_us + self.bonus[s]  # empty, never below
            self.flags[s] += 1
            self._flagged[event.ruling_id] = (s, int(event.facts.get("turn_us", 0)))
            self.acted.add(s)
        elif isinstance(event, RulingDecided) and event.decision == "overturn" and event.ruling_id in self._flagged:
            s, turn_us = self._flagged.pop(event.ruling_id)  # the seat gets back the time that turn took
            self.flags[s] -= 1
            if self.control.base_us:
                self.bonus[s] += turn_us
        elif not type(event).derived and rec.actor in self.players:
            s = self.players.index(rec.actor)
            if s in before:
                self.acted.add(s)
        self.over = over
        now_running = [] if over else list(after)
        for s in self.running:
            if s not in now_running:  # the turn ends
                if s in self.acted and self.control.base_us:
                    self.bonus[s] += self.control.increment_us
                self.acted.discard(s)
                self.turn[s] = self.turn_extra[s] = 0
                self.turn_start[s] = None
        for s in now_running:
            if s not in self.running:  # a turn starts (with any extra time a TD gave for it)
                self.acted.discard(s)
                self.turn[s] = 0
                self.turn_start[s] = rec.recorded_at_us
        self.running = now_running

    # reading
    def bank(self, s: int) -> int:
        return self.control.base_us + self.bonus[s] - self.used[s]

    def remaining(self, s: int, now_us: int | None = None) -> int:
        """Seat ``s``'s remaining time at ``now_us`` (default: the last event folded)."""
        extra = 0
        if now_us is not None and s in self.running and not self.paused:
            extra = max(0, now_us - self.last_us)
        left = []
        if self.control.base_us:
            left.append(self.bank(s) - extra)
        if self.control.move_limit_us and s in self.running:
            left.append(self.control.move_limit_us + self.turn_extra[s] - self.turn[s] - extra)
        elif self.control.move_limit_us and not self.control.base_us:
            left.append(self.control.move_limit_us + self.turn_extra[s])  # its next turn
        return min(left) if left else 0

    def due(self, now_us: int) -> tuple[int, int] | None:
        """The seat whose flag has fallen by ``now_us`` and when it fell (the earliest), or None."""
        if self.paused or self.over:
            return None
        found = [(self.last_us + max(0, self.remaining(s)), s) for s in self.running]
        found = [(at, s) for at, s in found if at <= now_us]
        if not found:
            return None
        at, s = min(found)
        return s, at

    def reading(self, now_us: int | None = None) -> dict[str, Any]:
        """The clocks as ``state --json`` shows them (``clock``), at ``now_us`` (default:
        the time of the last event folded)."""
        at = self.last_us if now_us is None else max(now_us, self.last_us)
        seats = {}
        for s, player in enumerate(self.players):
            left = self.remaining(s, at)
            seats[player] = {
                "remaining_ms": max(left, 0) // 1000,
                "running": s in self.running and not self.paused and not self.over,
                "flags": self.flags[s],
            }
        return {
            "control": control_text(self.control),
            "base_ms": self.control.base_us // 1000,
            "increment_ms": self.control.increment_us // 1000,
            "move_limit_ms": self.control.move_limit_us // 1000,
            "consequence": self.control.consequence,
            "paused": self.paused,
            "as_of": format_us(at),
            "seats": seats,
        }

    def line(self, now_us: int | None = None) -> str:
        """One line of clocks: ``clock 5m+10s: ann 4:52 ▶, bob 5:00, cy 5:00``."""
        return reading_line(self.reading(now_us))


def reading_line(r: dict[str, Any]) -> str:
    """A clocks reading (``Clock.reading``) in one line (``state``, ``replay``)."""
    parts = []
    for player, seat in r["seats"].items():
        face = clock_face(seat["remaining_ms"] * 1000)
        mark = " ▶" if seat["running"] else ""
        flags = f" (flag fell ×{seat['flags']})" if seat["flags"] else ""
        parts.append(f"{player} {face}{mark}{flags}")
    on_flag = f" (on flag: {r['consequence']})" if r.get("consequence", "bot") != "bot" else ""
    return f"clock {r['control']}{on_flag}{' (paused)' if r['paused'] else ''}: " + ", ".join(parts)


def replay_readings(store: EventStore, match_id: str) -> dict[int, dict[str, Any]]:
    """The clocks after each event of the match, by version (none: no clock)."""
    table = store.read_stream(table_stream(match_id))
    if control_of_table(table) is None:
        return {}
    return fold(match_id, store.read_stream(match_stream(match_id)), table, steps=True).after


def has_clock(store: EventStore, match_id: str) -> bool:
    """Whether the match runs on a clock (``fixed.UNKNOWN`` while there is no such match:
    a clock is set only as a match is created)."""
    table = store.read_stream(table_stream(match_id))
    if control_of_table(table) is not None:
        return True
    return False if table or store.read_stream(match_stream(match_id), 1, 1) else UNKNOWN


def control_of_table(table: Iterable[Recorded]) -> ClockSet | None:
    """The match's latest time control in its table stream (None: it has none)."""
    found = None
    for rec in table:
        if isinstance(rec.event, ClockSet):
            found = rec.event
    return found


class Folded(msgspec.Struct):
    """A match and its clocks, folded together up to the match's version."""

    match: Match
    clock: Clock | None
    #: the clocks' reading after each match event, by version (``steps``)
    after: dict[int, dict[str, Any]] = {}


def fold(match_id: str, records: Sequence[Recorded], table: Sequence[Recorded], *, steps: bool = False) -> Folded:
    """Fold a match stream and its table stream together, in the store's global order
    (the table's events after the match's last one too: a pause since); ``steps``: keep
    the clocks' reading after each match event."""
    match = aggregate.start(match_id, records[0])
    control = control_of_table(table)
    if control is None:
        for rec in records[1:]:
            match.apply(rec.event, rec.version)
        return Folded(match, None)
    clock = Clock(control, match.players, records[0].recorded_at_us)
    after: dict[int, dict[str, Any]] = {}
    _fold_on(match, clock, records[1:], table, after if steps else None)
    return Folded(match, clock, after)


def _fold_on(match: Match, clock: Clock, records: Sequence[Recorded], table: Sequence[Recorded],
             after: dict[int, dict[str, Any]] | None = None) -> None:
    """Fold match and table events into ``match`` and ``clock``, in the store's global order."""
    merged = sorted([*((r.position, 0, r) for r in records), *((r.position, 1, r) for r in table)],
                    key=lambda t: (t[0], t[1]))
    game = match.game
    for _, kind, rec in merged:
        if kind:
            clock.table(rec)
            continue
        before = [] if match.over else game.to_act(match.state)
        match.apply(rec.event, rec.version)
        clock.match_event(rec, before, [] if match.over else game.to_act(match.state), match.over)
        if after is not None:
            after[rec.version] = clock.reading()


class Clocks:
    """The clocks of the matches one reader shows, each folded once and then caught up
    with the events since (a match's ``state`` is read after every event: it must not
    fold the whole match each time). Matches known to have no clock are not read again
    (a time control is written with the match, never later: ``fixed.remembered``)."""

    SIZE = 1000

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._held: dict[str, tuple[Match, Clock, int]] = {}
        self._lock = threading.Lock()

    def reading(self, match_id: str) -> dict[str, Any] | None:
        """``state --json``'s ``clock`` for ``match_id`` now (None: no clock)."""
        with self._lock:
            held = self._current(match_id)
            return None if held is None else held[1].reading(self.store.clock())

    def due(self, match_id: str) -> bool:
        """Whether a flag has fallen in ``match_id`` by now (a sweep then applies it)."""
        with self._lock:
            held = self._current(match_id)
            return held is not None and held[1].due(self.store.clock()) is not None

    def over(self, match_id: str) -> bool:
        """Whether ``match_id`` has a clock and is over (its clocks have stopped for good)."""
        with self._lock:
            held = self._current(match_id)
            return held is not None and held[0].over

    def _current(self, match_id: str) -> tuple[Match, Clock, int] | None:
        """The match and its clocks as the store holds them now (None: no clock)."""
        held = self._held.get(match_id)
        if held is None:
            if remembered(self.store, "clock", match_id, lambda: has_clock(self.store, match_id)) is not True:
                return None  # no clock (or no such match: UNKNOWN)
            table = self.store.read_stream(table_stream(match_id))
            folded = fold(match_id, self.store.read_stream(match_stream(match_id)), table)
            assert folded.clock is not None
            held = (folded.match, folded.clock, table[-1].version)
            if len(self._held) >= self.SIZE:
                self._held.pop(next(iter(self._held)))
        else:
            match, clk, table_version = held
            newer = self.store.read_stream(match_stream(match_id), match.version + 1)
            table = self.store.read_stream(table_stream(match_id), table_version + 1)
            _fold_on(match, clk, newer, table)
            held = (match, clk, table[-1].version if table else table_version)
        self._held[match_id] = held
        return held


def read(store: EventStore, match_id: str, *, steps: bool = False) -> Folded:
    """The match ``match_id`` (a full id) and its clocks, as the store holds them now."""
    return fold(match_id, store.read_stream(match_stream(match_id)), store.read_stream(table_stream(match_id)),
                steps=steps)


def reading(store: EventStore, match_id: str) -> dict[str, Any] | None:
    """``state --json``'s ``clock``: the clocks now (None: the match has no clock)."""
    table = store.read_stream(table_stream(match_id))
    if control_of_table(table) is None:
        return None
    folded = fold(match_id, store.read_stream(match_stream(match_id)), table)
    assert folded.clock is not None
    return folded.clock.reading(store.clock())


def line(store: EventStore, match_id: str) -> str | None:
    """The text ``state``'s line of clocks (None: no clock)."""
    table = store.read_stream(table_stream(match_id))
    if control_of_table(table) is None:
        return None
    folded = fold(match_id, store.read_stream(match_stream(match_id)), table)
    assert folded.clock is not None
    return folded.clock.line(store.clock())


# --- flag falls ----------------------------------------------------------------------------
def flag_fall(match: Match, clock: Clock, now_us: int) -> list[Event]:
    """The events of the flag fall due in ``match`` at ``now_us``: the ``FlagFall``
    ruling, then the heuristic bot's commands for the seat's turn (its events as the
    engine decides them); ``NothingDue`` when no flag has fallen."""
    due = clock.due(now_us)
    if due is None:
        raise NothingDue(f"match {match.id}: no flag fall is due")
    seat, at = due
    game = match.game
    player = match.players[seat]
    start = clock.turn_start[seat]
    turn_us = clock.turn[seat] + max(0, at - clock.last_us)
    rid = f"flag-v{match.version + 1}"
    facts = {
        "player": player,
        "control": control_text(clock.control),
        "turn_started_at": format_us(start) if start is not None else None,
        "flag_fell_at": format_us(at),
        "turn_us": turn_us,
    }
    consequence = clock.control.consequence
    effect: dict[str, Any] = {"consequence": consequence, "text": f"the heuristic bot plays {player}'s turn"}
    if consequence == "bot-penalty":
        penalty = aggregate.flag_penalty(game, match.players, seat)
        effect["penalty"] = penalty
        effect["text"] += "; time penalty: " + penalty_text(game, penalty)
    ruling = FlagFall(ruling_id=rid, deal=game.deal_number(match.state), seat=seat, rule=flag_rule(game.name),
                      facts=facts, effect=effect)
    return [ruling, *bot_turn(match, seat, rid, aggregate.step(game, match.state, ruling))]


def penalty_text(game: Any, penalty: dict[str, int]) -> str:
    """``ann -2, bob +1, cy +1 (score)``: a flag fall's penalty as the totals move."""
    moves = ", ".join(f"{p} {v:+d}" for p, v in penalty.items())
    return f"{moves} ({game.total_column[0]})"


def bot_turn(match: Match, seat: int, key: str, state: Any = None) -> list[Event]:
    """The game's heuristic bot plays ``seat``'s turn: its commands, decided by the
    engine, until the seat is no longer to act (the bot sees only the seat's view, as
    every bot does; its choices are seeded by ``key``, so a retry decides the same).
    ``state``: where it plays from (default: the match's; after a flag fall's penalty)."""
    from kartludo.engine.bots import bots_of

    game = match.game
    bot = bots_of(game)["heuristic"]
    rng = random.Random(f"{match.id}:{key}")
    state = match.state if state is None else state
    events: list[Event] = []
    for _ in range(_BOT_COMMANDS):
        if game.is_finished(state) or seat not in game.to_act(state):
            break
        legal: list[Command] = game.legal_commands(state, seat)
        if not legal:
            break
        made = game.decide(state, bot.choose(game, state, seat, legal, rng))
        for event in made:
            state = aggregate.step(game, state, event)
        events.extend(made)
    return events


def apply_due(svc: Any, match_id: str) -> list[Recorded]:
    """Append the flag falls due in ``match_id`` now (``svc``: a ``MatchService``), one
    after another, each decided on the match as the store holds it and appended with
    its expected version: another applier (a second worker, the CLI's sweep) that wrote
    it first makes this one's append fail, and the re-read finds nothing due. Returns
    the records appended here."""
    store: EventStore = svc.store
    if remembered(store, "clock", match_id, lambda: has_clock(store, match_id)) is not True:
        return []  # no clock (or no such match: UNKNOWN)
    appended: list[Recorded] = []

    def decide(m: Match) -> list[Event]:
        records = store.read_stream(match_stream(match_id), 1, m.version)
        folded = fold(match_id, records, store.read_stream(table_stream(match_id)))
        if folded.clock is None:
            raise NothingDue(f"match {match_id} has no clock")
        if folded.match.version != m.version:  # the store holds less than was folded: the next sweep decides
            raise NothingDue(f"match {match_id}: the store's stream ends at v{folded.match.version}, not v{m.version}")
        if m.closed:
            raise NothingDue(f"match {match_id} is closed")
        return flag_fall(m, folded.clock, store.clock())

    for _ in range(64):  # a flagged seat with an empty bank is flagged at once on each turn
        try:
            outcome = svc.execute(match_id, decide, actor=CLOCK_ACTOR)
        except NothingDue:
            break
        if outcome.duplicate:
            break
        appended.extend(outcome.records)
    return appended


class Sweeper:
    """A server's sweep, kept between rounds: the matches known to have no clock and
    those over are not read again (a time control is set with the match, never later).
    ``locked(match_id)``: the lock a server's handlers hold on a match (None: none)."""

    def __init__(self, svc: Any, locked: Any = None) -> None:
        self.svc = svc
        self.locked = locked
        #: each match's clocks, caught up on every round (a round folds only what is new)
        self.clocks = Clocks(svc.store)
        self._skip: set[str] = set()

    def run_once(self) -> list[tuple[str, Recorded]]:
        store: EventStore = self.svc.store
        out: list[tuple[str, Recorded]] = []
        for stream in store.streams("table-"):
            match_id = stream.removeprefix("table-")
            if match_id in self._skip:
                continue
            try:
                due = self.clocks.due(match_id)
                if not due:
                    if self.clocks.over(match_id) or self.clocks.reading(match_id) is None:
                        self._skip.add(match_id)  # no clock, or stopped for good
                    continue
            except (AppError, IndexError):  # a table stream without its match
                self._skip.add(match_id)
                continue
            lock = self.locked(match_id) if self.locked is not None else None
            if lock is not None:
                lock.acquire()
            try:
                out.extend((match_id, r) for r in apply_due(self.svc, match_id) if isinstance(r.event, FlagFall))
            finally:
                if lock is not None:
                    lock.release()
        return out


def sweep(svc: Any) -> list[tuple[str, Recorded]]:
    """Apply every due flag fall of every running match with a clock (``kartludo clock
    sweep``; a server sweeps with a ``Sweeper`` at start and then periodically): what
    was appended here."""
    return Sweeper(svc).run_once()


# --- a TD's clock commands ----------------------------------------------------------------
def _check_clocked(store: EventStore, match_id: str) -> tuple[Match, list[Recorded]]:
    table = store.read_stream(table_stream(match_id))
    if control_of_table(table) is None:
        raise AppError(f"match {match_id} has no clock (create it with --clock or --move-limit)")
    return aggregate.fold(match_id, store.read_stream(match_stream(match_id))), table


def _td_append(store: EventStore, match_id: str, table: list[Recorded], event: Event, by: str) -> None:
    version = table[-1].version if table else 0
    store.append(table_stream(match_id), [event], version, actor=by)


def _check_td_text(store: EventStore, by: str, reason: str, named: bool) -> None:
    """The TD's name and reason; ``named``: ``by`` is only a name typed on a command
    line, so it must be the label of a live TD token (as an appeal's decider's is)."""
    from kartludo.app.errors import NotAllowed, check_text

    if not by.strip():
        raise InvalidInput("a TD's clock command names the TD (--by)")
    if not reason.strip():
        raise InvalidInput("a TD's clock command gives a reason (--reason)")
    check_text("the TD's name (--by)", by, 100)
    check_text("the reason", reason, 2000)
    if named:
        from kartludo.app.tokens import TokenIndex

        index = TokenIndex(store)
        index.refresh()
        tds = {p.label for p in index.live() if p.role == "td" and p.label}
        if by not in tds:
            known = f" (live TD tokens: {', '.join(sorted(tds))})" if tds else " (there is none)"
            raise NotAllowed(f"{by!r} is no TD: no live TD token is labelled {by!r}{known}; only a TD sets a "
                             "match's clocks (a TD's token: `kartludo token new --role td --label NAME`)")


def add_time(store: EventStore, match_id: str, player: str, amount: str, *, by: str, reason: str,
             named: bool = False) -> TimeAdded:
    """A TD gives ``player`` ``amount`` (``60s``) more time."""
    _check_td_text(store, by, reason, named)
    us = parse_duration(amount, "--time")
    if us <= 0:
        raise InvalidInput(f"--time {amount!r} must be more than 0")
    match, table = _check_clocked(store, match_id)
    if match.over:
        raise AppError(f"match {match_id} is over: its clocks have stopped")
    if player not in match.players:
        raise InvalidInput(f"{player!r} does not play in match {match_id} (players: {', '.join(match.players)})")
    event = TimeAdded(seat=match.seat_of(player), amount_us=us, by=by, reason=reason)
    _td_append(store, match_id, table, event, by)
    return event


def pause(store: EventStore, match_id: str, *, by: str, reason: str, resume: bool = False,
          named: bool = False) -> Event:
    """A TD pauses (``resume``: restarts) the match's clocks."""
    _check_td_text(store, by, reason, named)
    match, table = _check_clocked(store, match_id)
    paused = False
    for rec in table:
        if isinstance(rec.event, ClockPaused):
            paused = True
        elif isinstance(rec.event, ClockResumed):
            paused = False
    if resume and not paused:
        raise AppError(f"match {match_id}'s clocks are not paused")
    if not resume and paused:
        raise AppError(f"match {match_id}'s clocks are already paused")
    if not resume and match.over:
        raise AppError(f"match {match_id} is over: its clocks have stopped")
    event: Event = ClockResumed(by=by, reason=reason) if resume else ClockPaused(by=by, reason=reason)
    _td_append(store, match_id, table, event, by)
    return event


def series_control(store: EventStore, series: str) -> ClockSet | None:
    """The time control a series gives its matches (``series new --clock``), or None."""
    from kartludo.app.league.series import resolve_series
    from kartludo.events.streams import series_stream

    return control_of_table(store.read_stream(series_stream(resolve_series(store, series))))


def setting(control: ClockSet | None) -> Any:
    """A ``create_once(also=…)`` function recording the time control with the match."""
    if control is None:
        return None

    def also(match_id: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        return [(table_stream(match_id), [control], 0)]

    return also
