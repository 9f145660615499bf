"""Checking the stored log: every stream's version sequence and hash chain.

``verify`` recomputes each row's hash from its content and its predecessor's hash,
so an edited payload, hash, order or version is found and named (stream, version,
position) without trusting anything else in the row.
"""

from __future__ import annotations

from typing import Iterator

import msgspec

from kartludo.events.base import UndecodableEvent, UnknownEventType, decode
from kartludo.store.eventstore import GENESIS, EventStore, chain_hash


class Problem(msgspec.Struct, frozen=True):
    stream_id: str
    version: int
    position: int
    reason: str

    def __str__(self) -> str:
        return f"stream {self.stream_id} version {self.version} (position {self.position}): {self.reason}"


class Report(msgspec.Struct):
    streams: int = 0
    events: int = 0
    problems: list[Problem] = []

    @property
    def ok(self) -> bool:
        return not self.problems


def _rows(store: EventStore, batch: int = 20_000) -> Iterator[tuple]:
    """All rows in (stream, version) order, fetched in keyset pages.

    The row comparison is an index range on both backends: each page starts where the
    last one ended, so a full pass costs one walk of the (stream, version) index.
    """
    last_stream, last_version = "", 0
    sql = (
        "SELECT position, stream_id, version, type, schema_version, payload, recorded_at_us, actor, "
        "command_id, prev_hash, hash FROM events "
        "WHERE (stream_id, version) > (:s, :v) "
        "ORDER BY stream_id, version LIMIT :n"
    )
    while True:
        rows = store._query(sql, s=last_stream, v=last_version, n=batch)
        if not rows:
            return
        yield from rows
        last_stream, last_version = rows[-1][1], rows[-1][2]


def verify(store: EventStore, *, decode_payloads: bool = True, stop_at_first: bool = True) -> Report:
    """Check every stream; with ``stop_at_first`` the report holds the first problem only."""
    report = Report()
    stream = None
    expect_version, prev_hash, prev_position = 0, GENESIS, 0
    for pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in _rows(store):
        report.events += 1
        if sid != stream:
            stream = sid
            report.streams += 1
            expect_version, prev_hash, prev_position = 0, GENESIS, 0
        expect_version += 1
        reason = None
        if ver != expect_version:
            reason = f"version {ver} where {expect_version} was expected (a gap or a renumbered event)"
        elif bytes(prev) != prev_hash:
            reason = "previous-hash link does not match the preceding event's hash"
        elif chain_hash(prev_hash, sid, ver, tag, sv, rec, actor, cid, bytes(payload)) != bytes(digest):
            reason = "hash does not match the event's content (payload or envelope altered)"
        elif pos <= prev_position:
            reason = f"global position {pos} is not after the previous event's {prev_position} (order altered)"
        elif decode_payloads:
            try:
                decode(tag, sv, bytes(payload))
            except (UnknownEventType, UndecodableEvent) as exc:
                reason = str(exc)
        if reason is not None:
            report.problems.append(Problem(sid, ver, pos, reason))
            if stop_at_first:
                return report
            expect_version = ver
        prev_hash, prev_position = bytes(digest), pos
    return report
