"""Read scale-out benchmark: a read-heavy load with 0 and 1 hot standbys (``--read-db``).

Makes the project's own PostgreSQL primary and streaming hot standby
(``tests/replica_cluster.py``: ``pg_createcluster`` on free ports, dropped at the end;
the machine's shared cluster is never touched). For each setup, on a fresh schema:

* ``kartludo --db PRIMARY [--read-db STANDBY] serve`` on a free loopback port (a
  subprocess, always terminated);
* ``--tables`` matches, each played by one client thread (the seat to act POSTs a bot
  command; the TD deals when a deal ends);
* ``--watchers`` anonymous live-stream readers per table (Server-Sent Events),
  ``--replayers`` threads that loop ``GET /replay`` and ``GET /events`` on the tables,
  and ``--leaguers`` threads that loop ``GET /standings``, ``GET /matches`` and
  ``GET /audit`` (read models: brought up to date on the primary, read on a replica).

Prints, per setup: accepted commands/s; replays, event lists and league reads/s; events
delivered to watchers/s; the primary's CPU (seconds of CPU per second of wall time,
summed over its postmaster and every child process, from /proc) and its share of all
the CPU the database processes used (primary + standby). The machine's cores are
shared with anything else running: compare the two rows of one run, not runs.

    python bench/replicas.py [--tables 2] [--watchers 16] [--replayers 4] [--leaguers 2] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cpu import tree_cpu_s  # noqa: E402  (bench/cpu.py, beside this script)
from replica_cluster import ReplicaCluster, missing_tools, replica_cluster  # noqa: E402

from service import free_port, stop  # noqa: E402  (bench/service.py, beside this script)


def cluster_cpu(name: str, version: str) -> float:
    """CPU seconds used so far by a cluster's postmaster and its children."""
    pid_file = Path(f"/var/lib/postgresql/{version}/{name}/postmaster.pid")
    return tree_cpu_s(int(pid_file.read_text().split()[0]))


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class Load:
    def __init__(self) -> None:
        self.commands = 0
        self.replays = 0
        self.event_lists = 0
        self.league = 0
        self.delivered = 0
        self.failed = 0
        self.why: dict[str, int] = {}
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def fail(self, what: str) -> None:
        if self.stop.is_set():
            return  # the server is being stopped: not a failure of the load
        with self.lock:
            self.failed += 1
            self.why[what] = self.why.get(what, 0) + 1

    def add(self, name: str, n: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + n)


def quietly(work):  # noqa: ANN001, ANN201 - a thread's body
    """A client thread (its arguments end with the ``Load`` and a seed): an error once
    the server is being stopped is not a failure."""
    def run(*args):  # noqa: ANN002, ANN202
        try:
            work(*args)
        except httpx.HTTPError as exc:
            args[-2].fail(f"{work.__name__} {type(exc).__name__}")
    return run


