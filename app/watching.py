"""Watchers: who follows a match without a token (its public view), and how far behind
the table they are held.

A TD may give a match a *watch delay* (issue 40): its public view is then the table as
it stood that long ago, never closer to live, so a watcher cannot relay a running deal
to a player. The setting is a ``WatchSet`` in the match's ``table-MATCH`` stream
(beside ``TableSet``: none of the rules' business), written with the match or later by
a TD; the latest one holds. Two kinds of delay:

- ``moves``: k moves behind. A *move* is one accepted command of a seat: one append to
  the match's stream by a player of the match (its ``actor``) whose first event is a
  game's event, with every event the rules made happen with it (derived events: a
  trick's end, a settlement). Deals (recorded by a TD or the table), closures, rulings'
  appeals and decisions are no moves: they are shown with the move before them. Move n
  is shown once move n + k has been made.
- ``seconds``: the events recorded at least that long ago (the store's clock, which a
  test injects).

What a watcher reads is the match folded to that version (``cut``): the public view of
it, every hand hidden while its deal runs (as today), or, with ``hands``, every hand
in that delayed view (never live: a delay is required). A match that is over is history
and public in full, as without a delay. Seats and TDs are unaffected.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kartludo.app.errors import AppError, InvalidInput, NotAllowed, check_text
from kartludo.app.matches.autodeal import table_stream
from kartludo.engine.match import MATCH_FACTS
from kartludo.events.streams import match_stream
from kartludo.events.table import WatchSet
from kartludo.store import ConcurrencyConflict, EventStore, Recorded

#: at most this many moves, or seconds, behind
MAX_MOVES = 1000
MAX_SECONDS = 86_400
NAME_LIMIT = 100
REASON_LIMIT = 2000
#: records read first, newest first, looking for where the delay cuts the stream (then twice
#: as many each time, up to ``MAX_CHUNK``): a watcher's stream looks every second
CHUNK = 32
MAX_CHUNK = 1024

_DELAY = re.compile(r"^\s*(\d{1,9})\s*(|moves?|s|secs?|seconds?|m|min|mins|minutes?)\s*$", re.IGNORECASE)


class BadWatchSetting(InvalidInput):
    """A watch setting that cannot be: nothing was written."""


@dataclass(frozen=True)
class Watch:
    """A match's watch setting now (no setting: live, no hands)."""

    moves: int | None = None
    seconds: int | None = None
    hands: bool = False
    by: str = ""
    #: the version of the table stream it was read at
    version: int = 0

    @property
    def delayed(self) -> bool:
        return bool(self.moves) or bool(self.seconds)

    def text(self) -> str:
        """``2 moves``, ``30 s``, or ``live``."""
        if self.moves:
            return f"{self.moves} move{'s' if self.moves != 1 else ''}"
        if self.seconds:
            return f"{self.seconds} s"
        return "live"

    def json(self) -> dict[str, object]:
        return {"delay": self.text(), "moves": self.moves, "seconds": self.seconds, "hands": self.hands}


def parse_delay(text: str) -> tuple[int | None, int | None]:
    """A delay as typed: ``2`` or ``2 moves`` (moves), ``30s`` (seconds), ``2min``
    (minutes, kept as seconds); ``0``: none. Returns (moves, seconds)."""
    found = _DELAY.match(text)
    if found is None:
        raise BadWatchSetting(f"watch delay {text!r} is not a number of moves (2) or of seconds (30s) or "
                              "minutes (2min)")
    number, unit = int(found.group(1)), found.group(2).lower()
    if number == 0:
        return None, None
    if unit in ("", "move", "moves"):
        if number > MAX_MOVES:
            raise BadWatchSetting(f"watch delay {text!r}: at most {MAX_MOVES} moves")
        return number, None
    if unit in ("m", "min", "mins", "minute", "minutes"):
        number *= 60
    if number > MAX_SECONDS:
        raise BadWatchSetting(f"watch delay {text!r}: at most {MAX_SECONDS} s (a day)")
    return None, number


def check(moves: int | None, seconds: int | None, hands: bool) -> None:
    """A setting that can be: one kind of delay at most, in range; hands only with a delay."""
    if moves is not None and seconds is not None:
        raise BadWatchSetting("a watch delay is a number of moves or of seconds, not both")
    for value, limit, what in ((moves, MAX_MOVES, "moves"), (seconds, MAX_SECONDS, "seconds")):
        if value is not None and not 1 <= value <= limit:
            raise BadWatchSetting(f"a watch delay of {value} {what}: it is 1 to {limit} (none: live)")
    if hands and not (moves or seconds):
        raise BadWatchSetting("--watch-hands needs a watch delay (--watch-delay 2 or 30s): watchers never "
                              "see the hands live")


