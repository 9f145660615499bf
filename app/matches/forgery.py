"""Import-side checks beyond the hash chains: what a well-chained forged log can still try.

Anyone can write a file whose every hash checks out: chains prove order and
integrity, not origin. A signed export proves origin (``store.transfer``, which also
keeps credentials out unless asked for); these checks also hold for a file imported
``--unsigned``, and for a signer's mistakes:

- a match copied under a new id (it would count twice in standings): its creation
  event (time, actor, command id, content) or a deal's salted commitment is the same
  as another match's, in the file or in the database;
- a fake closing event: a game's match end must be what the rules make happen at that
  point of the match (``Game.automatic``), and ``match.closed`` needs the match's series
  to have passed its deadline when it was recorded, after the match's last deal.

The screen folds each imported match through the match aggregate as the lines go by
(the database's part of a continued match first), one match per stream. It sits in the
application, above the store it screens for: ``import_events`` runs the store's import
with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from kartludo.engine import match as aggregate
from kartludo.engine.match import Match
from kartludo.events.base import Event, decode
from kartludo.events.duplicate import BoardOf
from kartludo.events.match import DealStarted, MatchClosed, MatchCreated
from kartludo.events.series import SeriesCreated
from kartludo.events.streams import MATCH_PREFIX, SERIES_PREFIX
from kartludo.store import EventStore, ImportRefused, transfer
from kartludo.store.transfer import ImportSummary

_pack = msgspec.msgpack.Encoder().encode


#: a match's table stream (``app.matches.autodeal.table_stream``)
_TABLE_PREFIX = "table-"


def creation_fingerprint(tag: str, schema_version: int, recorded_at_us: int, actor: str, command_id: str,
                         event: Event) -> bytes:
    """What identifies a match apart from its id: its creation event's type, time,
    actor, command id and content (the decoded event, encoded again: the same for a
    line of a file and for a stored row of the same bytes)."""
    return hashlib.sha256(_pack((tag, schema_version, recorded_at_us, actor, command_id)) + _pack(event)).digest()


def _deadline(created: SeriesCreated) -> int:
    """A series' deadline (microseconds), as ``app.league.series.Series.deadline_us`` reckons it."""
    return int(created.starts_at_us + created.minutes * 60_000_000)


