"""Functions run in child processes by the store tests (importable by name)."""

from __future__ import annotations

import time

from sample_events import Noted

from kartludo.store import ConcurrencyConflict, EventStore


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


def append_threads(url: str, writer: int, threads: int, each: int) -> None:
    """Several threads of one process append to streams of their own at once (one to
    three events per append, now and then two streams in one transaction)."""
    import threading

    store = EventStore.open(url, create=False)
    errors: list[BaseException] = []

    def run(t: int) -> None:
        versions = [0, 0, 0]
        try:
            for i in range(each):
                k = i % 3
                events = [Noted(n=i * 10 + j) for j in range(1 + i % 3)]
                if i % 7 == 6:
                    other = (k + 1) % 3
                    store.append_together([(f"p{writer}t{t}-{k}", events, versions[k]),
                                           (f"p{writer}t{t}-{other}", [Noted(n=-i)], versions[other])])
                    versions[other] += 1
                else:
                    store.append(f"p{writer}t{t}-{k}", events, versions[k])
                versions[k] += len(events)
        except BaseException as exc:  # noqa: BLE001 - reported through the exit code
            errors.append(exc)

    workers_ = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for w in workers_:
        w.start()
    for w in workers_:
        w.join()
    store.close()
    if errors:
        raise errors[0]


def follow_until(url: str, expected: int, seconds: float, queue) -> None:
    """Follow the global order until ``expected`` events were seen (or time runs out),
    reporting every position seen, in the order seen."""
    store = EventStore.open(url, create=False)
    seen: list[int] = []
    last = 0
    deadline = time.monotonic() + seconds
    while len(seen) < expected and time.monotonic() < deadline:
        batch = store.read_all(last, 200)
        seen.extend(rec.position for rec in batch)
        if batch:
            last = batch[-1].position
        else:
            time.sleep(0.001)
    store.close()
    queue.put(seen)
