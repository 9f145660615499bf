"""One connection per store call, and the plain statements run on it.

SQLAlchemy owns the engine, the pool and the schema; the append and read hot paths
run on the pooled driver connection itself (``store/sqlite.py``: ``executemany`` in one
transaction; ``store/postgres.py``: one libpq call each), which is what keeps kartludo
close to the raw driver's throughput.

Connections: every store call takes one connection and gives it back when the call
ends, whatever the outcome (a broken one is discarded), so no thread keeps one between
calls. They come from the engine's bounded pool; the store keeps its idle ones in
hand (a stack: the warmest first, a few microseconds cheaper than the pool's checkout),
and ``close()`` closes them all.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy.exc
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

from kartludo.store import damage
from kartludo.store.database import POOL_TIMEOUT_S, as_store_error, describe_url, first_line, pool_limit, steady_size
from kartludo.store.errors import DatabaseDamaged, DatabaseUnavailable, DiskFull, StoreBusy


def _watch_pool(store: Connections) -> None:
    """Keep ``store``'s idle connections from starving the pool's waiters: no connection
    stays in hand while every connection the pool may open is out (``_give_back``
    checks on its side; this on each checkout). Weak, so the pool keeps no store alive."""
    ref = weakref.ref(store)

    def on_checkout(*_args: Any) -> None:
        alive = ref()
        if alive is not None and alive._idle:
            alive._pool_now_exhausted()

    sa_event.listen(store.engine.pool, "checkout", on_checkout)


class Connections:
    """The engine, its bounded pool and the backend's driver (``EventStore``'s base)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.backend = engine.url.get_backend_name()
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
        #: what ``verify`` found wrong with this SQLite file (``store.damage``): no writes while it is noted
        self.damaged = damage.noted(engine.url) if self.backend == "sqlite" else None
        _watch_pool(self)
        if self.backend == "sqlite":
            from kartludo.store.sqlite import SqliteDriver

            self._driver: Any = SqliteDriver()
        else:
            from kartludo.store.postgres import PostgresDriver

            self._driver = PostgresDriver(self._new_connection)

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
        except (sqlalchemy.exc.DBAPIError, self._driver.OperationalError) as exc:
            # (the pool's checkout leaves the driver's error unwrapped)
            found = as_store_error(exc, self.engine.url)
            if isinstance(found, (DiskFull, DatabaseDamaged)):
                raise found from None
            orig = exc.orig if isinstance(exc, sqlalchemy.exc.DBAPIError) else exc
            raise DatabaseUnavailable(f"cannot open {self.url}: {first_line(orig)}") from None
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

    @property
    def url(self) -> str:
        return describe_url(self.engine)

    def _operational(self, exc: Exception) -> BaseException:
        """The store error a driver's error means (``database.as_store_error``: down,
        busy, a full disk, a damaged file), else ``exc`` itself (a constraint, a bug)."""
        return as_store_error(exc, self.engine.url) or exc

    def _writable(self) -> None:
        """Refuse a write to a file ``verify`` found damaged (``store.damage``)."""
        if self.damaged is not None:
            raise damage.refused(self.engine.url, self.damaged)

    @contextlib.contextmanager
    def exclusive(self, lock: int | None = None) -> Iterator[Exclusive]:
        """One write transaction that holds ``lock`` (PostgreSQL: an advisory lock;
        SQLite: the file's write lock) until it commits when the block ends; rolled
        back if it raises. For the store's own bookkeeping beside the events (the
        global chain and its seals, snapshots), never for events themselves. Without
        a lock, a plain write transaction on the driver's shortest path (SQLite still
        takes its file's write lock)."""
        self._writable()
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
        except self._driver.DatabaseError as exc:
            raise self._operational(exc) from None

    # --- plumbing ------------------------------------------------------------
    def _query(self, sql: str, *, prepared: bool = False, **params: Any) -> list[Sequence[Any]]:
        """``prepared``: a hot read, int and text parameters (the driver may prepare it
        once per connection and run it by the shortest path it has)."""
        rows: list[Sequence[Any]] = self._run(self._driver.prepared_query if prepared else self._driver.query,
                                              sql, params)
        return rows

    def _run(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(driver_connection, *args)`` on a pooled connection, as ``_connection``
        lends one but without a generator (the hot paths: every query, every append),
        a driver's error raised as the store's."""
        pooled = self._take()
        try:
            result = work(pooled.driver_connection, *args)
        except BaseException as exc:
            self._give_back(pooled, broken=isinstance(exc, self._driver.OperationalError))
            if isinstance(exc, self._driver.DatabaseError):
                raise self._operational(exc) from None
            raise
        self._give_back(pooled, broken=False)
        return result

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
