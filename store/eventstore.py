"""The append-only event store: one row per event, hash-chained per stream.

SQLAlchemy owns the engine, the pool and the schema; the append and read hot paths
run prepared SQL on the pooled driver connection (``executemany`` in one
transaction), which is what keeps kartludo close to the raw driver's throughput.
"""

from __future__ import annotations

import hashlib
import threading
import time
import os
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Sequence

import msgspec
from sqlalchemy.engine import Engine

from kartludo.events.base import CURRENT, Event, UndecodableEvent, UnknownEventType, decode
from kartludo.store.database import create_engine, describe_url, ensure_ready, first_line
from kartludo.store.errors import ConcurrencyConflict, DatabaseUnavailable, StoreBusy, StoreError

GENESIS = bytes(32)
_sha256 = hashlib.sha256
_event_encoder = msgspec.msgpack.Encoder()
_canonical = msgspec.msgpack.Encoder()

_COLUMNS = (
    "stream_id, version, type, schema_version, payload, recorded_at_us, actor, command_id, prev_hash, hash"
)
_SELECT = f"SELECT position, {_COLUMNS} FROM events"


class Recorded(msgspec.Struct, frozen=True, gc=False):
    """An event with its envelope, as stored."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    recorded_at_us: int
    actor: str
    command_id: str
    prev_hash: bytes
    hash: bytes
    event: Event

    @property
    def recorded_at(self) -> datetime:
        return datetime.fromtimestamp(self.recorded_at_us / 1_000_000, tz=timezone.utc).replace(
            microsecond=self.recorded_at_us % 1_000_000
        )


class Appended(msgspec.Struct, frozen=True):
    """Where an append landed; ``duplicate`` when the command id was seen before."""

    stream_id: str
    first_version: int
    last_version: int
    positions: list[int]
    duplicate: bool = False


def chain_hash(
    prev_hash: bytes,
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    recorded_at_us: int,
    actor: str,
    command_id: str,
    payload: bytes,
) -> bytes:
    """SHA-256 over the previous hash and the row's canonical content: the
    msgpack array ``[stream, version, type, schema, recorded_at_us, actor,
    command_id]`` followed by the payload bytes.

    The global position is left out on purpose: it belongs to one database, and an
    exported stream imported elsewhere keeps its hashes.
    """
    header = _canonical.encode((stream_id, version, type_, schema_version, recorded_at_us, actor, command_id))
    return _sha256(prev_hash + header + payload).digest()


_TYPE_META: dict[type, tuple[str, int, bytes]] = {}


def _type_meta(cls: type) -> tuple[str, int, bytes]:
    """(tag, schema version, their msgpack encoding) of an event type, computed once."""
    meta = _TYPE_META.get(cls)
    if meta is None:
        tag, schema = cls.__struct_config__.tag, cls.schema  # type: ignore[attr-defined]
        meta = _TYPE_META[cls] = (tag, schema, _canonical.encode(tag) + _canonical.encode(schema))
    return meta


def now_us() -> int:
    return time.time_ns() // 1000


class EventStore:
    """Append, read and verify event streams in one SQL database."""

    def __init__(self, engine: Engine, *, clock: Callable[[], int] = now_us) -> None:
        self.engine = engine
        self.clock = clock
        self.backend = engine.url.get_backend_name()
        self._heads: dict[tuple[str, int], bytes] = {}
        self._local = threading.local()
        self._pooled: list[Any] = []
        if self.backend == "sqlite":
            from kartludo.store.sqlite import SqliteDriver

            self._driver: Any = SqliteDriver()
        else:
            from kartludo.store.postgres import PostgresDriver

            self._driver = PostgresDriver()

    @classmethod
    def open(cls, url: str, *, create: bool = True, clock: Callable[[], int] = now_us) -> "EventStore":
        engine = create_engine(url)
        ensure_ready(engine, create=create)
        return cls(engine, clock=clock)

    def close(self) -> None:
        self._drop_connection()
        self.engine.dispose()

    def _connection(self) -> Any:
        """This thread's driver connection for appends, checked out of the pool once."""
        pooled = getattr(self._local, "pooled", None)
        if pooled is None:
            pooled = self._local.pooled = self.engine.raw_connection()
            self._pooled.append(pooled)
            self._driver.adopt(pooled.driver_connection)
        return pooled.driver_connection

    def _drop_connection(self) -> None:
        pooled = getattr(self._local, "pooled", None)
        if pooled is not None:
            self._local.pooled = None
            try:
                self._pooled.remove(pooled)
                pooled.invalidate()
            except Exception:  # noqa: BLE001 - a broken connection is being discarded anyway
                pass

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        return describe_url(self.engine)

    # --- writing -------------------------------------------------------------
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
            last_position = self._driver.append(
                self._connection(), rows, (stream_id, command_id, expected_version + 1, version)
            )
        except self._driver.IntegrityError:
            original = self.find_command(stream_id, command_id)
            if original is not None:
                return original
            raise ConcurrencyConflict(stream_id, expected_version, self.stream_version(stream_id)) from None
        except self._driver.OperationalError as exc:
            self._drop_connection()
            raise self._operational(exc) from None
        self._remember(stream_id, version, prev)
        count = len(rows)
        return Appended(
            stream_id, expected_version + 1, version, list(range(last_position - count + 1, last_position + 1))
        )

    def _rows(
        self, stream_id: str, events: Sequence[Event], expected_version: int, command_id: str, actor: str,
        recorded_at: int,
    ) -> tuple[list[tuple[Any, ...]], bytes]:
        """The rows to insert, hash-chained from the stream's head; and the new head hash."""
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
            self._driver.insert_rows(self._connection(), rows, commands)
        except self._driver.IntegrityError:
            originals = [self.find_command(stream_id, command_id) for stream_id, _, _ in batches]
            if all(o is not None for o in originals):
                return originals  # type: ignore[return-value]
            for stream_id, _, expected in batches:
                actual = self.stream_version(stream_id)
                if actual != expected:
                    raise ConcurrencyConflict(stream_id, expected, actual) from None
            raise
        except self._driver.OperationalError as exc:
            self._drop_connection()
            raise self._operational(exc) from None
        for stream_id, version, head in heads:
            self._remember(stream_id, version, head)
        return [msgspec.structs.replace(self.find_command(stream_id, command_id), duplicate=False)  # type: ignore[arg-type]
                for stream_id, _, _ in batches]

    def insert_rows(self, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
        """Write rows whose hashes were already checked (``transfer.import_events``)."""
        try:
            self._driver.insert_rows(self._connection(), rows, commands)
        except self._driver.OperationalError as exc:
            self._drop_connection()
            raise self._operational(exc) from None

    @property
    def integrity_error(self) -> type[Exception]:
        return self._driver.IntegrityError

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

    def _remember(self, stream_id: str, version: int, digest: bytes) -> None:
        heads = self._heads
        if len(heads) >= 50_000:
            heads.clear()
        heads[(stream_id, version)] = digest

    def _operational(self, exc: Exception) -> StoreError:
        text = first_line(exc)
        if "locked" in text or "busy" in text:
            return StoreBusy(f"{self.url} stayed locked by another writer: {text}")
        return DatabaseUnavailable(f"{self.url}: {text}")

    # --- reading -------------------------------------------------------------
    def read_stream(self, stream_id: str, from_version: int = 1, to_version: int | None = None) -> list[Recorded]:
        if to_version is None:
            sql = f"{_SELECT} WHERE stream_id = :s AND version >= :v ORDER BY version"
            rows = self._query(sql, s=stream_id, v=from_version)
        else:
            sql = f"{_SELECT} WHERE stream_id = :s AND version >= :v AND version <= :t ORDER BY version"
            rows = self._query(sql, s=stream_id, v=from_version, t=to_version)
        records = self._records(rows)
        if records:
            last = records[-1]
            self._remember(stream_id, last.version, last.hash)
        return records

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[Recorded]:
        """Events in global order after ``after_position``: never skips one that
        commits late (appends are serialised per database)."""
        rows = self._query(f"{_SELECT} WHERE position > :p ORDER BY position LIMIT :n", p=after_position, n=limit)
        return self._records(rows)

    def iter_all(self, after_position: int = 0, batch: int = 5000) -> Iterator[Recorded]:
        position = after_position
        while True:
            records = self.read_all(position, batch)
            if not records:
                return
            yield from records
            position = records[-1].position

    def records_from_rows(self, rows: Sequence[Sequence[Any]]) -> list[Recorded]:
        """Decode rows selected as ``position, <columns>`` (projections read this way
        inside their own transaction)."""
        return self._records(rows)

    def _records(self, rows: Sequence[Sequence[Any]]) -> list[Recorded]:
        out: list[Recorded] = []
        append = out.append
        current = CURRENT
        try:
            for pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in rows:
                known = current.get(tag)
                if known is not None and known[1] == sv:
                    event = known[0].decode(payload)
                else:  # an old schema version (upcast) or a type not imported yet
                    event = decode(tag, sv, payload)
                append(Recorded(pos, sid, ver, tag, sv, rec, actor, cid, prev, digest, event))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            bad = rows[len(out)]
            raise UndecodableEvent(
                f"stream {bad[1]} version {bad[2]} (position {bad[0]}): payload of {bad[3]!r} does not decode: {exc}"
            ) from None
        except (UnknownEventType, UndecodableEvent) as exc:
            bad = rows[len(out)]
            raise type(exc)(f"stream {bad[1]} version {bad[2]} (position {bad[0]}): {exc}") from None
        return out

    def stream_version(self, stream_id: str) -> int:
        row = self._query_one("SELECT max(version) FROM events WHERE stream_id = :s", s=stream_id)
        return int(row[0] or 0) if row else 0

    def head_position(self) -> int:
        row = self._query_one("SELECT max(position) FROM events")
        return int(row[0] or 0) if row else 0

    def find_command(self, stream_id: str, command_id: str) -> Appended | None:
        row = self._query_one(
            "SELECT first_version, last_version FROM commands WHERE stream_id = :s AND command_id = :c",
            s=stream_id,
            c=command_id,
        )
        if row is None:
            return None
        first, last = row
        positions = [
            r[0]
            for r in self._query(
                "SELECT position FROM events WHERE stream_id = :s AND version >= :a AND version <= :b ORDER BY version",
                s=stream_id,
                a=first,
                b=last,
            )
        ]
        return Appended(stream_id, first, last, positions, duplicate=True)

    def streams(self, prefix: str = "") -> list[str]:
        """Stream ids starting with ``prefix`` (an index range scan, not LIKE)."""
        if prefix:
            upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
            rows = self._query(
                "SELECT stream_id FROM events WHERE version = 1 AND stream_id >= :a AND stream_id < :b "
                "ORDER BY stream_id",
                a=prefix,
                b=upper,
            )
        else:
            rows = self._query("SELECT stream_id FROM events WHERE version = 1 ORDER BY stream_id")
        return [r[0] for r in rows]

    def count_events(self) -> int:
        row = self._query_one("SELECT count(*) FROM events")
        return int(row[0]) if row else 0

    # --- plumbing ------------------------------------------------------------
    def _query(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        try:
            return self._driver.query(self._connection(), sql, params)
        except self._driver.OperationalError as exc:
            self._drop_connection()
            raise self._operational(exc) from None

    def _query_one(self, sql: str, **params: Any) -> Sequence[Any] | None:
        rows = self._query(sql, **params)
        return rows[0] if rows else None
