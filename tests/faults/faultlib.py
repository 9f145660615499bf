"""The fault suite's tools: a ``kartludo serve`` process, clients that play over HTTP
and retry every request with its ``command_id`` until it is answered, live-stream
followers that reconnect with ``Last-Event-ID``, the check of what the clients were
told against the log, and a TCP forwarder (a database address that can be moved).

Nothing here asserts: the tests read the counts (``Play.counts``, ``ledger_check``)
and decide. Every wait has a generous cap and ends as soon as its condition holds.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from serving import bearer

CLI = [sys.executable, "-m", "kartludo.cli.main"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], Any], what: str, cap: float = 60.0, every: float = 0.05) -> Any:
    """Until ``condition()`` is true (its value returned); a generous cap, then an error naming ``what``."""
    deadline = time.monotonic() + cap
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {cap:.0f} s waiting for {what}")
        time.sleep(every)


@dataclass
class Done:
    """How a command line ended: as ``subprocess.CompletedProcess`` says it."""

    returncode: int
    stdout: str
    stderr: str


def cli(db_url: str, *args: str, process: bool = False, timeout: float = 120) -> Done:
    """``kartludo --db URL ARGS``: in this process (quicker: no interpreter to start), or
    in a process of its own. An exception the command line let out counts as a
    traceback on stderr, as it would be printed in a process of its own."""
    if process:
        done = subprocess.run([*CLI, "--db", db_url, *args], capture_output=True, text=True, timeout=timeout)
        return Done(done.returncode, done.stdout, done.stderr)
    from click.testing import CliRunner

    from kartludo.cli.main import cli as kartludo

    result = CliRunner().invoke(kartludo, ["--db", db_url, *args])
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"Traceback (most recent call last):\n{result.exception!r}\n"
    return Done(result.exit_code, result.stdout, stderr)


def cli_here(db_url: str, *args: str) -> str:
    """``kartludo --db URL ARGS`` in this process, which must succeed; its output."""
    done = cli(db_url, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


# --- the server -----------------------------------------------------------------------
class Server:
    """``kartludo serve`` in a process of its own, its output kept in a file."""

    def __init__(self, db_url: str, folder: Path, *options: str, env: dict[str, str] | None = None) -> None:
        self.db_url, self.folder, self.options = db_url, folder, options
        self.env = {**os.environ, **(env or {})}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"serve-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(b"--- start %d\n" % self.starts)
            self.proc = subprocess.Popen(
                [*CLI, "--db", self.db_url, "serve", "--port", str(self.port), "--no-access-log", *self.options],
                stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.folder)

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, f"kartludo serve exited:\n{self.log()}"
            try:
                return httpx.get(f"{self.base}/games", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(up, "kartludo serve to answer", cap=60, every=0.1)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()


# --- clients --------------------------------------------------------------------------
@dataclass
class Ack:
    """One write the service acknowledged (2xx): what the client was told."""

    kind: str  # "create", "deal" or "command"
    match: str
    key: str  # the client's command_id
    positions: list[int]
    duplicate: bool


@dataclass
class Answer:
    sent: float  # monotonic time the request was sent
    status: int  # 0: no answer (connection refused or dropped)
    retry_after: str | None = None
    detail: str = ""  # a 5xx problem's detail


@dataclass
class Tallies:
    answers: list[Answer] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)  # 4xx answers, by status


def _detail(r: httpx.Response) -> str:
    try:
        return str(r.json().get("detail", ""))
    except ValueError:
        return r.text[:200]


class Abandoned(Exception):
    """The run ended while a request was still being retried."""


class Client(threading.Thread):
    """One client: plays its own Svoi Kozyri match (any seat to act, with that seat's
    token; a random legal move), creates another when one ends. Every request is sent
    again, unchanged (same ``command_id``), after a 503 or a lost connection, until the
    service answers otherwise."""

    def __init__(self, play: Play, number: int) -> None:
        super().__init__(name=f"fault-client-{number}", daemon=True)
        self.play, self.number = play, number
        self.rng = random.Random(number)
        self.http = httpx.Client(base_url=play.base, timeout=httpx.Timeout(30.0, connect=5.0))
        self.t = Tallies()
        self.failure: BaseException | None = None

    def request(self, method: str, path: str, token: str, body: dict[str, Any] | None = None) -> httpx.Response:
        while True:
            if self.play.abandon.is_set():
                raise Abandoned
            sent = time.monotonic()
            try:
                r = self.http.request(method, path, json=body, headers=bearer(token))
            except httpx.TransportError:
                self.t.answers.append(Answer(sent, 0))
                time.sleep(0.1)
                continue
            detail = _detail(r) if r.status_code >= 500 else ""
            self.t.answers.append(Answer(sent, r.status_code, r.headers.get("retry-after"), detail))
            if r.status_code >= 500:
                retry = r.headers.get("retry-after", "")
                time.sleep(min(float(retry), 0.5) if retry.isdigit() else 0.2)
                continue
            return r

    def write(self, kind: str, path: str, token: str, body: dict[str, Any], match: str = "") -> httpx.Response | None:
        key = f"c{self.number}-{uuid.uuid4().hex[:12]}"
        r = self.request("POST", path, token, {**body, "command_id": key})
        if r.status_code not in (200, 201):
            self.t.refused[str(r.status_code)] += 1
            return None
        out = r.json()
        self.t.acks.append(Ack(kind, out.get("match", match), key, out.get("positions", []),
                               bool(out.get("duplicate"))))
        return r

    def new_match(self) -> tuple[str, dict[str, str]]:
        players = [f"p{self.number}x{i}" for i in range(2 + self.number % 3)]
        body = {"game": "svoi-kozyri", "players": players, "seed": self.rng.randrange(2**40), "auto_deal": False}
        while True:
            r = self.write("create", "/matches", self.play.td, body)
            if r is not None:
                created = r.json()
                mid, tokens = created["match"], created["tokens"]
                break
        self.write("deal", f"/matches/{mid}/deals", self.play.td, {}, match=mid)
        self.play.matches.append(mid)
        return mid, tokens

    def run(self) -> None:
        try:
            mid, tokens = self.new_match()
            to_act: list[str] = []
            while not self.play.stop.is_set():
                if not to_act:
                    state = self.request("GET", f"/matches/{mid}/state", self.play.td).json()
                    if state["status"] != "in_progress":
                        mid, tokens = self.new_match()
                        continue
                    to_act = state["to_act"]
                    if not to_act:  # between deals of a table that deals by itself: the TD deals
                        self.write("deal", f"/matches/{mid}/deals", self.play.td, {}, match=mid)
                        continue
                seat = to_act[0]
                moves = self.request("GET", f"/matches/{mid}/legal", tokens[seat])
                legal = moves.json() if moves.status_code == 200 else []
                if not legal:
                    to_act = []
                    continue
                verb, *args = self.rng.choice(legal).split()
                r = self.write("command", f"/matches/{mid}/commands", tokens[seat], {"verb": verb, "args": args},
                               match=mid)
                to_act = r.json()["state"].get("to_act", []) if r is not None else []
        except Abandoned:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failure = exc
        finally:
            self.http.close()


class Follower(threading.Thread):
    """A live stream on one match (TD token): every event's id, reconnecting with
    ``Last-Event-ID`` whenever the stream ends or cannot be opened."""

    def __init__(self, play: Play, match: str) -> None:
        super().__init__(name=f"fault-follower-{match[:8]}", daemon=True)
        self.play, self.match = play, match
        self.ids: list[int] = []
        self.connects = 0
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.play.base, timeout=httpx.Timeout(5.0, read=2.0)) as http:
                while not self.play.abandon.is_set() and not self.play.followers_done.is_set():
                    headers = bearer(self.play.td)
                    if self.ids:
                        headers["Last-Event-ID"] = str(self.ids[-1])
                    try:
                        with http.stream("GET", f"/matches/{self.match}/stream", headers=headers) as r:
                            if r.status_code != 200:
                                r.read()
                                time.sleep(0.2)
                                continue
                            self.connects += 1
                            for line in r.iter_lines():
                                if line.startswith("id:"):
                                    self.ids.append(int(line[3:].strip()))
                                if self.play.followers_done.is_set():
                                    return
                    except (httpx.TransportError, httpx.StreamError):
                        time.sleep(0.1)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failure = exc


class Play:
    """``clients`` clients playing over HTTP against ``base``, and a follower on the
    first match of each of the first ``followers`` clients."""

    def __init__(self, base: str, td: str, clients: int = 16, followers: int = 4) -> None:
        self.base, self.td = base, td
        self.stop, self.abandon, self.followers_done = threading.Event(), threading.Event(), threading.Event()
        self.matches: list[str] = []
        self.clients = [Client(self, i) for i in range(clients)]
        self.followers: list[Follower] = []
        self.want_followers = followers

    def start(self) -> None:
        for c in self.clients:
            c.start()
        wait_for(lambda: len(self.matches) >= self.want_followers, "the first matches", cap=120)
        self.followers = [Follower(self, mid) for mid in self.matches[: self.want_followers]]
        for f in self.followers:
            f.start()

    def acks_after(self, since: float) -> list[int]:
        """Per client, the writes acknowledged for requests sent after ``since``."""
        out = []
        for c in self.clients:
            sent = [a.sent for a in c.t.answers if a.status in (200, 201)]
            out.append(sum(1 for s in sent if s >= since))
        return out

    def wait_progress(self, since: float, each: int = 2, cap: float = 90.0) -> None:
        """Until every client has had ``each`` requests answered with success since ``since``."""
        wait_for(lambda: min(self.acks_after(since)) >= each or self.failed(),
                 f"every client to get {each} answers since the fault", cap=cap)

    def failed(self) -> list[str]:
        return [f"{t.name}: {t.failure!r}" for t in (*self.clients, *self.followers) if t.failure is not None]

    def finish(self, cap: float = 60.0) -> None:
        """Stop the clients (each ends its request in flight first; abandoned after ``cap``)."""
        self.stop.set()
        deadline = time.monotonic() + cap
        for c in self.clients:
            c.join(max(0.1, deadline - time.monotonic()))
        self.abandon.set()
        for c in self.clients:
            c.join(10)

    def finish_followers(self, last_position: Callable[[str], int], cap: float = 60.0) -> None:
        """Until every follower has the match's last event (then they stop)."""
        try:
            wait_for(lambda: all(f.ids and f.ids[-1] >= last_position(f.match) or f.failure for f in self.followers),
                     "the live streams to catch up", cap=cap, every=0.1)
        finally:
            self.followers_done.set()
            for f in self.followers:
                f.join(10)

    @property
    def answers(self) -> list[Answer]:
        return [a for c in self.clients for a in c.t.answers]

    @property
    def acks(self) -> list[Ack]:
        return [a for c in self.clients for a in c.t.acks]

    def counts(self) -> Counter[str]:
        answers = self.answers
        return Counter({"acknowledged": len(self.acks), "5xx": sum(1 for a in answers if a.status >= 500),
                        "500": sum(1 for a in answers if a.status >= 500 and a.status != 503),
                        "503 without Retry-After": sum(1 for a in answers if a.status == 503 and not a.retry_after),
                        "503": sum(1 for a in answers if a.status == 503)})