def event(moves: int | None, seconds: int | None, hands: bool, by: str, reason: str = "") -> WatchSet:
    check(moves, seconds, hands)
    check_text("the TD's name (--by)", by, NAME_LIMIT)
    check_text("the reason", reason, REASON_LIMIT, empty=True)
    return WatchSet(moves=moves, seconds=seconds, hands=hands, by=by, reason=reason)


def creation(delay: str | None, hands: bool, by: str) -> Any:
    """The ``create_once(also=…)`` function recording a new match's watch setting
    (``match new --watch-delay … --watch-hands``; None: no setting), checked first: a bad
    one is refused before anything is written."""
    moves, seconds = parse_delay(delay) if delay is not None else (None, None)
    check(moves, seconds, hands)
    if not (moves or seconds):
        return None
    setting = event(moves, seconds, hands, by or "td")

    def also(match_id: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        return [(table_stream(match_id), [setting], 0)]

    return also


def current(store: EventStore, match_id: str) -> Watch:
    """``match_id``'s watch setting now: its latest ``WatchSet``."""
    records = store.read_stream(table_stream(match_id))
    version = records[-1].version if records else 0
    for rec in reversed(records):
        if isinstance(rec.event, WatchSet):
            e = rec.event
            return Watch(e.moves, e.seconds, e.hands, e.by, version)
    return Watch(version=version)


def set_watch(store: EventStore, match_id: str, setting: WatchSet, *, tds: set[str] | None = None) -> Watch:
    """Record ``setting`` for ``match_id`` (a TD's; ``tds``: the names a command line may
    give, the labels of the live TD tokens; None: the caller holds a TD token)."""
    if tds is not None and setting.by not in tds:
        known = f" (live TD tokens: {', '.join(sorted(tds))})" if tds else " (there is none)"
        raise NotAllowed(f"{setting.by!r} is no TD: no live TD token is labelled {setting.by!r}{known}; only a TD "
                         "sets how watchers see a match")
    if not store.read_stream(match_stream(match_id), 1, 1):
        raise AppError(f"no match {match_id!r}")
    for _ in range(5):
        version = store.stream_version(table_stream(match_id))
        try:
            store.append(table_stream(match_id), [setting], version, actor=setting.by)
            break
        except ConcurrencyConflict:
            continue
    else:
        raise AppError(f"match {match_id}: its table's settings kept changing meanwhile; nothing was written, "
                       "try again")
    return current(store, match_id)


# --- where the delay cuts the stream --------------------------------------------------------------
def move_starts(records: Sequence[Recorded], players: Sequence[str]) -> list[int]:
    """The versions at which a move begins among ``records`` (consecutive, oldest first;
    ``records[0]`` must not be in the middle of a move: its first event begins one if
    it is a seat's)."""
    starts: list[int] = []
    previous = None
    for rec in records:
        if (rec.actor in players and not isinstance(rec.event, MATCH_FACTS) and not rec.event.derived
                and rec.command_id != previous):
            starts.append(rec.version)
        previous = rec.command_id
    return starts


def cut(store: EventStore, match_id: str, head: int, players: Sequence[str], watch: Watch, now_us: int) -> int:
    """The version watchers see the match at: ``head`` (the stream's version now) less the
    delay. Reads the stream backwards, a chunk at a time, only as far as it must."""
    stream = match_stream(match_id)
    upto = head
    chunk = CHUNK
    if watch.moves:
        k = watch.moves
        chunk = max(chunk, 4 * k)
        # the k-th newest move's first version: everything before it is shown
        seen: list[int] = []
        while upto >= 1:
            low = max(1, upto - chunk + 1)
            chunk = min(2 * chunk, MAX_CHUNK)
            records = store.read_stream(stream, low, upto)
            if low > 1:  # a move may begin before the chunk: its first event's command id tells
                before = store.read_stream(stream, low - 1, low - 1)
                starts = move_starts([*before, *records], players)
                starts = [v for v in starts if v >= low]
            else:
                starts = move_starts(records, players)
            seen = starts + seen
            if len(seen) >= k:
                return seen[-k] - 1
            upto = low - 1
        return seen[0] - 1 if seen else head
    if watch.seconds:
        limit = now_us - watch.seconds * 1_000_000
        while upto >= 1:
            low = max(1, upto - chunk + 1)
            chunk = min(2 * chunk, MAX_CHUNK)
            records = store.read_stream(stream, low, upto)
            for rec in reversed(records):
                if rec.recorded_at_us <= limit:
                    return rec.version
            upto = low - 1
        return 1  # the creation itself: nothing else yet
    return head
