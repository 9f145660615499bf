"""Service load benchmark: the HTTP match service against the same play in-process.

On each backend (a temporary SQLite file; a temporary PostgreSQL database, skipped if
unreachable), in one run:

* HTTP: ``kartludo --db URL serve`` on a free loopback port (a subprocess, always
  terminated), driven by N concurrent bot clients (asyncio + one ``aiohttp`` session:
  the lighter client leaves more of the shared cores to the server)
  for a bounded time. Each client loops: create a match (TD token; rotating over the four
  games, players named after the client), and plays it as a table client would: every
  response carries the match in the caller's view (``to_act``) and, for a seat, its legal
  commands, so a seat that moves again POSTs at once; when another seat is to move the
  client first asks that seat's ``GET state`` (seat token; it carries ``legal``); when
  nobody is to act it deals (TD; matches are created without ``auto_deal``, so both
  arms deal alike and leave after as many deals). A match is left after ``--max-deals`` deals or
  ``--max-commands`` commands (random play can be long), and the next one is created.
  Every POST command is timed; 2xx are accepted commands, 409s (refusals) and other
  statuses are counted apart.
* In-process baseline, on a fresh database of the same backend: the same loop with the
  same N, as N threads sharing one ``EventStore`` with one ``MatchService`` per thread
  (as the server does), calling ``create``/``load``/``deal``/``legal``/``act`` directly
  (no HTTP, no seat tokens).

Prints accepted commands/s, p50/p99 POST-command latency, in-process commands/s and the
ratio HTTP / in-process (target >= 0.5 at 16 clients on PostgreSQL), and, from ``/proc``,
the CPU each accepted command cost the server, PostgreSQL, the clients and the machine,
with the latency floor that cost sets for that many clients on this machine's cores (the
machine's figure counts everything running on it: read it on an otherwise quiet machine). With ``--commands
N`` each client (HTTP or in-process) gives N commands and stops, so both get as far into
their matches: in a fixed time the faster in-process clients reach the cheaper commands
of long deals, which flatters them.

With ``--baseline REF`` it measures the HTTP service of this tree against the tree at
REF instead (``git archive``, as ``bench/scaling.py``): each run a fresh process and a
fresh database, the trees alternated ``--rounds`` times; prints the medians and the
ratio this / baseline (a regression of the service shows as a ratio below 1).

    python bench/service.py [--clients 16] [--seconds 20] [--commands N] [--pg URL | --no-pg]
                            [--baseline REF [--rounds 3]]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from typing import NamedTuple

from cpu import machine_busy_s, named_cpu_s, processes, tree_cpu_s  # bench/cpu.py, beside this script

GAMES = ("uxinjo", "hakamo", "laugavatnsmanni", "svoi-kozyri")


class Stats:
    def __init__(self) -> None:
        self.accepted = 0
        self.refused = 0  # 409s / rule refusals / conflicts
        self.other: Counter[str] = Counter()
        self.latencies: list[float] = []  # seconds, every POST command
        self.matches = 0
        self.deals = 0
        self.cpu: tuple[CpuSample | None, CpuSample | None] = (None, None)  # HTTP runs: before, after
        self.lock = threading.Lock()

    def merge(self, o: Stats) -> None:
        with self.lock:
            self.accepted += o.accepted
            self.refused += o.refused
            self.other.update(o.other)
            self.latencies.extend(o.latencies)
            self.matches += o.matches
            self.deals += o.deals


def seat_count(game: str) -> int:
    from kartludo.engine.registry import get_game

    return get_game(game).player_counts[0]


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


# --- HTTP -------------------------------------------------------------------------------
async def http_client(i: int, http, td: dict[str, str], deadline: float, stats: Stats, args) -> None:
    import aiohttp
    import msgspec

    async def call(method: str, url: str, headers: dict[str, str], body: object = None) -> tuple[int, object]:
        data = None if body is None else msgspec.json.encode(body)
        hdrs = headers if data is None else {**headers, "Content-Type": "application/json"}
        async with http.request(method, url, data=data, headers=hdrs) as r:
            raw = await r.read()
            return r.status, (msgspec.json.decode(raw) if raw else None)

    rng = random.Random(f"http:{i}")
    k = i
    quota = getattr(args, "quota", None) or float("inf")  # as in ``inproc_worker``
    given = 0
    while time.perf_counter() < deadline and given < quota:
        game = GAMES[k % len(GAMES)]
        k += 1
        players = [f"c{i}p{j}" for j in range(seat_count(game))]
        try:
            status, body = await call("POST", "/matches", td,
                                      {"game": game, "players": players, "seed": rng.getrandbits(32),
                                       "auto_deal": False})  # the client deals, as in-process
            if status >= 300:
                stats.other[f"create {status}"] += 1
                continue
            mid, tokens = body["match"], body["tokens"]
            seat_h = {p: {"Authorization": f"Bearer {t}"} for p, t in tokens.items()}
            stats.matches += 1
            deals = commands = 0
            # what the last response told us: the match (in someone's view) and, when that
            # someone was a seat, its legal commands then
            status, st = await call("GET", f"/matches/{mid}/state", td)
            legal_of: tuple[str, list[str]] | None = None
            while time.perf_counter() < deadline and commands < args.max_commands and given < quota:
                if st["status"] != "in_progress":
                    break
                if not st["to_act"]:
                    if deals >= args.max_deals:
                        break
                    status, body = await call("POST", f"/matches/{mid}/deals", td)
                    if status >= 300:
                        stats.other[f"deal {status}"] += 1
                        break
                    deals += 1
                    stats.deals += 1
                    st, legal_of = body["state"], None
                    continue
                player = rng.choice(st["to_act"])
                if legal_of is None or legal_of[0] != player:
                    # another seat moved last: ask this seat's view (it carries `legal`)
                    status, body = await call("GET", f"/matches/{mid}/state", seat_h[player])
                    if status != 200:
                        stats.other[f"state {status}"] += 1
                        break
                    st, legal_of = body, (player, body["legal"])
                    continue
                if not legal_of[1]:
                    stats.other["no legal"] += 1
                    break
                verb, *words = rng.choice(legal_of[1]).split()
                t0 = time.perf_counter()
                status, body = await call("POST", f"/matches/{mid}/commands", seat_h[player],
                                          {"verb": verb, "args": words, "command_id": uuid.uuid4().hex})
                stats.latencies.append(time.perf_counter() - t0)
                commands += 1
                given += 1
                if status < 300:
                    stats.accepted += 1
                    st, legal_of = body["state"], (player, body["legal"])
                elif status == 409:
                    stats.refused += 1
                    legal_of = None
                else:
                    stats.other[f"command {status}"] += 1
                    break
        except aiohttp.ClientError as exc:
            stats.other[f"http {type(exc).__name__}"] += 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen[bytes], seconds: float = 15.0) -> None:
    """End a server the bench started: asked first, killed if it does not go."""
    proc.terminate()
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def bench_http(url: str, args, log_path: str) -> tuple[Stats, float]:
    import httpx

    from kartludo.app.tokens import issue
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(url))
    store = EventStore.open(url)
    secret = issue(store, "td", label="bench")
    store.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kartludo.cli.main", "--db", url, "serve", "--host", "127.0.0.1",
             "--port", str(port), "--workers", str(args.workers), "--no-access-log"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            up_by = time.monotonic() + 30
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"server exited with {proc.returncode}; see {log_path}")
                try:
                    httpx.get(f"{base}/matches/none/state", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > up_by:
                        raise RuntimeError(f"server not answering on {base}; see {log_path}") from None
                    time.sleep(0.1)
            stats = Stats()

            async def run() -> float:
                import aiohttp

                conn = aiohttp.TCPConnector(limit=args.clients)
                timeout = aiohttp.ClientTimeout(total=60)
                async with aiohttp.ClientSession(base, connector=conn, timeout=timeout) as http:
                    td = {"Authorization": f"Bearer {secret}"}
                    t0 = time.perf_counter()
                    deadline = t0 + args.seconds
                    await asyncio.gather(*(http_client(i, http, td, deadline, stats, args)
                                           for i in range(args.clients)))
                    return time.perf_counter() - t0

            before = cpu_sample(proc.pid)
            elapsed = asyncio.run(run())
            stats.cpu = (before, cpu_sample(proc.pid))
        finally:
            stop(proc)
    if any(key.split()[-1].startswith("5") for key in stats.other):  # show the server's tracebacks
        lines = open(log_path, encoding="utf-8", errors="replace").read().splitlines()
        tb = [ln for ln in lines if not ln.startswith("INFO:")]
        sys.stderr.write("server log (non-INFO lines, last 80):\n" + "\n".join(tb[-80:]) + "\n")
    return stats, elapsed


class CpuSample(NamedTuple):
    """CPU seconds spent so far (Linux ``/proc``): by the benchmark's own process (the
    clients), the server's process tree, PostgreSQL's processes, and the whole machine
    (every core, busy time only). Differences of two samples say where a run's CPU went."""

    client: float
    server: float
    postgres: float
    machine: float
    cores: int