# --- a fault under play ---------------------------------------------------------------
#: the service must answer without 5xx this long after the database is back (issue 42)
RECOVERY_S = 5.0


def through_outage(server: Server, db_url: str, td: str, counts: Counter[str],
                   outage: Callable[[], tuple[float, float, float]], *, clients: int = 16, followers: int = 4,
                   seen_as: int = 503, detail: str = "", down_allows: frozenset[int] = frozenset({0, 503}),
                   name: str = "the outage") -> Play:
    """``clients`` clients play on ``server`` (over the database at ``db_url``) with
    live streams following; ``outage()`` takes the database (or the server) away and
    brings it back, returning when it is back with the monotonic times it was wholly
    down from and until, and back at. Then, once every client has been answered again:

    - every write the service acknowledged is in the log, none twice, none applied
      without being acknowledged (``ledger_check``); ``verify`` passes;
    - the outage was seen (answers of status ``seen_as``: 0 for no answer at all);
      no 500 and no traceback in the server's output; every 503 has ``Retry-After``
      (and names ``detail``), and while the database was down nothing but 503s (or no
      answer at all; ``down_allows``) came back; no 5xx for a request sent ``RECOVERY_S`` after it was
      back: the service recovered by itself;
    - each live stream, reconnecting with ``Last-Event-ID``, got every event of its
      match exactly once.

    The counts go to ``counts`` (one fault); a failed check names ``name``."""
    try:
        return _through_outage(server, db_url, td, counts, outage, clients, followers, seen_as, detail, down_allows)
    except AssertionError as exc:
        raise AssertionError(f"{name}: {exc}") from exc


