"""What the handlers share: the store, the token index, the live hub, one MatchService
and its reader."""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from litestar import Request

from kartludo.app.errors import UnknownMatch
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.reading.reader import MatchReader
from kartludo.app.tokens import Principal, TokenIndex
from kartludo.projections import refresh
from kartludo.service.auth import principal
from kartludo.service.limits import Limits
from kartludo.service.live import LiveHub, StreamSlots, Watchers
from kartludo.store import EventStore
from kartludo.store.replicas import ReadRouter

T = TypeVar("T")


class Services:
    """What the handlers share: the store, the token index, one MatchService.

    The MatchService (and its cache of folded matches) is shared by every worker
    thread, so a match is folded once, not once per thread, and a command never starts
    from a copy another thread has left behind. A match's cached state changes only
    under its lock (``locked``): requests on one match take turns (their writes would
    conflict anyway), requests on different matches run side by side.
    """

    STRIPES = 256

    def __init__(self, store: EventStore, url: str, limits: Limits, reads: ReadRouter | None = None) -> None:
        self.store = store
        #: replicas for reads (``--read-db``); None: every read on the primary
        self.reads = reads
        self._readers: weakref.WeakKeyDictionary[EventStore, MatchReader] = weakref.WeakKeyDictionary()
        self._woken: weakref.WeakKeyDictionary[asyncio.Event, float] = weakref.WeakKeyDictionary()
        self.limits = limits
        self.tokens = TokenIndex(store)
        self.live = LiveHub(store, url)
        self.streams = StreamSlots(limits)
        #: the open watcher streams (the public view) per match, on every process
        self.watchers = Watchers(store)
        self.svc = MatchService(store)
        #: what a caller sees of a match (over the same folded matches: a command's events
        #: are folded once, for the command and for every live stream)
        self.reader = MatchReader(self.svc)
        #: projection refreshes write read-model tables: one at a time in this process
        self.projections = threading.Lock()
        self._locks = [threading.Lock() for _ in range(self.STRIPES)]

    def locked(self, match_id: str) -> threading.Lock:
        """The lock guarding ``match_id``'s cached state (striped: a fixed set of locks)."""
        return self._locks[hash(match_id) % self.STRIPES]

    def caller(self, request: Request[Any, Any, Any]) -> Principal | None:
        """The caller, looked up now (a live stream asks again on every use)."""
        return principal(request, self.tokens)

    def read(self, who: Principal | None, run: Callable[[MatchReader], T], *, fence: int = 0) -> T:
        """``run`` over a replica that has ``who``'s own writes (and ``fence``), else over
        the primary (``store.replicas``); without replicas, simply over ``self.reader``.
        A replica that does not know the match yet (created by another client, not yet
        replayed) leaves the read to the primary. Only for reads of events: commands and
        deals use the primary, projections ``read_models``."""
        if self.reads is None:
            return run(self.reader)
        return self.reads.read(lambda store: run(self._reader(store)), client=_client(who), fence=fence,
                               behind=(UnknownMatch,))

    def read_models(self, who: Principal | None, run: Callable[[EventStore, bool], T]) -> T:
        """``run(store, refreshed)`` for a read of the projections (standings, lists, the
        audit trail). Without replicas: on the primary under ``projections``, the query
        bringing them up to date itself (``refreshed`` False), as ever. With replicas:
        brought up to date on the primary first, then ``run`` on a replica that has
        replayed past the primary's WAL position after that catch-up (so every write
        committed before this request, ``who``'s own among them, shows), else on the
        primary; ``refreshed`` is True."""
        if self.reads is None:
            with self.projections:
                return run(self.store, False)
        with self.projections:
            refresh(self.store)
        fence = self.reads.primary_lsn(since=self.reads.clock())
        return self.reads.read(lambda store: run(store, True), client=_client(who), fence=fence)

    def _reader(self, store: EventStore) -> MatchReader:
        if store is self.store:
            return self.reader
        reader = self._readers.get(store)
        if reader is None:
            reader = self._readers[store] = MatchReader(MatchService(store))
        return reader

    def wrote(self, who: Principal | None) -> None:
        """After ``who``'s write: its next reads must see it (read-your-writes)."""
        if self.reads is not None:
            self.reads.wrote(_client(who))

    def woken_at(self, wake: asyncio.Event) -> float:
        """When the first live stream woke from ``wake`` (after the commit that set it):
        every stream woken by it asks for the primary's position as of then, so they
        share one query."""
        return self._woken.setdefault(wake, time.monotonic())

    def current(self, since: float) -> int:
        """The primary's WAL position read after monotonic time ``since`` (0 without
        replicas): a live stream woken by a commit reads at least that far."""
        return 0 if self.reads is None else self.reads.primary_lsn(since=since)


def _client(who: Principal | None) -> str | None:
    """Whose writes a read must see: the token's (anonymous callers write nothing)."""
    return None if who is None else who.token_hash