def cpu_sample(server_pid: int) -> CpuSample | None:
    """None where ``/proc`` is not there (the figures are then not printed)."""
    machine = machine_busy_s()
    if machine is None:
        return None
    procs = processes()
    mine = os.times()
    return CpuSample(client=mine.user + mine.system, server=tree_cpu_s(server_pid, procs),
                     postgres=named_cpu_s("postgres", procs), machine=machine, cores=os.cpu_count() or 1)


def cpu_report(backend: str, before: CpuSample | None, after: CpuSample | None, stats: Stats,
               seconds: float, clients: int) -> None:
    """Where the CPU of one HTTP run went, per accepted command, and the latency floor it
    sets: a closed loop of ``clients`` each waiting for its answer keeps ``clients``
    requests in flight, so (Little's law) a client's accepted commands come on average
    clients / throughput apart; with every core busy, throughput is at most cores / the
    machine's CPU per command. A p99 below that floor is out of reach at that cost."""
    if before is None or after is None or not stats.accepted:
        return
    per = {name: (getattr(after, name) - getattr(before, name)) / stats.accepted * 1e3
           for name in ("client", "server", "postgres", "machine")}
    busy = (after.machine - before.machine) / seconds
    ceiling = after.cores / (per["machine"] / 1e3) if per["machine"] else float("inf")
    print(f"{backend:10} http cpu  per accepted command: server {per['server']:.2f} ms, postgres "
          f"{per['postgres']:.2f} ms, clients {per['client']:.2f} ms, machine {per['machine']:.2f} ms; "
          f"{busy:.2f} of {after.cores} cores busy")
    print(f"{backend:10} http cpu  at that cost {after.cores} cores give at most {ceiling:,.0f} commands/s, "
          f"so each of {clients} clients waits on average at least {clients / ceiling * 1e3:.0f} ms between two "
          f"of its accepted commands (Little's law)")