def _through_outage(server: Server, db_url: str, td: str, counts: Counter[str],
                    outage: Callable[[], tuple[float, float, float]], clients: int, followers: int, seen_as: int,
                    detail: str, down_allows: frozenset[int]) -> Play:
    play = Play(server.base, td, clients=clients, followers=followers)
    play.start()
    try:
        play.wait_progress(0.0, each=3)
        began = time.monotonic()
        down, up, back = outage()
        counts["faults"] += 1
        play.wait_progress(back, each=3)
        play.finish()
        positions = match_positions(db_url)
        try:
            play.finish_followers(lambda m: positions(m)[-1])
            missed = follower_misses(play, positions)
        finally:
            positions.close()  # type: ignore[attr-defined]
    finally:
        play.stop.set()
        play.abandon.set()
        play.followers_done.set()
    assert not play.failed(), play.failed()
    seen = play.counts()
    found = ledger_check(db_url, play.acks)
    counts["acknowledged"] += seen["acknowledged"]
    counts["5xx"] += seen["5xx"]
    counts["lost"] += found["lost"]
    counts["duplicated"] += found["duplicated"]
    answers = play.answers
    while_down = {a.status for a in answers if down <= a.sent < up}
    late = [a for a in answers if a.sent >= back + RECOVERY_S and a.status >= 500]
    log = server.log()
    assert found == {"lost": 0, "duplicated": 0, "unacknowledged": 0}, found
    assert seen["500"] == 0 and not tracebacks(log), tracebacks(log)[:3] or seen
    assert seen["503 without Retry-After"] == 0, seen
    assert any(a.status == seen_as for a in answers if a.sent >= began), f"the outage was never seen ({seen_as})"
    assert while_down <= down_allows, sorted(while_down)
    assert detail in " ".join(a.detail for a in answers if a.status == 503)
    assert not late, f"{len(late)} answers of 5xx sent {RECOVERY_S} s after the database was back"
    assert missed["missed"] == 0 and missed["repeated"] == 0, missed
    cli_here(db_url, "verify", "--no-fold")
    return play


