"""Live streams against command throughput and memory, on a long match.

On each backend (a temporary SQLite file; a temporary PostgreSQL database, skipped if
unreachable), in one run and one server (``kartludo serve``, a subprocess):

* a long Uxinjo match of ``--deals`` deals (random bots) is written first;
* throughput: ``--clients`` HTTP bot clients (``bench/service.py``'s loop: create,
  deal, state, commands, on matches of their own) for ``--seconds``, with no live
  stream open, then with ``--subscribers`` idle anonymous streams open on the long
  match, alternated ``--rounds`` times. Prints commands/s of each and the ratio
  subscribed / none (target >= 0.9);
* memory: the server's RSS before and after opening ``--streams`` anonymous streams on
  the long match, and after another process has played a deal on it (every stream
  woken and sent every event: each stream's count is checked). Prints the growth
  (target <= 100 MB).

    python bench/streams.py [--deals 2000] [--clients 4] [--seconds 8] [--subscribers 16]
                            [--streams 200] [--rounds 2] [--pg URL | --no-pg | --pg-only]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

from fixtures import long_match  # noqa: E402

from service import Stats, drop_pg, free_port, http_client, pg_database, stop  # noqa: E402


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_server(url: str, log_path: str, streams: int) -> tuple[subprocess.Popen[bytes], str]:
    import httpx

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(log_path, "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [sys.executable, "-m", "kartludo.cli.main", "--db", url, "serve", "--host", "127.0.0.1", "--port", str(port),
         "--no-access-log", "--anonymous-streams", str(streams + 16),
         "--anonymous-streams-per-address", str(streams + 16)],
        stdout=log, stderr=subprocess.STDOUT)
    up_by = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}; see {log_path}")
        try:
            httpx.get(f"{base}/matches/none/state", timeout=1)
            return proc, base
        except httpx.HTTPError:
            if time.monotonic() > up_by:
                raise RuntimeError(f"server not answering on {base}; see {log_path}") from None
            time.sleep(0.1)


class Subscriber:
    """One open SSE stream: counts the events it receives."""

    def __init__(self) -> None:
        self.events = 0
        self.positions: list[int] = []
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self, http, path: str) -> None:
        async with http.get(path, timeout=None) as r:
            self.ready.set()
            async for raw in r.content:
                line = raw.decode().strip()
                if line.startswith("id:"):
                    self.events += 1
                    self.positions.append(int(line[3:]))


async def open_streams(http, match_id: str, after: int, n: int) -> list[Subscriber]:
    subs = [Subscriber() for _ in range(n)]
    for s in subs:
        s.task = asyncio.create_task(s.run(http, f"/matches/{match_id}/stream?after={after}"))
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in subs)), 120)
    return subs


async def close_streams(subs: list[Subscriber]) -> None:
    for s in subs:
        assert s.task is not None
        s.task.cancel()
    await asyncio.gather(*(s.task for s in subs if s.task is not None), return_exceptions=True)


def play_more(url: str, match_id: str, deals: int) -> int:
    """Another process's writes to the long match (the streams learn of them from the store)."""
    from kartludo.app.matches.pipeline import MatchService, stream_of
    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.store import EventStore

    store = EventStore.open(url)
    try:
        before = store.read_stream(stream_of(match_id))[-1].version
        play_match(MatchService(store), "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", ["random"]),
                   random.Random(7), match_id=match_id, max_deals=deals, max_commands=10**6)
        return store.read_stream(stream_of(match_id))[-1].version - before
    finally:
        store.close()


def bench(url: str, args, tmp: str, label: str) -> None:
    import aiohttp

    from kartludo.app.matches.pipeline import stream_of
    from kartludo.app.tokens import issue
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(url))
    store = EventStore.open(url)
    t0 = time.perf_counter()
    long_id, events = long_match(store, args.deals, seed=3)
    head = store.read_stream(stream_of(long_id))[-1].position
    secret = issue(store, "td", label="bench")
    store.close()
    print(f"{label}: long match {long_id}: {args.deals} deals, {events:,} events "
          f"(written in {time.perf_counter() - t0:.0f} s)")
    proc, base = start_server(url, os.path.join(tmp, f"serve-{label}.log"), args.streams)
    try:
        async def load(stats: Stats) -> float:
            conn = aiohttp.TCPConnector(limit=args.clients)
            async with aiohttp.ClientSession(base, connector=conn, timeout=aiohttp.ClientTimeout(total=60)) as http:
                t = time.perf_counter()
                await asyncio.gather(*(http_client(i, http, {"Authorization": f"Bearer {secret}"},
                                                   t + args.seconds, stats, args) for i in range(args.clients)))
                return time.perf_counter() - t

        async def run() -> None:
            rates: dict[int, list[float]] = {0: [], args.subscribers: []}
            conn = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(base, connector=conn) as watch:
                for _ in range(args.rounds):
                    for n in (0, args.subscribers):
                        subs = await open_streams(watch, long_id, head, n)
                        await asyncio.sleep(1.0)
                        stats = Stats()
                        elapsed = await load(stats)
                        rates[n].append(stats.accepted / elapsed)
                        await close_streams(subs)
                none, some = statistics.median(rates[0]), statistics.median(rates[args.subscribers])
                print(f"{label}: commands/s with 0 streams {none:7.1f}   with {args.subscribers} idle streams on the "
                      f"long match {some:7.1f}   ratio {some / none:5.2f} (target >= 0.9)")

                await asyncio.sleep(1.0)
                before = rss_mb(proc.pid)
                subs = await open_streams(watch, long_id, head, args.streams)
                await asyncio.sleep(2.0)
                opened = rss_mb(proc.pid)
                written = await asyncio.to_thread(play_more, url, long_id, 1)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and any(s.events < written for s in subs):
                    await asyncio.sleep(0.2)
                after = rss_mb(proc.pid)
                counts = sorted({s.events for s in subs})
                ordered = all(s.positions == sorted(set(s.positions)) for s in subs)
                await close_streams(subs)
                print(f"{label}: RSS {before:6.1f} MB; with {args.streams} streams open {opened:6.1f} MB; after "
                      f"another process wrote {written} events to the match {after:6.1f} MB   growth "
                      f"{max(opened, after) - before:6.1f} MB (target <= 100)   events per stream {counts}"
                      f"{'' if ordered else '  OUT OF ORDER OR DUPLICATED'}")

        asyncio.run(run())
    finally:
        stop(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--subscribers", type=int, default=16)
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max-deals", type=int, default=3)
    ap.add_argument("--max-commands", type=int, default=2000)
    ap.add_argument("--pg", default=os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--pg-only", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.pg_only:
            bench(f"sqlite:///{os.path.join(tmp, 'streams.db')}", args, tmp, "sqlite")
        if args.no_pg:
            return
        name = f"kartludo_bench_streams_{os.getpid()}"
        try:
            url = pg_database(args.pg, name)
        except Exception as exc:  # noqa: BLE001 - a benchmark may run without PostgreSQL
            print(f"postgresql skipped: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            return
        try:
            bench(url, args, tmp, "postgresql")
        finally:
            drop_pg(args.pg, name)


if __name__ == "__main__":
    main()