# --- in-process -------------------------------------------------------------------------
def inproc_worker(i: int, store, deadline: float, stats: Stats, args) -> None:
    from kartludo.app.errors import AppError
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.engine.base import BadCommand, IllegalCommand
    from kartludo.store.errors import ConcurrencyConflict, StoreError

    svc = MatchService(store)
    local = Stats()
    rng = random.Random(f"inproc:{i}")
    k = i
    # commands this client gives before it stops (None: until the deadline); a quota
    # makes every client give the same commands whatever the number of clients
    quota = getattr(args, "quota", None) or float("inf")
    given = 0
    try:
        while time.perf_counter() < deadline and given < quota:
            game_name = GAMES[k % len(GAMES)]
            k += 1
            players = [f"c{i}p{j}" for j in range(seat_count(game_name))]
            mid = svc.create(game_name, players, seed=rng.getrandbits(32), actor="bench")
            local.matches += 1
            deals = commands = 0
            while time.perf_counter() < deadline and commands < args.max_commands and given < quota:
                match = svc.load(mid)
                game = match.game
                if match.status != "in_progress":
                    break
                seats = game.to_act(match.state)
                if not seats:
                    if deals >= args.max_deals:
                        break
                    svc.deal(mid, actor="bench")
                    deals += 1
                    local.deals += 1
                    continue
                player = match.players[rng.choice(seats)]
                legal = [c.text() for c in svc.legal(match, player)]
                if not legal:
                    local.other["no legal"] += 1
                    break
                verb, *words = rng.choice(legal).split()
                t0 = time.perf_counter()
                try:
                    svc.act(mid, player, verb, words, command_id=uuid.uuid4().hex)
                    local.accepted += 1
                except (IllegalCommand, AppError, ConcurrencyConflict):
                    local.refused += 1
                except (BadCommand, StoreError) as exc:
                    local.other[type(exc).__name__] += 1
                local.latencies.append(time.perf_counter() - t0)
                commands += 1
                given += 1
    finally:
        stats.merge(local)