# --- what the log holds ---------------------------------------------------------------
def ledger_check(db_url: str, acks: list[Ack]) -> Counter[str]:
    """What the clients were told against what the log holds: ``lost`` (an acknowledged
    write whose events are not in the log, or not its match's), ``duplicated`` (a
    client's command id stored more than once, or two acknowledgements of one key at
    different positions) and ``unacknowledged`` (a client key applied that no client
    was ever told of: it cannot be, as clients retry until answered)."""
    from kartludo.store import EventStore
    from kartludo.store.schema import CALLER_KEY_LENGTH

    store = EventStore.open(db_url)
    try:
        events = {int(p): (s, c) for p, s, c in store.select(
            "SELECT position, stream_id, command_id FROM events WHERE stream_id LIKE :m", m="match-%")}
        firsts = {s: c for s, c in store.select(
            "SELECT stream_id, command_id FROM events WHERE stream_id LIKE :m AND version = 1", m="match-%")}
        stored = Counter(c[:CALLER_KEY_LENGTH] for s, c in store.select(
            "SELECT stream_id, command_id FROM commands WHERE stream_id LIKE :m AND command_id LIKE :k", m="match-%",
            k="k1:%"))
    finally:
        store.close()
    out: Counter[str] = Counter(lost=0, duplicated=0, unacknowledged=0)
    told: dict[str, set[tuple[int, ...]]] = {}
    held: set[str] = set()
    for ack in acks:
        stream = f"match-{ack.match}"
        if ack.kind == "create":
            cid = firsts.get(stream)
            if cid is None:
                out["lost"] += 1
            else:
                held.add(cid[:CALLER_KEY_LENGTH])
            continue
        found = [events.get(p) for p in ack.positions]
        if not found or any(f is None or f[0] != stream for f in found) or len({f[1] for f in found if f}) != 1:
            out["lost"] += 1
            continue
        cid = found[0][1]  # type: ignore[index]
        held.add(cid[:CALLER_KEY_LENGTH])
        told.setdefault(ack.key, set()).add(tuple(ack.positions))
    out["duplicated"] = sum(n - 1 for n in stored.values() if n > 1) + sum(len(v) - 1 for v in told.values())
    out["unacknowledged"] = sum(1 for caller in stored if caller not in held)
    return out


