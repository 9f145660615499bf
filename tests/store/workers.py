"""Functions run in child processes by the store tests (importable by name)."""

from __future__ import annotations

import time

from kartludo.store import ConcurrencyConflict, EventStore

from sample_events import Noted


def append_with_retries(url: str, stream: str, writer: int, count: int, barrier, queue) -> None:
    """Append ``count`` events one at a time, re-reading the version after a conflict.

    All writers start together and pause between reading and appending, as a
    player's client would, so that races really happen."""
    store = EventStore.open(url, create=False)
    conflicts = 0
    barrier.wait()
    for i in range(count):
        while True:
            version = store.stream_version(stream)
            time.sleep(0.002)
            try:
                store.append(stream, [Noted(n=writer * 1000 + i, text=f"w{writer}")], version, actor=f"w{writer}")
                break
            except ConcurrencyConflict:
                conflicts += 1
    store.close()
    queue.put((writer, conflicts))


def append_streams(url: str, writer: int, count: int) -> None:
    """Append to many streams as fast as possible (for the follower test)."""
    store = EventStore.open(url, create=False)
    for i in range(count):
        store.append(f"w{writer}-{i}", [Noted(n=i), Noted(n=i + 1)], 0)
    store.close()


def follow(url: str, seconds: float, queue) -> None:
    """Follow the global order, as a projection would, and report every position seen."""
    store = EventStore.open(url, create=False)
    seen: list[int] = []
    last = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        batch = store.read_all(last, 500)
        for rec in batch:
            seen.append(rec.position)
        if batch:
            last = batch[-1].position
    for rec in store.iter_all(last):
        seen.append(rec.position)
    store.close()
    queue.put(seen)