def bench_inproc(url: str, args) -> tuple[Stats, float]:
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    engine = create_engine(url)
    upgrade(engine)
    store = EventStore(engine)
    stats = Stats()
    errors: list[BaseException] = []
    import kartludo.app.matches.pipeline  # noqa: F401 - imported before the clock starts, not by the first thread
    from kartludo.engine.registry import load_all

    load_all()

    def target(i: int, deadline: float) -> None:
        try:
            inproc_worker(i, store, deadline, stats, args)
        except BaseException as exc:  # noqa: BLE001 - report, do not hang the benchmark
            errors.append(exc)

    try:
        t0 = time.perf_counter()
        deadline = t0 + args.seconds
        threads = [threading.Thread(target=target, args=(i, deadline)) for i in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    finally:
        store.close()
    for exc in errors:
        stats.other[f"thread crashed: {type(exc).__name__}: {exc}"] += 1
    return stats, elapsed


# --- report -----------------------------------------------------------------------------
def report(backend: str, h: Stats, h_s: float, p: Stats, p_s: float, clients: int) -> None:
    h_rate, p_rate = h.accepted / h_s, p.accepted / p_s
    ratio = h_rate / p_rate if p_rate else float("nan")
    print(f"{backend:10} http      {h_rate:8,.0f} commands/s  p50 {pct(h.latencies, 50) * 1e3:6.1f} ms  "
          f"p99 {pct(h.latencies, 99) * 1e3:6.1f} ms  ({h.accepted} accepted, {h.refused} refused (409), "
          f"{h.matches} matches, {h.deals} deals in {h_s:.1f} s)")
    if h.other:
        print(f"{backend:10} http      other: {dict(h.other)}")
    print(f"{backend:10} in-process {p_rate:7,.0f} commands/s  p50 {pct(p.latencies, 50) * 1e3:6.1f} ms  "
          f"p99 {pct(p.latencies, 99) * 1e3:6.1f} ms  ({p.accepted} accepted, {p.refused} refused, "
          f"{p.matches} matches, {p.deals} deals in {p_s:.1f} s)")
    if p.other:
        print(f"{backend:10} in-process other: {dict(p.other)}")
    print(f"{backend:10} ratio http / in-process {ratio:5.2f}")
    cpu_report(backend, *h.cpu, h, h_s, clients)


def child_http(url: str, clients: int, seconds: float, workers: int) -> None:
    """One HTTP run in this process's tree (a ``--baseline`` child): prints its RESULT."""
    import json

    args = argparse.Namespace(clients=clients, seconds=seconds, max_deals=3, max_commands=2000, workers=workers)
    with tempfile.TemporaryDirectory() as tmp:
        stats, elapsed = bench_http(url, args, os.path.join(tmp, "serve.log"))
    print("RESULT " + json.dumps({"rate": stats.accepted / elapsed, "p50": pct(stats.latencies, 50),
                                  "other": dict(stats.other)}), flush=True)


def bench_against(args: argparse.Namespace) -> None:
    """This tree's HTTP service against ``args.baseline``'s, alternated, on each backend."""
    import statistics

    from scaling import Trees, run_child  # bench/scaling.py: the baseline tree and its child processes

    with tempfile.TemporaryDirectory() as tmp:
        trees = Trees(tmp, args.baseline)
        backends = [] if args.pg_only else ["sqlite"]
        if not args.no_pg:
            try:
                drop_pg(args.pg, f"kartludo_bench_svc_probe_{os.getpid()}")  # reachable?
                backends.append("postgresql")
            except Exception as exc:  # noqa: BLE001 - a benchmark may run without PostgreSQL
                print(f"postgresql skipped: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        for backend in backends:
            rates: dict[str, list[float]] = {t: [] for t in trees.names()}
            for r in range(args.rounds):
                for tree in trees.names() if r % 2 == 0 else trees.names()[::-1]:
                    name = f"kartludo_bench_svc_{tree}_{os.getpid()}_{r}"
                    if backend == "sqlite":
                        url = f"sqlite:///{os.path.join(tmp, name + '.db')}"
                    else:
                        url = pg_database(args.pg, name)
                    try:
                        out = run_child(trees, tree, url, str(args.clients), str(args.seconds), str(args.workers),
                                        timeout=args.seconds * 10 + 120, script=os.path.abspath(__file__))
                    finally:
                        if backend == "postgresql":
                            drop_pg(args.pg, name)
                    rates[tree].append(out["rate"])
                    print(f"{backend:10} {tree:8} round {r + 1}  {out['rate']:7,.0f} commands/s  "
                          f"p50 {out['p50'] * 1e3:6.1f} ms" + (f"  other: {out['other']}" if out["other"] else ""),
                          flush=True)
            if rates["this"]:
                this, base = statistics.median(rates["this"]), statistics.median(rates["baseline"])
                print(f"{backend:10} http {args.clients} clients  this {this:7,.0f}  baseline {base:7,.0f} "
                      f"({args.baseline})  ratio {this / base:5.2f}")


def pg_database(base_url: str, name: str) -> str:
    import psycopg

    admin = psycopg.connect(base_url, autocommit=True, connect_timeout=5)
    admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.execute(f"CREATE DATABASE {name}")
    admin.close()
    return base_url.rsplit("/", 1)[0] + "/" + name


def drop_pg(base_url: str, name: str) -> None:
    import psycopg

    admin = psycopg.connect(base_url, autocommit=True, connect_timeout=5)
    admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0, help="per run (with --commands: at most)")
    ap.add_argument("--commands", type=int, dest="quota",
                    help="each client gives this many commands, then stops (HTTP and in-process alike: "
                         "both get as far into their matches, whose first commands cost the most)")
    ap.add_argument("--max-deals", type=int, default=3, help="leave a match after this many deals")
    ap.add_argument("--max-commands", type=int, default=2000, help="leave a match after this many commands")
    ap.add_argument("--pg", default=os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--workers", type=int, default=1, help="server processes (kartludo serve --workers)")
    ap.add_argument("--no-pg", action="store_true", help="SQLite only")
    ap.add_argument("--pg-only", action="store_true", help="PostgreSQL only")
    ap.add_argument("--baseline", help="git ref: this tree's HTTP service against that tree's, alternated")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tree with --baseline")
    args = ap.parse_args()
    if args.baseline:
        bench_against(args)
        return
    each = f"{args.quota} commands per client (at most {args.seconds:g} s)" if args.quota else f"{args.seconds:g} s"
    print(f"{args.clients} clients, {each} per run, {args.workers} server process(es) without "
          f"access log; in-process baseline: {args.clients} threads in one process")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.pg_only:
            log = os.path.join(tmp, "serve-sqlite.log")
            try:
                h = bench_http(f"sqlite:///{os.path.join(tmp, 'http.db')}", args, log)
            except Exception:
                if os.path.exists(log):
                    sys.stderr.write(open(log, encoding="utf-8", errors="replace").read()[-4000:])
                raise
            p = bench_inproc(f"sqlite:///{os.path.join(tmp, 'inproc.db')}", args)
            report("sqlite", *h, *p, args.clients)
        if args.no_pg:
            return
        names = (f"kartludo_bench_svc_h{os.getpid()}", f"kartludo_bench_svc_p{os.getpid()}")
        try:
            h_url = pg_database(args.pg, names[0])
        except Exception as exc:  # noqa: BLE001 - a benchmark may run without PostgreSQL
            print(f"postgresql skipped: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            return
        log = os.path.join(tmp, "serve-pg.log")
        try:
            p_url = pg_database(args.pg, names[1])
            try:
                h = bench_http(h_url, args, log)
            except Exception:
                if os.path.exists(log):
                    sys.stderr.write(open(log, encoding="utf-8", errors="replace").read()[-4000:])
                raise
            p = bench_inproc(p_url, args)
            report("postgresql", *h, *p, args.clients)
        finally:
            for n in names:
                drop_pg(args.pg, n)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_child":  # a --baseline run in one tree
        child_http(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    else:
        main()
