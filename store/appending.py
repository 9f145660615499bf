"""Appending to the log: events encoded and hash-chained here, written with their
command records in one transaction by the driver. It builds on reading: a refused
append reads what the stream holds (its version, the command's first append).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from kartludo.events.base import Event
from kartludo.store.envelope import GENESIS, Appended, Recorded, _canonical, _sha256, check_envelope
from kartludo.store.errors import ConcurrencyConflict
from kartludo.store.reading import Reading
from kartludo.store.schema import POSITION_ROW_BITS

_event_encoder = msgspec.msgpack.Encoder()


def _as_recorded(positions: Sequence[int], rows: Sequence[tuple[Any, ...]],
                 events: Sequence[Event]) -> tuple[Recorded, ...]:
    """Written rows (``EventStore._rows``) at their positions, as a read gives them back."""
    return tuple(Recorded(pos, sid, ver, tag, schema, at, who, cid, before, digest, event)
                 for pos, (sid, ver, tag, schema, _, at, who, cid, before, digest), event
                 in zip(positions, rows, events, strict=True))


_TYPE_META: dict[type, tuple[str, int, bytes]] = {}


def _type_meta(cls: type) -> tuple[str, int, bytes]:
    """(tag, schema version, their msgpack encoding) of an event type, computed once."""
    meta = _TYPE_META.get(cls)
    if meta is None:
        tag, schema = cls.__struct_config__.tag, cls.schema  # type: ignore[attr-defined]
        meta = _TYPE_META[cls] = (tag, schema, _canonical.encode(tag) + _canonical.encode(schema))
    return meta


#: the most events one append may write (PostgreSQL positions keep 16 bits for the row
#: within its transaction; ``bulk_writer`` takes further blocks for an import)
MAX_ROWS_PER_TRANSACTION = 1 << POSITION_ROW_BITS


class Appending(Reading):
    """Writes to the event log (``EventStore``'s top layer)."""

    #: the clock of ``recorded_at_us`` (``EventStore`` sets it up)
    clock: Callable[[], int]
    #: called with the number of events after each write (``chain.AutoSealer``)
    sealer: Any

    def append(
        self,
        stream_id: str,
        events: Sequence[Event],
        expected_version: int,
        *,
        command_id: str | None = None,
        actor: str = "",
    ) -> Appended:
        """Append ``events`` after ``expected_version`` atomically.

        Raises ``ConcurrencyConflict`` when the stream is not at
        ``expected_version``. A ``command_id`` already accepted on this stream writes
        nothing and returns the original positions.
        """
        if not events:
            raise ValueError("append needs at least one event")
        command_id = command_id or os.urandom(12).hex()
        rows, prev = self._rows(stream_id, events, expected_version, command_id, actor, self.clock())
        version = expected_version + len(rows)
        try:
            positions = self._write(rows, [(stream_id, command_id, expected_version + 1, version)], [stream_id])
        except self._driver.IntegrityError:
            original = self.find_command(stream_id, command_id)
            if original is not None:
                return original
            self._forget(stream_id, expected_version)
            raise ConcurrencyConflict(stream_id, expected_version, self.stream_version(stream_id)) from None
        self._remember(stream_id, version, prev)
        if self.sealer is not None:
            self.sealer.appended(self, len(rows), rows)
        return Appended(stream_id, expected_version + 1, version, positions,
                        records=_as_recorded(positions, rows, events))

    def append_commands(
        self,
        stream_id: str,
        commands: Sequence[tuple[Sequence[Event], str, str | None]],
        expected_version: int,
    ) -> list[Appended]:
        """Append several commands' events ``(events, actor, command_id)`` to one stream
        after ``expected_version`` in one transaction: all or nothing (a simulator's
        deal in one write instead of one per command).

        The rows are exactly those of appending the commands one by one: each command
        reads the clock once, in order, gets its own command id (a fresh one for None)
        and its own command record, and the hash chain runs on from one command to the
        next. Raises ``ConcurrencyConflict`` when the stream is not at
        ``expected_version``; when every command id was accepted before, writes
        nothing and returns the original appends.
        """
        if not commands:
            raise ValueError("append_commands needs at least one command")
        rows: list[tuple[Any, ...]] = []
        records = []
        version = expected_version
        prev: bytes | None = None
        fresh = os.urandom(12 * len(commands)).hex()  # one system call for the batch's fresh ids
        for i, (events, actor, command_id) in enumerate(commands):
            if not events:
                raise ValueError("append needs at least one event")
            command_id = command_id or fresh[24 * i:24 * i + 24]
            command_rows, prev = self._rows(stream_id, events, version, command_id, actor, self.clock(), prev)
            rows.extend(command_rows)
            records.append((stream_id, command_id, version + 1, version + len(command_rows)))
            version += len(command_rows)
        try:
            positions = self._write(rows, records, [stream_id])
        except self._driver.IntegrityError:
            originals = [self.find_command(stream_id, command_id) for _, command_id, _, _ in records]
            if all(o is not None for o in originals):
                return originals  # type: ignore[return-value]
            self._forget(stream_id, expected_version)
            actual = self.stream_version(stream_id)
            if actual != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, actual) from None
            raise
        assert prev is not None
        self._remember(stream_id, version, prev)
        if self.sealer is not None:
            self.sealer.appended(self, len(rows), rows)
        stored = _as_recorded(positions, rows, [event for events, _, _ in commands for event in events])
        appended = []
        start = 0
        for _, _, first, last in records:
            count = last - first + 1
            appended.append(Appended(stream_id, first, last, positions[start:start + count],
                                     records=stored[start:start + count]))
            start += count
        return appended

    def _rows(
        self, stream_id: str, events: Sequence[Event], expected_version: int, command_id: str, actor: str,
        recorded_at: int, prev: bytes | None = None,
    ) -> tuple[list[tuple[Any, ...]], bytes]:
        """The rows to insert, hash-chained from the stream's head (``prev``: the hash
        at ``expected_version``, when the caller holds it); and the new head hash."""
        check_envelope(stream_id, actor, command_id)
        if prev is None:
            prev = self._prev_hash(stream_id, expected_version)
        rows = []
        version = expected_version
        encode = _canonical.encode
        encode_event = _event_encoder.encode
        # The hashed header is the msgpack array [stream, version, type, schema,
        # recorded_at, actor, command id]: its constant parts are encoded once per batch.
        head = b"\x97" + encode(stream_id)
        tail = encode(recorded_at) + encode(actor) + encode(command_id)
        for event in events:
            version += 1
            tag, schema, type_part = _type_meta(type(event))
            payload = encode_event(event)
            digest = _sha256(prev + head + encode(version) + type_part + tail + payload).digest()
            rows.append((stream_id, version, tag, schema, payload, recorded_at, actor, command_id, prev, digest))
            prev = digest
        return rows, prev

    def append_together(
        self,
        batches: Sequence[tuple[str, Sequence[Event], int]],
        *,
        command_id: str | None = None,
        actor: str = "",
    ) -> list[Appended]:
        """Append to several streams in one transaction (e.g. a series and its new
        match): all or nothing, each stream checked against its expected version."""
        command_id = command_id or os.urandom(12).hex()
        recorded_at = self.clock()
        rows: list[tuple[Any, ...]] = []
        commands = []
        heads = []
        for stream_id, events, expected in batches:
            stream_rows, head = self._rows(stream_id, events, expected, command_id, actor, recorded_at)
            rows.extend(stream_rows)
            commands.append((stream_id, command_id, expected + 1, expected + len(stream_rows)))
            heads.append((stream_id, expected + len(stream_rows), head))
        try:
            positions = self._write(rows, commands, [stream_id for stream_id, _, _ in batches])
        except self._driver.IntegrityError:
            originals = [self.find_command(stream_id, command_id) for stream_id, _, _ in batches]
            if all(o is not None for o in originals):
                return originals  # type: ignore[return-value]
            for stream_id, _, expected in batches:
                self._forget(stream_id, expected)
                actual = self.stream_version(stream_id)
                if actual != expected:
                    raise ConcurrencyConflict(stream_id, expected, actual) from None
            raise
        stored = _as_recorded(positions, rows, [event for _, events, _ in batches for event in events])
        appended = []
        for (stream_id, version, head), (_, _, first, last) in zip(heads, commands):
            self._remember(stream_id, version, head)
            count = last - first + 1
            appended.append(Appended(stream_id, first, last, positions[:count], records=stored[:count]))
            positions, stored = positions[count:], stored[count:]
        if self.sealer is not None:
            self.sealer.appended(self, len(rows), rows)
        return appended

    def insert_rows(self, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> list[int]:
        """Write rows whose hashes were already checked (``transfer.import_events``) in
        one transaction; returns their positions."""
        positions = self._write(rows, commands, None)
        if self.sealer is not None:
            self.sealer.appended(self, len(rows), rows)
        return positions

    def _write(self, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]],
               streams: list[str] | None) -> list[int]:
        """Insert rows and command records in one transaction; their positions, in order.
        ``streams`` names the streams written (None: too many to name, an import)."""
        if len(rows) > MAX_ROWS_PER_TRANSACTION:
            raise ValueError(f"{len(rows)} events in one transaction; at most {MAX_ROWS_PER_TRANSACTION}")
        self._writable()
        positions: list[int] = self._run(self._driver.write, rows, commands, streams)
        return positions

    @contextlib.contextmanager
    def bulk_writer(self) -> Iterator[Callable[[list[tuple[Any, ...]], list[tuple[Any, ...]]], None]]:
        """One transaction for rows whose hashes were already checked, written in
        batches (``transfer.import_events``): all committed when the block ends, none if
        it raises. No size limit; meanwhile, on PostgreSQL, followers of the global
        order wait at the horizon for it."""
        written = 0

        def write(rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
            nonlocal written
            bulk.write(rows, commands)
            written += len(rows)

        self._writable()
        try:
            with self._connection() as conn:
                bulk = self._driver.bulk(conn, self._more_positions)
                try:
                    yield write
                except BaseException:
                    bulk.rollback()
                    raise
                bulk.commit()
        except self._driver.DatabaseError as exc:
            raise self._operational(exc) from None
        if self.sealer is not None and written:
            self.sealer.appended(self, written)

    def _more_positions(self) -> int:
        """A fresh block of positions for a long transaction (PostgreSQL)."""
        with self._connection() as conn:
            first: int = self._driver.fresh_block(conn)
            return first

    @property
    def integrity_error(self) -> type[Exception]:
        error: type[Exception] = self._driver.IntegrityError
        return error

    def _prev_hash(self, stream_id: str, expected_version: int) -> bytes:
        if expected_version == 0:
            return GENESIS
        cached = self._heads.get((stream_id, expected_version))
        if cached is not None:
            return cached
        # (stream, version) -> hash never changes once written, so it can be cached.
        row = self._query_one(
            "SELECT hash FROM events WHERE stream_id = :s AND version = :v", s=stream_id, v=expected_version
        )
        if row is None:
            raise ConcurrencyConflict(stream_id, expected_version, self.stream_version(stream_id))
        return bytes(row[0])
