"""Reads that scale out: PostgreSQL hot standbys serve reads, the primary keeps writes.

A ``ReadRouter`` holds one ``EventStore`` per replica URL (``--read-db``) beside the
primary's. Writes, and everything that guards a write, never come here: callers use
the primary store for those. A read asks the router for a store and gets a replica
only when that replica is *safe* for this reader:

- read-your-writes: after a client writes, the router remembers the primary's WAL
  position (``pg_current_wal_lsn()``) for that client (a token, a session, a CLI
  process); the client's reads go to a replica only once ``pg_last_wal_replay_lsn()``
  there has reached it;
- bounded staleness: a replica more than ``max_lag`` seconds behind (time since its
  last replayed transaction, unless it has replayed everything the primary has written)
  is skipped for every reader;
- a replica that fails (down, its connections all busy, or a query cancelled by a
  conflict with its recovery) is skipped for ``backoff`` seconds and the read is run
  again on the primary: an outage of a replica costs no request.

Lag checks are cheap: a replica's replay position and lag are read with one query and
kept for ``status_ttl`` seconds; the primary's position likewise (one query shared by
every reader that asks within that time). Without replica URLs there is no router
(``ReadRouter.of`` returns None) and every read takes the primary path unchanged.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import sqlalchemy.exc

from kartludo.store.errors import DatabaseUnavailable, StoreBusy, StoreError
from kartludo.store.eventstore import EventStore

log = logging.getLogger(__name__)
T = TypeVar("T")

#: how far behind the primary a replica may be (seconds) and still serve reads
MAX_LAG_SECONDS = 2.0
#: how long a replica's replay position (and the primary's WAL position) is reused
STATUS_TTL_SECONDS = 0.05
#: a replica short of what a reader needs is asked again after this long (seconds)
RECHECK_SECONDS = 0.002
#: how long a replica that failed is left alone before it is tried again
BACKOFF_SECONDS = 5.0
#: clients whose last write position is remembered (the oldest are forgotten first)
MAX_CLIENTS = 100_000

#: what a read replica raises through SQLAlchemy (the read-model queries use the engine):
#: it is down or restarting, a query was cancelled by a conflict with its recovery, or
#: its pool stayed busy
_SQL_FAILURES = (sqlalchemy.exc.OperationalError, sqlalchemy.exc.TimeoutError)

_PRIMARY_LSN = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"
_REPLICA_STATUS = (
    "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, "
    "COALESCE(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)::float8, "
    "pg_is_in_recovery()"
)


def read_urls(values: Sequence[str] | str | None) -> list[str]:
    """Replica URLs from repeated ``--read-db`` values and ``KARTLUDO_READ_DB`` (each
    may hold several, separated by commas or spaces), in order, without repeats."""
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values or ():
        for url in re.split(r"[,\s]+", value.strip()):
            if url and url not in out:
                out.append(url)
    return out


def read_urls_from_env(values: Sequence[str] | None = None) -> list[str]:
    """``values`` (the ``--read-db`` options), else ``KARTLUDO_READ_DB``."""
    return read_urls(values) or read_urls(os.environ.get("KARTLUDO_READ_DB", ""))


class Replica:
    """One standby: its store (opened on first use), its last known replay position
    and lag, and until when it is left alone after a failure."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.store: EventStore | None = None
        self.replayed = -1
        self.lag = float("inf")
        self.checked = float("-inf")
        self.down_until = float("-inf")
        self.lock = threading.Lock()
        #: reads served (a figure for ``bench/replicas.py`` and the tests)
        self.reads = 0

    def open(self) -> EventStore:
        if self.store is None:
            self.store = EventStore.open(self.url, create=False)
            if self.store.backend != "postgresql":
                self.store.close()
                self.store = None
                raise DatabaseUnavailable(f"--read-db {self.url}: a replica must be a PostgreSQL hot standby")
        return self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


