"""A match folded once, event by event, for every reader of it in this process.

``MatchService`` keeps one log per match it holds: the command path folds a command's
events into it, and what readers need of them comes from that one fold. Beside the
match itself a log keeps how far each reader sees it exactly (``visibility.Exactness``:
when a hash may be shown), and, while something follows it (a live stream), its newest
events each with the match state before it, so a stream shows them without folding
them again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from kartludo.app.visibility import Exactness
from kartludo.engine.base import Viewer
from kartludo.engine.match import Match
from kartludo.events.match import DealStarted
from kartludo.store import Recorded


class Entry:
    """One event of a log: its record, the match state before it and the deal it is in
    (None before the first deal)."""

    __slots__ = ("record", "before", "deal")

    def __init__(self, record: Recorded, before: Any, deal: int | None) -> None:
        self.record, self.before, self.deal = record, before, deal


class MatchLog:
    """The match folded from a starting point on (its ``MatchCreated``, or a deal
    boundary: a snapshot), how far each reader sees it exactly, and the events folded
    while something keeps them. Everything here changes under ``lock`` (the command
    path and the live streams fold from different threads)."""

    #: events kept while followed (a stream further behind reads the store)
    KEEP = 512

    def __init__(self, start: Match, at: Recorded, *, created: bool = False, keep: bool = False) -> None:
        """``start``: the match folded up to ``at``, its stream's event at ``start.version``:
        as created (``created``: ``at`` is its ``MatchCreated``) or at a deal boundary (a
        snapshot). ``keep``: keep every event folded from here (a read of part of the
        match), not only while followed."""
        self.match = start
        self.lock = threading.RLock()
        self.current: int | None = None if created else start.game.deal_number(start.state) or None
        self.exactness = Exactness(start.game, start.created, len(start.players), at=0 if created else at.version,
                                   current=self.current)
        self.keep = keep
        #: streams following the log: while any does, the events folded are kept
        self.followers = 0
        #: the events kept, oldest first, and the position and version of the one before them
        self.entries: list[Entry] = []
        self.base_position, self.base_version = at.position, at.version
        #: the position of the newest event folded
        self.head_position = at.position
        if created:
            self.exactness.fold(at, None)
            if keep:
                self.entries.append(Entry(at, None, None))
                self.base_position, self.base_version = 0, 0

    def fold(self, records: Sequence[Recorded], each: Callable[[Recorded], None] | None = None) -> list[Entry]:
        """Fold the events that follow the match (one at or below its version was folded
        already, by another reader: skipped); returns them, each with the state before it.
        ``each`` is called after each event is folded (a snapshot's boundaries)."""
        out: list[Entry] = []
        with self.lock:
            match, exactness = self.match, self.exactness
            for rec in records:
                if rec.version <= match.version:
                    continue
                event = rec.event
                if isinstance(event, DealStarted):
                    self.current = event.deal
                entry = Entry(rec, match.state, self.current)
                match.apply(event, rec.version)
                exactness.fold(rec, entry.before)
                out.append(entry)
                if each is not None:
                    each(rec)
            self._took(out)
        return out

    def _took(self, out: list[Entry]) -> None:
        """Keep the entries just folded (while kept or followed), else move the base past them."""
        if not out:
            return
        self.head_position = out[-1].record.position
        if self.keep or self.followers:
            self.entries += out
            if not self.keep and len(self.entries) > self.KEEP:
                dropped = self.entries[: len(self.entries) - self.KEEP // 2]
                del self.entries[: len(dropped)]
                self.base_position, self.base_version = dropped[-1].record.position, dropped[-1].record.version
        else:
            self.base_position, self.base_version = self.head_position, out[-1].record.version

    def absorb(self, records: Sequence[Recorded], befores: Sequence[Any]) -> None:
        """Events already folded into ``match`` by the caller (a simulation plays a deal on
        the match in memory and writes it at once; ``befores``: the state before each):
        counted and kept as if folded here, so they are folded once all the same."""
        entries = []
        with self.lock:
            for rec, before in zip(records, befores):
                if isinstance(rec.event, DealStarted):
                    self.current = rec.event.deal
                self.exactness.fold(rec, before)
                entries.append(Entry(rec, before, self.current))
            self._took(entries)

    def moment(self) -> Moment:
        """The log as it stands now (before a command's events fold: what its caller saw)."""
        with self.lock:
            return Moment(self.match.copy(), self.exactness.copy())

    def follow(self) -> None:
        """Keep the events folded from now on (a live stream follows the match)."""
        with self.lock:
            self.followers += 1

    def unfollow(self) -> None:
        with self.lock:
            self.followers -= 1
            if not self.followers and not self.keep:
                self.entries = []
                self.base_position, self.base_version = self.head_position, self.match.version


class Moment:
    """A match as it stood at one moment, with how far each reader saw it exactly then."""

    __slots__ = ("match", "exactness")

    def __init__(self, match: Match, exactness: Exactness) -> None:
        self.match, self.exactness = match, exactness

    def through(self, viewer: Viewer, td: bool) -> int | None:
        return self.exactness.through(viewer, td, self.match)