def play(base: str, td: str, mid: str, tokens: dict[str, str], load: Load, seed: int) -> None:
    """The seat to act plays a random legal command; the TD deals between deals."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=30) as http:
        while not load.stop.is_set():
            state = http.get(f"/matches/{mid}/state", headers=bearer(td)).json()
            if state["status"] == "finished":
                return
            if not state["to_act"]:
                r = http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td))
                if r.status_code != 201:
                    load.fail(f"deal {r.status_code}")
                continue
            player = state["to_act"][0]
            legal = http.get(f"/matches/{mid}/legal", headers=bearer(tokens[player])).json()
            verb, *args = rng.choice(legal).split()
            r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                          headers=bearer(tokens[player]))
            if r.status_code == 201:
                load.add("commands")
            else:
                load.fail(f"command {r.status_code}")


def watch(base: str, mid: str, load: Load) -> None:
    """An anonymous live-stream reader: counts the events delivered to it."""
    with httpx.Client(timeout=httpx.Timeout(30, read=None)) as http:
        try:
            with http.stream("GET", f"{base}/matches/{mid}/stream") as resp:
                for line in resp.iter_lines():
                    if load.stop.is_set():
                        return
                    if line.startswith("data:"):
                        load.add("delivered")
        except httpx.HTTPError as exc:
            load.fail(f"stream {type(exc).__name__}")


def replays(base: str, mids: list[str], load: Load, seed: int) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=30) as http:
        while not load.stop.is_set():
            mid = rng.choice(mids)
            r = http.get(f"/matches/{mid}/replay")
            load.add("replays") if r.status_code == 200 else load.fail(f"replay {r.status_code}")
            r = http.get(f"/matches/{mid}/events")
            load.add("event_lists") if r.status_code == 200 else load.fail(f"events {r.status_code}")


def league(base: str, load: Load, seed: int) -> None:
    """Standings, the match list and the audit trail, in turn (anonymous)."""
    with httpx.Client(base_url=base, timeout=30) as http:
        while not load.stop.is_set():
            path = ("/standings", "/matches", "/audit")[seed % 3]
            seed += 1
            r = http.get(path)
            load.add("league") if r.status_code == 200 else load.fail(f"{path} {r.status_code}")


def run(cluster: ReplicaCluster, replicas: int, args: argparse.Namespace) -> dict[str, float]:
    import psycopg

    from kartludo.app.tokens import issue
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    schema = "bench_" + uuid.uuid4().hex[:8]
    with psycopg.connect(cluster.primary_url(), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    primary, standby = cluster.primary_url(schema), cluster.standby_url(schema)
    engine = create_engine(primary)
    upgrade(engine)
    engine.dispose()
    with EventStore.open(primary) as store:
        td = issue(store, "td", label="bench")
    cluster.wait_replayed()
    port = free_port()
    command = [sys.executable, "-m", "kartludo.cli.main", "--db", primary]
    if replicas:
        command += ["--read-db", standby]
    command += ["serve", "--port", str(port), "--no-access-log", "--anonymous-streams", "100000",
                "--anonymous-streams-per-address", "100000"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    load = Load()
    threads: list[threading.Thread] = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/games", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        tables = []
        with httpx.Client(base_url=base, timeout=30) as http:
            for i in range(args.tables):
                made = http.post("/matches", json={"game": "hakamo", "players": ["ann", "bob", "cy", "dan"],
                                                   "seed": i + 1}, headers=bearer(td)).json()
                tables.append((made["match"], made["tokens"]))
                http.post(f"/matches/{made['match']}/deals", json={}, headers=bearer(td)).raise_for_status()
        mids = [mid for mid, _ in tables]
        for mid, _ in tables:
            threads += [threading.Thread(target=watch, args=(base, mid, load), daemon=True)
                        for _ in range(args.watchers)]
        threads += [threading.Thread(target=quietly(replays), args=(base, mids, load, i), daemon=True)
                    for i in range(args.replayers)]
        threads += [threading.Thread(target=quietly(league), args=(base, load, i), daemon=True)
                    for i in range(args.leaguers)]
        for t in threads:
            t.start()
        time.sleep(1)  # the watchers connect
        cpu0 = (cluster_cpu(cluster.primary_name, cluster.version), cluster_cpu(cluster.standby_name, cluster.version))
        players = [threading.Thread(target=quietly(play), args=(base, td, mid, tokens, load, i), daemon=True)
                   for i, (mid, tokens) in enumerate(tables)]
        start = time.monotonic()
        counts0 = (load.commands, load.replays, load.event_lists, load.delivered, load.league)
        for t in players:
            t.start()
        time.sleep(args.seconds)
        counts1 = (load.commands, load.replays, load.event_lists, load.delivered, load.league)
        cpu1 = (cluster_cpu(cluster.primary_name, cluster.version), cluster_cpu(cluster.standby_name, cluster.version))
        wall = time.monotonic() - start
        load.stop.set()
    finally:
        stop(server, 10)
        for t in threads:
            t.join(2)
        with psycopg.connect(cluster.primary_url(), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    p_cpu, s_cpu = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    c, r, e, d, g = (b - a for a, b in zip(counts0, counts1))
    return {"commands/s": c / wall, "replays/s": r / wall, "event lists/s": e / wall, "delivered/s": d / wall,
            "league/s": g / wall,
            "primary cpu": p_cpu / wall, "standby cpu": s_cpu / wall,
            "primary share": p_cpu / (p_cpu + s_cpu) if p_cpu + s_cpu else float("nan"), "failed": load.failed,
            "why": load.why}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--watchers", type=int, default=16, help="live-stream watchers per table")
    parser.add_argument("--replayers", type=int, default=4)
    parser.add_argument("--leaguers", type=int, default=2, help="standings/match list/audit readers")
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    problem = missing_tools()
    if problem:
        sys.exit(f"cannot make a primary and a standby here: {problem}")
    print(f"{args.tables} tables, {args.watchers} watchers each, {args.replayers} replay readers, "
          f"{args.leaguers} league readers, "
          f"{args.seconds:.0f} s per setup, {os.cpu_count()} cores (shared)")
    with replica_cluster() as cluster:
        rows = [(n, run(cluster, n, args)) for n in (0, 1)]
    print(f"{'replicas':>8} {'commands/s':>10} {'replays/s':>9} {'events/s':>9} {'league/s':>8} {'delivered/s':>11} "
          f"{'primary cpu':>11} {'standby cpu':>11} {'primary share':>13} {'failed':>6}")
    for n, f in rows:
        print(f"{n:>8} {f['commands/s']:>10.1f} {f['replays/s']:>9.1f} {f['event lists/s']:>9.1f} "
              f"{f['league/s']:>8.1f} {f['delivered/s']:>11.0f} {f['primary cpu']:>10.2f}c {f['standby cpu']:>10.2f}c "
              f"{f['primary share']:>12.0%} {f['failed']:>6}" + (f"  {f['why']}" if f["why"] else ""))
    print("cpu: CPU seconds per wall second (cores) of the cluster's postmaster and children; "
          "share: the primary's part of the two clusters' CPU")


if __name__ == "__main__":
    main()
