"""Live streams: wake-ups per match when something is committed (by this process or
another), and each caller's allowance of open streams.

On PostgreSQL one LISTEN connection on ``NOTIFY_CHANNEL`` (every commit notifies it with
the stream it wrote); on SQLite a poll of ``head_position()`` every ``POLL_SECONDS``,
then of the streams written since. Subscribers take ``hub.changed_for(match)`` (or
``hub.changed``, woken by any commit) *before* reading, then wait on it: no wake-up is
lost. A stream on a match waits only for that match's commits, and reads them from the
match's live feed (``app.reading.reader.LiveFeed``): one read and one fold per commit
however many streams watch it, then one redaction per kind of viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import threading
import time
import weakref
from collections import Counter

import anyio.to_thread
from litestar.exceptions import TooManyRequestsException

from kartludo.app.tokens import TOKENS_STREAM, Principal, seat_tokens_stream
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.service.limits import Limits
from kartludo.store import EventStore, presence
from kartludo.store.schema import NOTIFY_CHANNEL

POLL_SECONDS = 0.2
SEAT_TOKENS_PREFIX = seat_tokens_stream("")
#: the NOTIFY payload of a write naming no single stream (``store.postgres.ANY_STREAM``)
ANY_STREAM = "*"
log = logging.getLogger(__name__)


async def woken(wake: asyncio.Event, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``wake``; whether it is set now. Asked of the
    event, not of how the wait ended: ``asyncio.wait_for`` may time out in the very loop
    iteration that sets the event (the waiting task is cancelled before it resumes), and
    a stream that took that for "nothing new" slept on a fresh event, its commit's
    wake-up lost until the next commit to its match."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wake.wait(), timeout=timeout)
    return wake.is_set()


class LiveHub:
    def __init__(self, store: EventStore, url: str) -> None:
        self.store = store
        self.url = url
        self.changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: per match, the event its streams wait on (held by them: dropped with the last)
        self._waiting: weakref.WeakValueDictionary[str, asyncio.Event] = weakref.WeakValueDictionary()
        #: matches written since the last bump (None: unknown, wake every match)
        self._written: set[str] | None = set()
        #: bumps so far: a read begun at generation g has every commit of the bumps up to g
        self.generation = 0

    def changed_for(self, match_id: str) -> asyncio.Event:
        """What a stream on ``match_id`` waits on: set by the next commit to that match
        (or one naming no stream). Only for the event loop's thread."""
        wake = self._waiting.get(match_id)
        if wake is None:
            wake = self._waiting[match_id] = asyncio.Event()
        return wake

    def bump(self) -> None:
        """Wake the waiters of ``changed`` and of the matches written since the last bump
        (``_written``; None: every match)."""
        self.generation += 1
        old, self.changed = self.changed, asyncio.Event()
        old.set()
        written, self._written = self._written, set()
        for match_id in list(self._waiting.keys()) if written is None else written:
            wake = self._waiting.pop(match_id, None)
            if wake is not None:
                wake.set()

    def wrote(self, streams: list[str] | None) -> None:
        """Commits to ``streams`` (None: unknown ones): wake whom they concern. A match's
        stream or its seat tokens wake that match's streams; the tokens stream (a
        revocation, an expiry) every stream; other streams (series, hearings) only
        ``changed``. On the event loop's thread."""
        if streams is None or self._written is None:
            self._written = None
        else:
            for stream in streams:
                if stream.startswith(MATCH_PREFIX):
                    self._written.add(stream.removeprefix(MATCH_PREFIX))
                elif stream.startswith(SEAT_TOKENS_PREFIX):
                    self._written.add(stream.removeprefix(SEAT_TOKENS_PREFIX))
                elif stream == TOKENS_STREAM:
                    self._written = None
                    break
        self.bump()

    def notify(self, match_id: str | None = None) -> None:
        """Wake the subscribers from any thread (after a commit by this process): those
        of ``match_id`` (None: of every match)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.wrote, None if match_id is None else [match_stream(match_id)])

    def elsewhere(self) -> None:
        """Wake the followers of what is no match's stream (a hearing room, a
        hypothetical) from any thread: ``changed`` only, no match's live stream."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.wrote, [])

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.changed = asyncio.Event()  # bound to the running loop
        runner = self._listen if self.store.backend == "postgresql" else self._poll
        self._task = asyncio.create_task(runner())

    async def stop(self) -> None:
        self._loop = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def _poll(self) -> None:
        head = await anyio.to_thread.run_sync(self.store.head_position)
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                now = await anyio.to_thread.run_sync(self.store.head_position)
            except Exception as exc:  # noqa: BLE001 - a busy database: try again next tick
                log.debug("head_position failed (%s); polling on", exc)
                continue
            if now != head:
                try:
                    written = await anyio.to_thread.run_sync(self._streams_between, head, now)
                except Exception as exc:  # noqa: BLE001 - a busy database: wake everyone rather than miss one
                    log.debug("reading the streams written failed (%s); waking every stream", exc)
                    written = None
                head = now
                self.wrote(written)

    def _streams_between(self, after: int, upto: int) -> list[str] | None:
        """The streams written between two heads (None: too many rows to look, an import)."""
        if upto - after > 10_000:
            return None
        return list(dict.fromkeys(r.stream_id for r in self.store.select_events(after, upto - after, upto=upto,
                                                                                 settled=False)))

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.store.conninfo(), autocommit=True) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.wrote(None)  # anything committed while (re)connecting
                    async for note in conn.notifies():
                        # the payload names the stream written ("*": an import, any stream)
                        self.wrote(None if note.payload in ("", ANY_STREAM) else [note.payload])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reconnect after a lost connection
                log.warning("LISTEN %s failed (%s); retrying", NOTIFY_CHANNEL, exc)
                await asyncio.sleep(1.0)


