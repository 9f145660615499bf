"""The append-only event store: one row per event, hash-chained per stream.

SQLAlchemy owns the engine, the pool and the schema; the append and read hot paths
run on the pooled driver connection itself (``store/sqlite.py``: ``executemany`` in one
transaction; ``store/postgres.py``: one libpq call each), which is what keeps kartludo
close to the raw driver's throughput.

Connections: every store call takes one connection and gives it back when the call
ends, whatever the outcome (a broken one is discarded), so no thread keeps one between
calls. They come from the engine's bounded pool; the store keeps its idle ones in
hand (a stack: the warmest first, a few microseconds cheaper than the pool's checkout),
and ``close()`` closes them all.

Global order: positions grow with the order in which appending transactions began to
write, not the order in which they commit. On SQLite one writer at a time makes the two the same.
On PostgreSQL appends to different streams run concurrently, so a reader following
the global order reads only *settled* positions: below the first position any
still-running transaction could take (``horizon``). What it reads is then final —
nothing can commit later at a smaller position.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import sqlalchemy.exc
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

from kartludo.events.base import CURRENT, Event, UndecodableEvent, UnknownEventType, decode
from kartludo.store.database import (
    POOL_TIMEOUT_S,
    create_engine,
    describe_url,
    ensure_ready,
    first_line,
    pool_limit,
    steady_size,
)
from kartludo.store.errors import ConcurrencyConflict, DatabaseUnavailable, InvalidValue, StoreBusy, StoreError
from kartludo.store.schema import POSITION_ROW_BITS

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
        return datetime.fromtimestamp(self.recorded_at_us / 1_000_000, tz=UTC).replace(
            microsecond=self.recorded_at_us % 1_000_000
        )


class Appended(msgspec.Struct, frozen=True):
    """Where an append landed; ``duplicate`` when the command id was seen before."""

    stream_id: str
    first_version: int
    last_version: int
    positions: list[int]
    duplicate: bool = False
    #: the events as stored, envelope and hash, when this call wrote them (so that
    #: whoever shows them need not read them back); empty for a duplicate
    records: tuple[Recorded, ...] = ()


def _as_recorded(positions: Sequence[int], rows: Sequence[tuple[Any, ...]],
                 events: Sequence[Event]) -> tuple[Recorded, ...]:
    """Written rows (``EventStore._rows``) at their positions, as a read gives them back."""
    return tuple(Recorded(pos, sid, ver, tag, schema, at, who, cid, before, digest, event)
                 for pos, (sid, ver, tag, schema, _, at, who, cid, before, digest), event
                 in zip(positions, rows, events, strict=True))


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


#: the longest stream id, actor and command id (``VARCHAR(200)`` in ``store.schema``)
TEXT_LIMIT = 200


def check_envelope(stream_id: str, actor: str, command_id: str) -> None:
    """Refuse, on every backend, the envelope text PostgreSQL would refuse: over
    ``TEXT_LIMIT`` characters, a NUL character, or a lone surrogate (not UTF-8)."""
    for what, value in (("stream id", stream_id), ("actor", actor), ("command id", command_id)):
        if not isinstance(value, str):
            raise InvalidValue(f"the {what} must be text, not {type(value).__name__}")
        if len(value) > TEXT_LIMIT:
            raise InvalidValue(f"the {what} is {len(value)} characters long; at most {TEXT_LIMIT}: {value[:40]!r}…")
        if "\x00" in value:
            raise InvalidValue(f"the {what} contains a NUL character: {value[:40]!r}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidValue(f"the {what} is not valid UTF-8 text: {value[:40]!r}") from None


def now_us() -> int:
    return time.time_ns() // 1000


#: the most events one append may write (PostgreSQL positions keep 16 bits for the row
#: within its transaction; ``bulk_writer`` takes further blocks for an import)
MAX_ROWS_PER_TRANSACTION = 1 << POSITION_ROW_BITS
#: how long ``settle`` waits by default for transactions still in flight
SETTLE_SECONDS = 5.0
#: ``horizon()`` where every committed row is settled (one writer at a time)
UNBOUNDED = (1 << 63) - 1


def _watch_pool(store: EventStore) -> None:
    """Keep ``store``'s idle connections from starving the pool's waiters: no connection
    stays in hand while every connection the pool may open is out (``_give_back``
    checks on its side; this on each checkout). Weak, so the pool keeps no store alive."""
    ref = weakref.ref(store)

    def on_checkout(*_args: Any) -> None:
        alive = ref()
        if alive is not None and alive._idle:
            alive._pool_now_exhausted()

    sa_event.listen(store.engine.pool, "checkout", on_checkout)


class EventStore:
    """Append, read and verify event streams in one SQL database."""

    def __init__(self, engine: Engine, *, clock: Callable[[], int] = now_us) -> None:
        self.engine = engine
        self.clock = clock
        self.backend = engine.url.get_backend_name()
        self._heads: dict[tuple[str, int], bytes] = {}
        self._idle: list[Any] = []
        self._idle_lock = threading.Lock()
        #: store calls running at once, at most the pool's steady size (``POOL_SIZES``): more
        #: threads than that wait here, asleep, instead of all contending for the pool
        #: (which keeps its overflow for the engine's other users: snapshots, projections)
        self._slot_count = steady_size(engine)
        self._pool_limit = pool_limit(engine)  # read on every call's return: worked out once
        self._slots: queue.SimpleQueue[None] = queue.SimpleQueue()  # a token per slot (C-level: cheap)
        for _ in range(self._slot_count):
            self._slots.put(None)
        self._holding = threading.local()  # a thread's nested store calls take one slot
        _watch_pool(self)
        #: called with the number of events after each write (``chain.AutoSealer``)
        self.sealer: Any = None
        if self.backend == "sqlite":
            from kartludo.store.sqlite import SqliteDriver

            self._driver: Any = SqliteDriver()
        else:
            from kartludo.store.postgres import PostgresDriver

            self._driver = PostgresDriver(self._new_connection)

    @classmethod
    def open(cls, url: str, *, create: bool = True, clock: Callable[[], int] = now_us) -> EventStore:
        engine = create_engine(url)
        ensure_ready(engine, create=create)
        store = cls(engine, clock=clock)
        from kartludo.store.chain import AutoSealer, seal_every

        every = seal_every()
        if every:
            store.sealer = AutoSealer(every)
        return store

    def conninfo(self) -> str:
        """The database as libpq takes it (PostgreSQL), for a connection outside the
        pool: the notifier's, a LISTEN."""
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def _new_connection(self) -> Any:
        """A driver connection of its own, outside the pool (a driver's background
        work must not wait behind the calls that fill the pool), autocommit."""
        import psycopg

        return psycopg.connect(self.conninfo(), autocommit=True)

    def close(self) -> None:
        """Close every connection: the store's idle ones, the engine's pool and the
        driver's own (on PostgreSQL, after the NOTIFYs still due are sent)."""
        self._driver.close()
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for pooled in idle:
            self._release(pooled)
        self.engine.dispose()

    def connections_in_use(self) -> int:
        """Connections some call holds right now (idle ones in hand do not count)."""
        with self._idle_lock:
            held: int = self.engine.pool.checkedout()  # type: ignore[attr-defined]  # QueuePool's, not Pool's
            return held - len(self._idle)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A driver connection for one store call, always given back when it ends:
        rolled back if a transaction was left open, discarded if it broke."""
        pooled = self._take()
        try:
            yield pooled.driver_connection
        except BaseException as exc:
            self._give_back(pooled, broken=isinstance(exc, self._driver.OperationalError))
            raise
        self._give_back(pooled, broken=False)

    def _take(self) -> Any:
        """A slot, then the most recently used idle connection (its caches are warm),
        else one from the engine's bounded pool."""
        holding = self._holding
        depth = getattr(holding, "depth", 0)
        if not depth:
            try:
                self._slots.get(timeout=POOL_TIMEOUT_S)
            except queue.Empty:
                calls = f"{self._slot_count} store call{'s' if self._slot_count != 1 else ''}"
                raise StoreBusy(f"{self.url}: all {calls} this process may run at once stayed busy for "
                                f"{POOL_TIMEOUT_S} s") from None
        holding.depth = depth + 1
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        try:
            return self._connect()
        except BaseException:
            self._leave_slot()
            raise

    def _connect(self) -> Any:
        try:
            pooled = self.engine.raw_connection()
        except sqlalchemy.exc.TimeoutError:
            raise StoreBusy(
                f"{self.url}: all {self._pool_limit} connections of this process stayed busy for "
                f"{POOL_TIMEOUT_S} s"
            ) from None
        except sqlalchemy.exc.DBAPIError as exc:
            raise DatabaseUnavailable(f"cannot open {self.url}: {first_line(exc.orig)}") from None
        except self._driver.OperationalError as exc:  # the pool's checkout leaves the driver's error unwrapped
            raise DatabaseUnavailable(f"cannot open {self.url}: {first_line(exc)}") from None
        self._driver.enter(pooled.driver_connection)
        return pooled

    def _leave_slot(self) -> None:
        depth = self._holding.depth - 1
        self._holding.depth = depth
        if not depth:
            self._slots.put(None)

    def _give_back(self, pooled: Any, *, broken: bool) -> None:
        try:
            if not broken:
                try:
                    self._driver.reset(pooled.driver_connection)
                except Exception:  # noqa: BLE001 - a connection that cannot be reset is not reused
                    broken = True
            if broken:
                pooled.invalidate()
                pooled.close()
                return
            # Kept in hand for the next calls, most recent first, up to the calls at once
            # (the pool would keep it open alike; 8 in hand at 16 calls made every call
            # past the eighth pay the pool's checkout and reset). None is kept while the
            # pool is exhausted: someone may be waiting on it, and only a connection
            # given back to it wakes them.
            with self._idle_lock:
                if len(self._idle) < self._slot_count and not self._pool_exhausted():
                    self._idle.append(pooled)
                    return
            self._release(pooled)
        finally:
            self._leave_slot()

    def _pool_now_exhausted(self) -> None:
        """A checkout took the pool's last connection: one kept in hand goes back to it,
        for whoever waits on the pool next (a store call, a snapshot or projection write)."""
        with self._idle_lock:
            if not self._idle or not self._pool_exhausted():
                return
            pooled = self._idle.pop(0)  # the least recently used
        self._release(pooled)

    def _pool_exhausted(self) -> bool:
        """Every connection the pool may open is out (ours in hand included): someone
        (a store call, or a snapshot or projection write on the engine) may be waiting."""
        pool: Any = self.engine.pool
        checkedout = getattr(pool, "checkedout", None)  # QueuePool's; SQLite's pools bound nothing
        return checkedout is not None and checkedout() >= self._pool_limit

    def _release(self, pooled: Any) -> None:
        """Back to the engine's pool, as its other users expect a connection."""
        try:
            self._driver.leave(pooled.driver_connection)
        except Exception:  # noqa: BLE001 - not reusable: closed instead
            pooled.invalidate()
        pooled.close()

    def __enter__(self) -> EventStore:
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
            positions = self._write(rows, [(stream_id, command_id, expected_version + 1, version)], [stream_id])
        except self._driver.IntegrityError:
            original = self.find_command(stream_id, command_id)
            if original is not None:
                return original
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
        try:
            with self._connection() as conn:
                positions: list[int] = self._driver.write(conn, rows, commands, streams)
                return positions
        except self._driver.OperationalError as exc:
            raise self._operational(exc) from None

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

        try:
            with self._connection() as conn:
                bulk = self._driver.bulk(conn, self._more_positions)
                try:
                    yield write
                except BaseException:
                    bulk.rollback()
                    raise
                bulk.commit()
        except self._driver.OperationalError as exc:
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
            rows = self._query(sql, prepared=True, s=stream_id, v=from_version)
        else:
            sql = f"{_SELECT} WHERE stream_id = :s AND version >= :v AND version <= :t ORDER BY version"
            rows = self._query(sql, prepared=True, s=stream_id, v=from_version, t=to_version)
        records = self._records(rows)
        if records:
            last = records[-1]
            self._remember(stream_id, last.version, last.hash)
        return records

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[Recorded]:
        """Settled events in global order after ``after_position``: a follower that
        resumes after the last position it read never skips an event that commits late."""
        horizon, rows = self.query_with_horizon(f"{_SELECT} WHERE position > :p ORDER BY position LIMIT :n",
                                                p=after_position, n=limit)
        settled = [row for row in rows if row[0] < horizon]
        return self._records(settled)

    def iter_all(self, after_position: int = 0, batch: int = 5000) -> Iterator[Recorded]:
        """Every event after ``after_position`` in global order, read in pages: first
        waits (``settle``) for what was committed before the call to be settled."""
        self.settle()
        position = after_position
        while True:
            records = self.read_all(position, batch)
            if not records:
                return
            yield from records
            position = records[-1].position

    @property
    def horizon_sql(self) -> str:
        """A statement whose one value is ``horizon()`` ("" where every committed event
        is settled), for a follower that reads in its own transaction: ask it first,
        in a statement of its own, then read below it."""
        expr: str = self._driver.horizon_expr
        return f"SELECT {expr}" if expr else ""

    def horizon(self) -> int:
        """Every position below this is settled: committed or never to be. A follower
        may read rows above it early (in a statement after this one), but must not
        move its cursor past them."""
        expr = self._driver.horizon_expr
        row = self._query_one(f"SELECT {expr}") if expr else None
        return int(row[0]) if row else UNBOUNDED

    def query_with_horizon(self, sql: str, **params: Any) -> tuple[int, list[Sequence[Any]]]:
        """Run a follower's own query (``position, <columns>`` rows, settled or not)
        with the horizon taken just before it: the follower may use every row, but
        move its cursor only over positions below the horizon."""
        try:
            with self._connection() as conn:
                found: tuple[int, list[Sequence[Any]]] = self._driver.query_with_horizon(conn, sql, params)
                return found
        except self._driver.OperationalError as exc:
            raise self._operational(exc) from None

    def settle(self, timeout: float = SETTLE_SECONDS) -> bool:
        """Wait until every event committed before this call is settled (the
        transactions that began writing before it have ended); False when ``timeout``
        ran out first. A reader that must see its own writes calls this before reading.
        """
        expr = self._driver.horizon_expr
        if not expr:
            return True
        deadline = time.monotonic() + timeout
        pause = 0.001
        # the cheap horizon first: usually already past the head
        row = self._query_one(f"SELECT (SELECT max(position) FROM events), {self._driver.quick_horizon_expr}")
        head, horizon = (row[0] or 0, int(row[1])) if row else (0, UNBOUNDED)
        if horizon <= head:
            horizon = self.horizon()
        while horizon <= head:
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
            horizon = self.horizon()
        return True

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

    def count_events(self, after: int = 0) -> int:
        """How many events, or how many after position ``after``."""
        if after:
            row = self._query_one("SELECT count(*) FROM events WHERE position > :p", p=after)
        else:
            row = self._query_one("SELECT count(*) FROM events")
        return int(row[0]) if row else 0

    # --- raw rows, for checking and copying the log --------------------------
    def rows_by_stream(self, after: tuple[str, int] = ("", 0), limit: int = 20_000) -> list[Sequence[Any]]:
        """Rows (``position, <columns>``) in (stream, version) order after ``after``: a
        keyset page, one range of the (stream, version) index (``integrity.verify``)."""
        return self._query(
            f"{_SELECT} WHERE (stream_id, version) > (:s, :v) ORDER BY stream_id, version LIMIT :n",
            s=after[0], v=after[1], n=limit,
        )

    def rows_in_order(self, after_position: int = 0, limit: int = 5000, *, settled: bool = True) -> list[Sequence[Any]]:
        """Rows (``position, <columns>``) in global order after ``after_position``; only
        settled ones unless ``settled`` is False (a check that must see every row)."""
        horizon = self.horizon() if settled else UNBOUNDED
        where = " AND position < :h" if horizon != UNBOUNDED else ""
        return self._query(f"{_SELECT} WHERE position > :p{where} ORDER BY position LIMIT :n",
                           p=after_position, n=limit, h=horizon)

    def stream_rows(self, stream_id: str, after_version: int = 0, limit: int = 5000) -> list[Sequence[Any]]:
        """One stream's rows (``position, <columns>``) by version after ``after_version``."""
        return self._query(f"{_SELECT} WHERE stream_id = :s AND version > :v ORDER BY version LIMIT :n",
                           s=stream_id, v=after_version, n=limit)

    def stored_hashes(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        """The stored hash of each (stream, version) present among ``keys``."""
        if not keys:
            return {}
        values = ", ".join(f"(:s{i}, :v{i})" for i in range(len(keys)))
        params: dict[str, Any] = {}
        for i, (sid, version) in enumerate(keys):
            params[f"s{i}"], params[f"v{i}"] = sid, version
        rows = self._query(
            f"SELECT e.stream_id, e.version, e.hash FROM (VALUES {values}) AS k "
            "JOIN events e ON e.stream_id = k.column1 AND e.version = k.column2",
            **params,
        )
        return {(r[0], r[1]): bytes(r[2]) for r in rows}

    def command_rows(self, after: tuple[str, str] = ("", ""), limit: int = 20_000) -> list[Sequence[Any]]:
        """The ``commands`` table (stream, command id, first and last version), in key order."""
        return self._query(
            "SELECT stream_id, command_id, first_version, last_version FROM commands "
            "WHERE (stream_id, command_id) > (:s, :c) ORDER BY stream_id, command_id LIMIT :n",
            s=after[0], c=after[1], n=limit,
        )

    def commands_from_events(self, after: tuple[str, str] = ("", ""), limit: int = 20_000,
                             upto: tuple[str, str] | None = None) -> list[Sequence[Any]]:
        """What the ``commands`` table must hold, derived from the events: per (stream,
        command id) its first and last version and its number of events, in key order,
        after ``after`` (and up to ``upto``, included). The bare ``stream_id`` bounds
        let the (stream, version) index narrow the scan to the streams in range."""
        bound = " AND stream_id <= :us AND (stream_id, command_id) <= (:us, :uc)" if upto is not None else ""
        return self._query(
            "SELECT stream_id, command_id, min(version), max(version), count(*) FROM events "
            f"WHERE stream_id >= :s AND (stream_id, command_id) > (:s, :c){bound} GROUP BY stream_id, command_id "
            "ORDER BY stream_id, command_id LIMIT :n",
            s=after[0], c=after[1], n=limit, us=upto[0] if upto else None, uc=upto[1] if upto else None,
        )

    def select(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        """A read-only query with ``:name`` placeholders (the tables beside ``events``)."""
        return self._query(sql, **params)

    def probe(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        """A read-only query asked on every request (the token index's "anything
        new?"): int and text values, run by the driver's shortest path (on PostgreSQL
        prepared once per connection, one libpq call), as a stream's read is."""
        return self._query(sql, prepared=True, **params)

    @contextlib.contextmanager
    def exclusive(self, lock: int | None = None) -> Iterator[Exclusive]:
        """One write transaction that holds ``lock`` (PostgreSQL: an advisory lock;
        SQLite: the file's write lock) until it commits when the block ends; rolled
        back if it raises. For the store's own bookkeeping beside the events (the
        global chain and its seals, snapshots), never for events themselves. Without
        a lock, a plain write transaction on the driver's shortest path (SQLite still
        takes its file's write lock)."""
        try:
            with self._connection() as conn:
                tx = Exclusive(self._driver, conn)
                self._driver.begin_exclusive(conn, lock)
                try:
                    yield tx
                except BaseException:
                    self._driver.reset(conn)
                    raise
                self._driver.execute(conn, "COMMIT", {})
        except self._driver.OperationalError as exc:
            raise self._operational(exc) from None

    # --- plumbing ------------------------------------------------------------
    def _query(self, sql: str, *, prepared: bool = False, **params: Any) -> list[Sequence[Any]]:
        """``prepared``: a hot read, int and text parameters (the driver may prepare it
        once per connection and run it by the shortest path it has)."""
        # the hot path: ``_connection`` written out, without a generator
        pooled = self._take()
        try:
            run = self._driver.prepared_query if prepared else self._driver.query
            rows: list[Sequence[Any]] = run(pooled.driver_connection, sql, params)
        except BaseException as exc:
            self._give_back(pooled, broken=isinstance(exc, self._driver.OperationalError))
            if isinstance(exc, self._driver.OperationalError):
                raise self._operational(exc) from None
            raise
        self._give_back(pooled, broken=False)
        return rows

    def _query_one(self, sql: str, **params: Any) -> Sequence[Any] | None:
        rows = self._query(sql, **params)
        return rows[0] if rows else None


class Exclusive:
    """Statements inside ``EventStore.exclusive``: ``:name`` placeholders."""

    def __init__(self, driver: Any, conn: Any) -> None:
        self._driver, self._conn = driver, conn

    def query(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        rows: list[Sequence[Any]] = self._driver.query(self._conn, sql, params)
        return rows

    def execute(self, sql: str, **params: Any) -> None:
        self._driver.execute(self._conn, sql, params)

    def executemany(self, sql: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            self._driver.executemany(self._conn, sql, rows)

    def insert_chain(self, rows: list[tuple[int, int, str, int, bytes]]) -> None:
        """Global chain entries (position, n, stream, version, hash): the driver's own
        positional statement, the cheapest way in."""
        if rows:
            self._driver.insert_chain(self._conn, rows)
