"""Wake-ups for live streams when anything is committed, by this process or another.

On PostgreSQL one LISTEN connection on ``NOTIFY_CHANNEL`` (every commit to ``events``
notifies it); on SQLite a poll of ``head_position()`` every ``POLL_SECONDS``.
Subscribers take ``hub.changed`` *before* reading, then wait on it: no wake-up is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import anyio.to_thread

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