class Screen:
    """Fed every line of an import (``new`` when it is not in the database yet);
    raises ``ImportRefused`` naming the line (``store.transfer.LineScreen``)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.matches: dict[str, Match | None] = {}
        #: creations and deal commitments seen in the file: (stream, line, whether new)
        self.created: dict[bytes, tuple[str, int, bool]] = {}
        self.commitments: dict[str, tuple[str, int, bool]] = {}
        self.closings: list[tuple[int, str, str | None, int, int, int]] = []
        self.series_starts: dict[str, int] = {}
        #: matches the file names as duplicate boards (their ``table-`` stream's ``BoardOf``)
        self.boards: set[str] = set()

    def line(self, number: int, row: tuple[Any, ...], new: bool) -> None:
        sid, tag = row[0], row[2]
        if sid.startswith(SERIES_PREFIX) and tag == "series.created":
            event = decode(tag, row[3], bytes(row[4]))
            if isinstance(event, SeriesCreated):
                self.series_starts[sid.removeprefix(SERIES_PREFIX)] = _deadline(event)
        if sid.startswith(_TABLE_PREFIX) and tag == BoardOf.type_tag():
            self.boards.add(sid.removeprefix(_TABLE_PREFIX))
        if sid.startswith(MATCH_PREFIX):
            self._match_line(number, row, new)

    def _match_line(self, number: int, row: tuple[Any, ...], new: bool) -> None:
        sid, version, tag, sv, payload, rec, actor, cid = row[:8]
        if sid not in self.matches:
            self.matches[sid] = self._resume(number, sid, version)
        match = self.matches[sid]
        event = decode(tag, sv, bytes(payload))
        if version == 1:
            if not isinstance(event, MatchCreated):
                return  # not a match (``verify`` says so): nothing here for standings to count
            fingerprint = creation_fingerprint(tag, sv, rec, actor, cid, event)
            other = self.created.get(fingerprint)
            if other is not None and other[0] != sid and (new or other[2]):
                copy, original = ((sid, number), other) if new else (other, (sid, number))
                raise ImportRefused(f"line {copy[1]}: {copy[0]} is a copy of {original[0]} (line {original[1]}) "
                                    "under another id")
            self.created.setdefault(fingerprint, (sid, number, new))
            try:
                self.matches[sid] = aggregate.start(sid.removeprefix(MATCH_PREFIX), _Line(event, version))
            except Exception as exc:  # noqa: BLE001 - any failure to start is a refusal
                raise ImportRefused(f"line {number}: {sid} cannot start its game: {exc}") from None
            return
        if match is None:
            return
        if isinstance(event, DealStarted) and event.commitment:
            other = self.commitments.get(event.commitment)
            if other is not None and other[0] != sid and (new or other[2]):
                copy, original = ((sid, number), other) if new else (other, (sid, number))
                raise ImportRefused(f"line {copy[1]}: {copy[0]} deals the very deal (same salted commitment) of "
                                    f"{original[0]} (line {original[1]}): a copied match")
            self.commitments.setdefault(event.commitment, (sid, number, new))
        game, before = match.game, match.state
        if isinstance(event, MatchClosed) and new:
            if game.is_finished(before):
                raise ImportRefused(f"line {number}: {sid} version {version}: match.closed after the match "
                                    "had finished")
            self.closings.append((number, sid, match.created.series, rec, event.deal, game.deal_number(before)))
        try:
            match.apply(event, version)
        except Exception as exc:  # noqa: BLE001 - an event the engine cannot fold
            raise ImportRefused(f"line {number}: {sid} version {version} does not fold: "
                                f"{type(exc).__name__}: {exc}") from None
        if (new and type(event).derived and not game.is_finished(before) and game.is_finished(match.state)
                and game.automatic(before)[:1] != [event]):
            raise ImportRefused(f"line {number}: {sid} version {version}: {tag} ends the match where "
                                "its rules do not (a forged closing event)")

    def _resume(self, number: int, sid: str, version: int) -> Match | None:
        """A match first seen at ``version``: the database's events before it, folded."""
        if version == 1:
            return None
        records = self.store.read_stream(sid, 1, version - 1)
        if not records:
            return None  # the chain check refuses the line
        if not isinstance(records[0].event, MatchCreated):
            return None
        try:
            return aggregate.fold(sid.removeprefix(MATCH_PREFIX), records)
        except Exception as exc:  # noqa: BLE001
            raise ImportRefused(f"line {number}: {sid} in the database does not fold: {exc}") from None

    def finish(self) -> None:
        """The checks that need the whole file, or the database."""
        for number, sid, series, rec, deal, deal_number in self.closings:
            if series is None and self._is_board(sid.removeprefix(MATCH_PREFIX)):
                if deal != deal_number or deal_number != 1:
                    raise ImportRefused(f"line {number}: match.closed on duplicate board {sid} names deal {deal} "
                                        f"at deal {deal_number}: a board closes after its one deal")
                continue
            if series is None:
                raise ImportRefused(f"line {number}: match.closed on {sid}, which is in no series: only a "
                                    "series deadline or a duplicate board's end closes a match")
            deadline = self.series_starts.get(series)
            if deadline is None:
                deadline = self._stored_deadline(series)
            if deadline is None:
                raise ImportRefused(f"line {number}: match.closed on {sid}: its series {series} is not known")
            if rec < deadline:
                raise ImportRefused(f"line {number}: match.closed on {sid} recorded before its series' deadline "
                                    "(a forged closing event)")
            if deal != deal_number:
                raise ImportRefused(f"line {number}: match.closed on {sid} names deal {deal}, the match is at "
                                    f"deal {deal_number}")
        if any(c[2] for c in self.created.values()) or any(c[2] for c in self.commitments.values()):
            self._against_database()

    def _is_board(self, match_id: str) -> bool:
        """A duplicate board's match (closed when its one deal ends), in the file or the database."""
        return match_id in self.boards or any(isinstance(r.event, BoardOf)
                                              for r in self.store.read_stream(_TABLE_PREFIX + match_id))

    def _stored_deadline(self, series: str) -> int | None:
        records = self.store.read_stream(SERIES_PREFIX + series, 1, 1)
        if not records or not isinstance(records[0].event, SeriesCreated):
            return None
        return _deadline(records[0].event)

    def _against_database(self) -> None:
        """New matches must not repeat a stored match's creation or deals (one pass over
        the stored creations and deal starts, page by page)."""
        position = -1
        while records := self.store.select_events(position, 5000, types=("match.created", "match.deal-started"),
                                                  settled=False):
            position = records[-1].position
            for rec in records:
                sid = rec.stream_id
                if sid in self.matches:
                    continue  # the file continues this match: its events were compared one by one
                if isinstance(rec.event, MatchCreated):
                    other = self.created.get(creation_fingerprint(rec.type, rec.schema_version, rec.recorded_at_us,
                                                                  rec.actor, rec.command_id, rec.event))
                    if other is not None and other[2]:
                        raise ImportRefused(f"line {other[1]}: {other[0]} is a copy of {sid}, already stored, "
                                            "under another id")
                elif self.commitments and isinstance(rec.event, DealStarted):
                    found = self.commitments.get(rec.event.commitment)
                    if found is not None and found[2]:
                        new_sid, number, _ = found
                        raise ImportRefused(f"line {number}: {new_sid} deals the very deal (same salted "
                                            f"commitment) of {sid}, already stored: a copied match")


class _Line(msgspec.Struct, frozen=True):
    """A line's event as the aggregate folds it (``engine.match.Stored``)."""

    event: Event
    version: int


def import_events(store: EventStore, lines: Iterable[bytes], *, trusted: Sequence[str] = (),
                  unsigned: bool = False, with_tokens: bool = False) -> ImportSummary:
    """``store.transfer.import_events`` with the forgery checks: what ``kartludo events
    import`` runs."""
    return transfer.import_events(store, lines, trusted=trusted, unsigned=unsigned, with_tokens=with_tokens,
                                  screen=Screen(store))
