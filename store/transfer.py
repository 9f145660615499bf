"""Export and import of event streams as JSON Lines (envelope + payload).

A line holds everything the hash covers except the global position, which belongs
to one database: importing elsewhere keeps every hash, and export -> import ->
export gives an identical file. Payloads are written exactly as stored (no
upcasting), so their msgpack bytes, and so the hash chain, are rebuilt exactly.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import IO, Any, Iterable, Iterator

import msgspec

from kartludo.events.base import UndecodableEvent, UnknownEventType, decode
from kartludo.store.eventstore import GENESIS, EventStore, chain_hash
from kartludo.store.errors import ImportRefused

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_raw = msgspec.msgpack.Decoder()
_packer = msgspec.msgpack.Encoder()


class Line(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One exported event. Field order is the file's column order."""

    stream_id: str
    version: int
    type: str
    schema_version: int
    recorded_at: str
    actor: str
    command_id: str
    prev_hash: str
    hash: str
    payload: Any


_line_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(Line)


def format_us(us: int) -> str:
    seconds, micro = divmod(us, 1_000_000)
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{micro:06d}Z"


def parse_us(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"recorded_at {text!r} has no time zone")
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _export_rows(store: EventStore, stream_id: str | None) -> Iterator[tuple]:
    cols = (
        "position, stream_id, version, type, schema_version, payload, recorded_at_us, actor, command_id, "
        "prev_hash, hash"
    )
    last = 0
    while True:
        if stream_id is None:
            rows = store._query(f"SELECT {cols} FROM events WHERE position > :p ORDER BY position LIMIT 5000", p=last)
        else:
            rows = store._query(
                f"SELECT {cols} FROM events WHERE stream_id = :s AND position > :p ORDER BY position LIMIT 5000",
                s=stream_id,
                p=last,
            )
        if not rows:
            return
        yield from rows
        last = rows[-1][0]


def export_events(store: EventStore, out: IO[bytes], stream_id: str | None = None) -> int:
    """Write the log (or one stream) in global order; returns the number of lines."""
    n = 0
    for _pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in _export_rows(store, stream_id):
        line = Line(sid, ver, tag, sv, format_us(rec), actor, cid, bytes(prev).hex(), bytes(digest).hex(),
                    _raw.decode(payload))
        out.write(_line_encoder.encode(line))
        out.write(b"\n")
        n += 1
    return n


class ImportSummary(msgspec.Struct):
    lines: int
    imported: int
    already_present: int
    streams: int


def _parse(lines: Iterable[bytes]) -> list[tuple[int, tuple]]:
    """Every line checked on its own: shape, known type, decodable payload, own hash."""
    rows = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = _line_decoder.decode(raw)
        except msgspec.DecodeError as exc:
            raise ImportRefused(f"line {number}: not an exported event: {exc}") from None
        try:
            payload = _packer.encode(line.payload)
            decode(line.type, line.schema_version, payload)
            recorded = parse_us(line.recorded_at)
            prev, digest = bytes.fromhex(line.prev_hash), bytes.fromhex(line.hash)
        except (UnknownEventType, UndecodableEvent) as exc:
            raise ImportRefused(f"line {number}: {exc}") from None
        except ValueError as exc:
            raise ImportRefused(f"line {number}: {exc}") from None
        expected = chain_hash(
            prev, line.stream_id, line.version, line.type, line.schema_version, recorded, line.actor,
            line.command_id, payload,
        )
        if expected != digest:
            raise ImportRefused(
                f"line {number}: hash does not match the content of {line.stream_id} version {line.version}"
            )
        rows.append(
            (number, (line.stream_id, line.version, line.type, line.schema_version, payload, recorded, line.actor,
                      line.command_id, prev, digest))
        )
    return rows


def import_events(store: EventStore, lines: Iterable[bytes]) -> ImportSummary:
    """Append an exported file into ``store`` in one transaction, or nothing at all.

    Each stream in the file must continue the target's stream (or repeat events it
    already holds, which are skipped): versions consecutive, every hash linked.
    """
    parsed = _parse(lines)
    by_stream: dict[str, list[tuple[int, tuple]]] = defaultdict(list)
    for number, row in parsed:
        by_stream[row[0]].append((number, row))
    new_rows: list[tuple[int, tuple]] = []
    present = 0
    for sid, items in by_stream.items():
        existing = {
            r[0]: bytes(r[1])
            for r in store._query("SELECT version, hash FROM events WHERE stream_id = :s", s=sid)
        }
        expect_prev: bytes | None = None
        expect_version: int | None = None
        for number, row in items:
            version, prev, digest = row[1], row[8], row[9]
            if expect_version is not None and version != expect_version:
                raise ImportRefused(f"line {number}: {sid} version {version} where {expect_version} was expected")
            if expect_prev is None:  # the stream's first line in the file links to the target or to genesis
                link = GENESIS if version == 1 else existing.get(version - 1)
                if link is None:
                    raise ImportRefused(
                        f"line {number}: {sid} starts at version {version} but the database has no version {version - 1}"
                    )
                expect_prev = link
            if prev != expect_prev:
                raise ImportRefused(f"line {number}: {sid} version {version} does not link to the previous hash")
            held = existing.get(version)
            if held is not None:
                if held != digest:
                    raise ImportRefused(
                        f"line {number}: {sid} version {version} differs from the event already stored"
                    )
                present += 1
            else:
                new_rows.append((number, row))
            expect_prev, expect_version = digest, version + 1
    new_rows.sort(key=lambda item: item[0])  # keep the file's (global) order
    rows = [row for _, row in new_rows]
    commands: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        span = commands.setdefault((row[0], row[7]), [row[1], row[1]])
        span[0], span[1] = min(span[0], row[1]), max(span[1], row[1])
    if rows:
        try:
            store.insert_rows(rows, [(s, c, a, b) for (s, c), (a, b) in commands.items()])
        except store.integrity_error as exc:
            raise ImportRefused(f"the database changed or already holds these command ids: {exc}") from None
    return ImportSummary(len(parsed), len(rows), present, len(by_stream))