def match_positions(db_url: str) -> Callable[[str], list[int]]:
    """A match's event positions in order, read from the log (a store kept open)."""
    from kartludo.store import EventStore

    store = EventStore.open(db_url)

    def positions(match: str) -> list[int]:
        return [int(r[0]) for r in store.select(
            "SELECT position FROM events WHERE stream_id = :s ORDER BY version", s=f"match-{match}")]

    positions.close = store.close  # type: ignore[attr-defined]
    return positions


def follower_misses(play: Play, positions: Callable[[str], list[int]]) -> Counter[str]:
    """Per follower, events of its match it never got, and events it got twice."""
    out: Counter[str] = Counter(missed=0, repeated=0, reconnects=0)
    for f in play.followers:
        want = positions(f.match)
        got = [i for i in f.ids if i >= want[0]] if want else f.ids
        out["missed"] += len(set(want) - set(got))
        out["repeated"] += len(got) - len(set(got))
        out["reconnects"] += max(0, f.connects - 1)
    return out


def tracebacks(log: str) -> list[str]:
    """The tracebacks in a server's output (each from its first line on, a few lines)."""
    lines = log.splitlines()
    return ["\n".join(lines[i:i + 12]) for i, line in enumerate(lines) if line.startswith("Traceback")]


# --- a database address that moves ---------------------------------------------------
class Forwarder:
    """A TCP port that forwards to ``target`` (a database's port), as a service's
    database address does when DNS or a virtual IP is moved: ``cut()`` drops every
    connection and refuses new ones, ``point(port)`` sends new ones to another port."""

    def __init__(self, target: int) -> None:
        self.target: int | None = target
        self.port = free_port()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name="fault-forwarder", daemon=True)
        self._thread.start()

    def cut(self) -> None:
        with self._lock:
            self.target = None
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()

    def point(self, port: int) -> None:
        with self._lock:
            self.target = port

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._thread.join(2)
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            with self._lock:
                target = self.target
            if target is None:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", target), timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, server))
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 1.0)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    peers[s].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A small tmpfs mounted at ``folder`` (root only), unmounted after."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise OSError(f"mount -t tmpfs failed: {done.stderr.strip() or done.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