class StreamSlot:
    """One open live stream's place in its caller's allowance (given back once)."""

    def __init__(self, slots: StreamSlots, keys: list[str]) -> None:
        self._slots = slots
        self._keys = keys

    def release(self) -> None:
        keys, self._keys = self._keys, []
        if keys:
            self._slots._give_back(keys)


class StreamSlots:
    """How many live streams each caller holds open: per token (seat or TD), and
    without a token per client address and in all (``Limits``). Beyond its allowance
    a caller gets a 429 until it closes one."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, who: Principal | None, address: str) -> StreamSlot:
        lim = self.limits
        if who is None:
            wanted = [("anonymous", lim.anonymous_streams, "live streams without a token on this server"),
                      (f"address {address}", lim.anonymous_streams_per_address,
                       f"live streams without a token from {address}")]
        else:
            cap = lim.streams_per_td if who.role == "td" else lim.streams_per_seat
            wanted = [(f"token {who.token_hash}", cap, "live streams for this token")]
        with self._lock:
            for key, cap, what in wanted:
                if self._open[key] >= cap:
                    raise TooManyRequestsException(f"too many open {what} (at most {cap}): close one first")
            for key, _, _ in wanted:
                self._open[key] += 1
        return StreamSlot(self, [key for key, _, _ in wanted])

    def _give_back(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
                self._open[key] -= 1
                if self._open[key] <= 0:
                    del self._open[key]



class Watchers:
    """How many watchers (live streams in the public view) each match has open, across
    every server process on the database: this process counts its own streams and
    publishes them (``store.presence``: its rows, rewritten whenever a count changes and
    every few seconds), and a count sums every process's fresh rows. When the database
    cannot say (busy, read-only), this process's own count is given.

    A count read from the database stands for ``COUNT_FOR_S``: every state and command
    response of a seat carries it, and the other processes' rows change that seldom
    anyway (whenever their count changes, and every ``presence.REFRESH_S``); this
    process's own streams always count as they are."""

    #: how long a count read from the database stands (seconds)
    COUNT_FOR_S = 1.0

    def __init__(self, store: EventStore) -> None:
        self.store = store
        #: this process (one ``Services``) among the database's servers
        self.process = f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._dirty: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._counted: dict[str, tuple[float, int | None]] = {}  # match -> (when read, count read)

    def join(self, match_id: str) -> None:
        with self._lock:
            self._open[match_id] += 1
        self._changed()

    def leave(self, match_id: str) -> None:
        with self._lock:
            self._open[match_id] -= 1
            if self._open[match_id] <= 0:
                del self._open[match_id]
        self._changed()

    def own(self, match_id: str) -> int:
        with self._lock:
            return self._open.get(match_id, 0)

    def count(self, match_id: str) -> int:
        """The match's watchers on every process (blocking: a store read, at most one a
        match each ``COUNT_FOR_S``)."""
        now = time.monotonic()
        read = self._counted.get(match_id)
        if read is None or now - read[0] >= self.COUNT_FOR_S:
            read = now, presence.count(self.store, match_id)
            if len(self._counted) >= 4096:  # forget what stands no longer
                self._counted = {m: r for m, r in self._counted.items() if now - r[0] < self.COUNT_FOR_S}
            self._counted[match_id] = read
        found = read[1]
        own = self.own(match_id)  # (ahead of the table until this process has published them)
        return own if found is None else max(found, own)

    def publish(self) -> bool:
        """Write this process's counts now (blocking)."""
        with self._lock:
            counts = dict(self._open)
        return presence.publish(self.store, self.process, counts)

    def _changed(self) -> None:
        loop, dirty = self._loop, self._dirty
        if loop is not None and dirty is not None and not loop.is_closed():
            loop.call_soon_threadsafe(dirty.set)

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._dirty = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with self._lock:
            self._open.clear()
        with contextlib.suppress(Exception):
            await anyio.to_thread.run_sync(self.publish)  # this process's rows: gone

    async def _run(self) -> None:
        dirty = self._dirty
        assert dirty is not None
        changed = True
        while True:
            dirty.clear()
            if changed or self._open:  # a heartbeat only while this process has watchers
                await anyio.to_thread.run_sync(self.publish)
            changed = await woken(dirty, presence.REFRESH_S)
