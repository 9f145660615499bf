"""Wake-ups for live streams when anything is committed, by this process or another.

On PostgreSQL one LISTEN connection on ``NOTIFY_CHANNEL`` (every commit to ``events``
notifies it); on SQLite a poll of ``head_position()`` every ``POLL_SECONDS``.
Subscribers take ``hub.changed`` *before* reading, then wait on it: no wake-up is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import Counter

import anyio.to_thread
from litestar.exceptions import TooManyRequestsException

from kartludo.app.tokens import Principal
from kartludo.service.limits import Limits
from kartludo.store import EventStore
from kartludo.store.schema import NOTIFY_CHANNEL

POLL_SECONDS = 0.2
log = logging.getLogger(__name__)


class LiveHub:
    def __init__(self, store: EventStore, url: str) -> None:
        self.store = store
        self.url = url
        self.changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def bump(self) -> None:
        old, self.changed = self.changed, asyncio.Event()
        old.set()

    def notify(self) -> None:
        """Wake the subscribers from any thread (after a commit by this process)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.bump)

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
                head = now
                self.bump()

    def _conninfo(self) -> str:
        url = self.store.engine.url.set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._conninfo(), autocommit=True) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.bump()  # anything committed while (re)connecting
                    async for _note in conn.notifies():
                        self.bump()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reconnect after a lost connection
                log.warning("LISTEN %s failed (%s); retrying", NOTIFY_CHANNEL, exc)
                await asyncio.sleep(1.0)


class StreamSlot:
    """One open live stream's place in its caller's allowance (given back once)."""

    def __init__(self, slots: "StreamSlots", keys: list[str]) -> None:
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