class ReadRouter:
    """Chooses, per read, the primary or a replica that has what the reader must see."""

    def __init__(self, primary: EventStore, urls: Sequence[str], *, max_lag: float = MAX_LAG_SECONDS,
                 status_ttl: float = STATUS_TTL_SECONDS, backoff: float = BACKOFF_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if primary.backend != "postgresql":
            raise DatabaseUnavailable(
                f"--read-db needs a PostgreSQL primary (--db), not {primary.backend}: replicas are PostgreSQL "
                "hot standbys of it")
        self.primary = primary
        self.replicas = [Replica(url) for url in urls]
        self.max_lag = max_lag
        self.status_ttl = status_ttl
        self.backoff = backoff
        self.clock = clock
        self._fences: dict[Hashable, int] = {}
        self._lock = threading.Lock()
        self._primary_lsn = (-1, float("-inf"))  # (position, when read)
        self._primary_lock = threading.Lock()
        self._turn = itertools.count()
        #: reads the primary served because no replica could (a figure)
        self.primary_reads = 0

    @classmethod
    def of(cls, primary: EventStore, urls: Sequence[str], **options: Any) -> ReadRouter | None:
        """A router over ``urls``; None without any (reads stay on the primary)."""
        return cls(primary, urls, **options) if urls else None

    def close(self) -> None:
        for replica in self.replicas:
            replica.close()

    # --- positions ------------------------------------------------------------
    def primary_lsn(self, *, since: float | None = None) -> int:
        """The primary's WAL position, read at or after ``since`` (monotonic clock;
        default: within ``status_ttl``). Readers asking together share one query."""
        since = self.clock() - self.status_ttl if since is None else since
        lsn, at = self._primary_lsn
        if at >= since:
            return lsn
        with self._primary_lock:
            lsn, at = self._primary_lsn
            if at >= since:
                return lsn
            taken = self.clock()
            row = self.primary.select(_PRIMARY_LSN)
            lsn = int(row[0][0])
            if lsn > self._primary_lsn[0]:
                self._primary_lsn = (lsn, taken)
            else:
                self._primary_lsn = (self._primary_lsn[0], taken)
            return self._primary_lsn[0]

    def wrote(self, client: Hashable) -> int:
        """After ``client``'s write committed: its reads must see at least the primary's
        position now. Returns that position."""
        lsn = self.primary_lsn(since=self.clock())
        with self._lock:
            fences = self._fences
            fences.pop(client, None)
            if len(fences) >= MAX_CLIENTS:
                fences.pop(next(iter(fences)))
            fences[client] = lsn
        return lsn

    def fence(self, client: Hashable) -> int:
        """The position ``client``'s reads must see (0: it has written nothing here)."""
        return self._fences.get(client, 0)

    # --- choosing -------------------------------------------------------------
    def _status(self, replica: Replica, need: int = 0) -> tuple[int, float]:
        """(replay position, lag in seconds), read at most once per ``status_ttl``; or
        once per ``RECHECK_SECONDS`` while the known position is short of ``need`` (a
        query on the replica: it spares the primary a read)."""
        def fresh() -> bool:
            age = self.clock() - replica.checked
            return age < (RECHECK_SECONDS if replica.replayed < need else self.status_ttl)

        if fresh():
            return replica.replayed, replica.lag
        with replica.lock:
            if fresh():
                return replica.replayed, replica.lag
            row = replica.open().select(_REPLICA_STATUS)[0]
            if not row[2]:
                raise DatabaseUnavailable(f"--read-db {replica.url} is not a standby (not in recovery)")
            replayed, lag = int(row[0] or 0), float(row[1])
            if lag > 0 and replayed >= self.primary_lsn():
                lag = 0.0  # an idle primary: nothing newer to replay, however old the last one
            replica.replayed, replica.lag, replica.checked = replayed, lag, self.clock()
            return replayed, lag

    def _candidates(self) -> list[Replica]:
        """The replicas not in back-off, starting with the next in turn (spreads load)."""
        now = self.clock()
        up = [r for r in self.replicas if r.down_until <= now]
        if len(up) > 1:
            k = next(self._turn) % len(up)
            up = up[k:] + up[:k]
        return up

    def _failed(self, replica: Replica, exc: BaseException) -> None:
        log.warning("read replica %s failed (%s): reads go elsewhere for %.0f s", replica.url, exc, self.backoff)
        replica.down_until = self.clock() + self.backoff
        replica.checked = float("-inf")
        replica.close()

    def choose(self, fence: int = 0) -> tuple[EventStore, Replica | None]:
        """A store that has replayed at least ``fence`` and lags at most ``max_lag``:
        a replica when one qualifies, else the primary."""
        for replica in self._candidates():
            try:
                replayed, lag = self._status(replica, fence)
            except (StoreError, OSError) as exc:
                self._failed(replica, exc)
                continue
            if replayed >= fence and lag <= self.max_lag and replica.store is not None:
                return replica.store, replica
        return self.primary, None

    def read(self, run: Callable[[EventStore], T], *, client: Hashable = None, fence: int = 0,
             behind: tuple[type[BaseException], ...] = ()) -> T:
        """``run(store)`` on a replica safe for ``client`` (its own writes, and
        ``fence``), else on the primary; a replica that fails meanwhile is put in
        back-off and ``run`` is repeated on the primary. ``behind``: what ``run`` raises
        when the replica has not yet replayed what the read is about (a match created
        since, by another client): ``run`` is repeated on the primary, the replica
        stays in use."""
        need = max(fence, self.fence(client)) if client is not None else fence
        store, replica = self.choose(need)
        if replica is None:
            self.primary_reads += 1
            return run(self.primary)
        try:
            result = run(store)
        except (DatabaseUnavailable, StoreBusy, OSError, *_SQL_FAILURES) as exc:
            self._failed(replica, exc)
            self.primary_reads += 1
            return run(self.primary)
        except behind:
            self.primary_reads += 1
            return run(self.primary)
        replica.reads += 1
        return result
