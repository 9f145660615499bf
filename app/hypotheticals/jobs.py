"""Rollout jobs: a hypothetical's rollouts run by the server in a worker thread.

A job is recorded on the hypothetical's own stream, beside its moves and rollouts:
``RolloutJobStarted`` when it is accepted (its request, the version it rolls out from,
the server process running it), a ``RolloutJobProgress`` heartbeat every few seconds
while it runs, and one end: its result as the usual ``RolloutRecorded`` followed, in
the same append, by ``RolloutJobEnded(status="done")``; or ``cancelled`` (``DELETE``),
``interrupted`` or ``failed``, each with no result. Every job event is appended at the
stream's expected version after reading the job's state there, so a result and a
cancel can never both land, and no half result is ever written: the summary of all
``n`` rollouts, or nothing.

A server killed mid-job (kill -9, a power cut) leaves a job started and never ended.
The next process to read the job sees that the process named in its start is gone
(same machine: no process has its pid, or the machine has rebooted since; elsewhere:
no heartbeat for ``LEASE_SECONDS``) and records it ``interrupted``; the job is not
run again by itself. Run with a seed, the same request run again gives the very same
figures.

Progress: the process running a job knows its count at every rollout; any other
process (``serve --workers``) reads the last heartbeat.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec

from kartludo.app.errors import AppError, UnknownMatch
from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import rollouts as ro
from kartludo.engine.bots import stand_in
from kartludo.events.base import Event
from kartludo.events.hypo import (
    HypoStarted,
    RolloutJobEnded,
    RolloutJobProgress,
    RolloutJobStarted,
    RolloutRecorded,
)
from kartludo.store import ConcurrencyConflict, EventStore, Recorded
from kartludo.store.errors import DatabaseUnavailable, StoreBusy, StoreError

log = logging.getLogger(__name__)

RUNNING, DONE, CANCELLED, INTERRUPTED, FAILED = "running", "done", "cancelled", "interrupted", "failed"
STATUSES = (RUNNING, DONE, CANCELLED, INTERRUPTED, FAILED)
#: a running job's heartbeat (a ``RolloutJobProgress``) at most this often, in seconds
HEARTBEAT_SECONDS = 5.0
#: a job run by a process elsewhere and silent this long is taken for interrupted
LEASE_SECONDS = 30.0
#: how often a running job looks at its stream for a cancel from another process
CHECK_SECONDS = 0.5
#: jobs one server process runs at once (each a thread: the rollouts are CPU work)
MAX_RUNNING = 2
#: appends a job's event retries on concurrent writes to its hypothetical
ATTEMPTS = 8


class JobRefused(AppError):
    """A job request or cancel that cannot be done now (a conflict: 409); nothing written."""


class ServerBusy(AppError):
    """This server process runs as many jobs as it may: try again later (503)."""


class Job(msgspec.Struct, kw_only=True):
    """A rollout job as its stream records it (``done``: the rollouts played as of the
    last record, or live in the process running it)."""

    id: str
    hypothetical: str
    game: str
    n: int
    bots: str
    hidden: str
    seed: int | None
    at_version: int
    by: str
    runner: str
    started_at_us: int
    status: str = RUNNING
    done: int = 0
    #: the last sign of life: its start or its latest heartbeat
    seen_at_us: int = 0
    ended_at_us: int | None = None
    reason: str = ""
    ended_by: str = ""
    result: RolloutRecorded | None = None


def _iso(us: int | None) -> str | None:
    if us is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 1_000_000)) + f".{us % 1_000_000:06d}Z"


def result_of(job: Job) -> ro.RolloutResult | None:
    """A done job's result: the library's ``RolloutResult`` (the document ``hypo
    rollout --format json`` prints), rebuilt from its ``RolloutRecorded``."""
    r = job.result
    if r is None:
        return None
    from kartludo.engine.registry import get_game

    return ro.RolloutResult(r.n, r.players, r.outcomes, bots=r.bots, hidden=r.hidden, seed=r.seed,
                            hypothetical=job.hypothetical, at_version=r.at_version,
                            note=stand_in(get_game(job.game), [r.bots]))


def job_url(job: Job) -> str:
    return f"/hypotheticals/{job.hypothetical}/rollouts/{job.id}"


def job_json(job: Job) -> dict[str, Any]:
    """The job's resource: status, progress, and once done its result (the document of
    ``hypo rollout --format json``; None until then, and for ever if it did not finish)."""
    result = result_of(job)
    return {"job": job.id, "hypothetical": job.hypothetical, "status": job.status,
            "done": job.n if job.status == DONE else job.done, "total": job.n,
            "request": {"n": job.n, "bots": job.bots, "seed": job.seed, "hidden": job.hidden},
            "at_version": job.at_version, "by": job.by,
            "started_at": _iso(job.started_at_us), "ended_at": _iso(job.ended_at_us),
            "reason": job.reason or None, "ended_by": job.ended_by or None,
            "result": None if result is None else ro.result_json(result),
            "url": job_url(job), "stream": job_url(job) + "/stream"}


# --- reading jobs from the stream -------------------------------------------------------------

def fold_jobs(hypo_id: str, records: list[Recorded]) -> dict[str, Job]:
    """Every job on a hypothetical's stream, from its records, oldest first."""
    if not records or not isinstance(records[0].event, HypoStarted):
        raise UnknownMatch(f"no hypothetical {hypo_id!r}")
    game = records[0].event.game
    jobs: dict[str, Job] = {}
    last_rollout: RolloutRecorded | None = None
    for rec in records[1:]:
        e = rec.event
        if isinstance(e, RolloutRecorded):
            last_rollout = e
        elif isinstance(e, RolloutJobStarted):
            jobs[e.job] = Job(id=e.job, hypothetical=hypo_id, game=game, n=e.n, bots=e.bots, hidden=e.hidden,
                              seed=e.seed, at_version=e.at_version, by=e.by, runner=e.runner,
                              started_at_us=rec.recorded_at_us, seen_at_us=rec.recorded_at_us)
        elif isinstance(e, RolloutJobProgress) and e.job in jobs:
            job = jobs[e.job]
            job.done, job.seen_at_us = max(job.done, e.done), rec.recorded_at_us
        elif isinstance(e, RolloutJobEnded) and e.job in jobs:
            job = jobs[e.job]
            job.status, job.ended_at_us, job.reason, job.ended_by = e.status, rec.recorded_at_us, e.reason, e.by
            job.done = max(job.done, e.done_rollouts)
            if e.status == DONE:
                job.result = last_rollout  # appended with it, just before
    return jobs


def read_jobs(store: EventStore, hypo_id: str) -> tuple[int, dict[str, Job]]:
    """The hypothetical's stream version and its jobs."""
    records = store.read_stream(hy.hypo_stream(hypo_id))
    return (records[-1].version if records else 0), fold_jobs(hypo_id, records)


# --- who runs a job, and whether it is gone ---------------------------------------------------

def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()[:8]
    except OSError:
        return "-"


_HOST = socket.gethostname()[:60]
_BOOT = _boot_id()


def runner_id() -> str:
    """This process as a job's runner: ``host/boot/pid`` (read now: a forked worker has its own)."""
    return f"{_HOST}/{_BOOT}/{os.getpid()}"


def runner_gone(runner: str) -> bool:
    """The process ``runner`` names is certainly gone: it ran on this machine and the
    machine has rebooted since, or no process has its pid now (a pid taken again by
    another process reads as alive: the lease decides then)."""
    host, _, rest = runner.partition("/")
    boot, _, pid = rest.partition("/")
    if host != _HOST or not pid.isdigit():
        return False
    if boot != _BOOT:
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, someone else's
        return False
    return False


def lost(job: Job, now_us: int, here: set[str]) -> str | None:
    """Why a job recorded as running is not running anywhere (None: it may be): its
    process is gone, or silent longer than the lease. ``here``: the jobs this process runs."""
    if job.status != RUNNING or job.id in here:
        return None
    if job.runner == runner_id():
        return "the server process running it stopped before it finished"
    if runner_gone(job.runner):
        return f"the server process running it ({job.runner}) stopped before it finished (killed or restarted)"
    silent = (now_us - job.seen_at_us) / 1_000_000
    if silent > LEASE_SECONDS:
        return f"no word from the server process running it ({job.runner}) for {silent:.0f} s"
    return None


# --- appending a job's events -----------------------------------------------------------------

def _append_after(store: EventStore, hypo_id: str, job_id: str, make: Callable[[Job], list[Event] | None],
                  actor: str) -> Job:
    """Append ``make(job)`` (the job as its stream holds it now; None: nothing to write)
    at the stream's version, reading again on a concurrent write; the job as it is after."""
    stream = hy.hypo_stream(hypo_id)
    for _ in range(ATTEMPTS):
        version, jobs = read_jobs(store, hypo_id)
        job = jobs.get(job_id)
        if job is None:
            raise UnknownMatch(f"no rollout job {job_id!r} on hypothetical {hypo_id}")
        events = make(job)
        if not events:
            return job
        try:
            store.append(stream, events, version, actor=actor or "td")
        except ConcurrencyConflict:
            continue
        return read_jobs(store, hypo_id)[1][job_id]
    raise JobRefused(f"hypothetical {hypo_id}: rollout job {job_id} could not be recorded "
                     f"({ATTEMPTS} concurrent writes); try again")


def mark_lost(store: EventStore, hypo_id: str, here: set[str]) -> dict[str, Job]:
    """Record ``interrupted`` for each job of the hypothetical that runs nowhere (``lost``); its jobs after."""
    _, jobs = read_jobs(store, hypo_id)
    now = store.clock()
    for job in jobs.values():
        if lost(job, now, here) is None:
            continue

        def end(current: Job) -> list[Event] | None:
            why = lost(current, store.clock(), here)
            if why is None:
                return None
            return [RolloutJobEnded(job=current.id, status=INTERRUPTED, done_rollouts=current.done, reason=why)]

        _append_after(store, hypo_id, job.id, end, "server")
    return read_jobs(store, hypo_id)[1]


def new_job_id() -> str:
    return os.urandom(6).hex()


def start(store: EventStore, hypo: str, n: int, *, bots: str = "heuristic", seed: int | None = None,
          hidden: str = "actual", by: str = "", here: set[str] | None = None,
          job_id: str | None = None) -> tuple[Job, hy.Hypothetical]:
    """Record a job's start (refused, writing nothing, while another job runs on the
    hypothetical); the job and the hypothetical folded at the version it rolls out from.
    ``here``: the jobs this process runs (``job_id``, when given, among them)."""
    from kartludo.app.matches.simulate import pick_bots

    ro.check_request(n, hidden, seed)
    hypo_id = hy.resolve(store, hypo)
    job_id = job_id or new_job_id()
    here = (here or set()) | {job_id}
    stream = hy.hypo_stream(hypo_id)
    for _ in range(ATTEMPTS):
        h = hy.load(store, hypo_id)
        pick_bots(h.game.name, [bots])  # an unknown bot is refused here, before anything is written
        jobs = mark_lost(store, hypo_id, here)
        running = [j for j in jobs.values() if j.status == RUNNING]
        if running:
            j = running[0]
            raise JobRefused(f"rollout job {j.id} is running on hypothetical {hypo_id} ({j.done} of {j.n} "
                             f"done): wait for it, or cancel it (DELETE {job_url(j)})")
        if h.version != store.stream_version(stream):
            continue  # written meanwhile (a lost job just marked)
        event = RolloutJobStarted(job=job_id, n=n, bots=bots, hidden=hidden, seed=seed, at_version=h.version,
                                  by=by, runner=runner_id())
        try:
            store.append(stream, [event], h.version, actor=by or "td")
        except ConcurrencyConflict:
            continue
        return read_jobs(store, hypo_id)[1][job_id], h
    raise JobRefused(f"hypothetical {hypo_id}: the rollout job could not be started ({ATTEMPTS} concurrent "
                     "writes); try again")


def cancel(store: EventStore, hypo_id: str, job_id: str, by: str = "", done: int | None = None) -> Job:
    """Record a running job's cancel (its process stops it soon; no result is recorded
    after); an ended job is refused, naming how it ended. ``done``: its live count, when
    this process runs it (else its last heartbeat's)."""

    def end(job: Job) -> list[Event]:
        if job.status != RUNNING:
            raise JobRefused(f"rollout job {job.id} is {job.status}: there is nothing to cancel")
        played = job.done if done is None else max(job.done, done)
        return [RolloutJobEnded(job=job.id, status=CANCELLED, done_rollouts=played, by=by,
                                reason=f"cancelled by {by or 'a TD'}")]

    return _append_after(store, hypo_id, job_id, end, by)


# --- running jobs in this process -------------------------------------------------------------

#: every job running in this process, whichever runner runs it
_HERE: set[str] = set()
_HERE_LOCK = threading.Lock()


class _Stop(Exception):
    """Raised inside the rollouts to stop a job: cancelled, ended elsewhere, or the server stopping."""


class Running:
    """A job this process runs: its live count and the flag that stops it."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        self.done = 0
        self.stop = threading.Event()
        #: why it was told to stop ("": not told)
        self.stop_reason = ""
        self.thread: threading.Thread | None = None


class JobRunner:
    """The rollout jobs of one server process: started, run in worker threads (at most
    ``max_running`` at once), cancelled, read with their live progress, and stopped with
    the server (each recorded ``interrupted`` then)."""

    def __init__(self, store: EventStore, *, changed: Callable[[], None] = lambda: None,
                 max_running: int = MAX_RUNNING) -> None:
        self.store = store
        self.changed = changed
        self.max_running = max_running
        self._running: dict[str, Running] = {}
        self._lock = threading.Lock()
        self._closed = False

    def here(self) -> set[str]:
        """The jobs running in this process (every runner's: a process may serve several apps)."""
        with _HERE_LOCK:
            return set(_HERE)

    def mine(self) -> set[str]:
        """The jobs this runner runs."""
        with self._lock:
            return set(self._running)

    def submit(self, hypo: str, n: int, *, bots: str = "heuristic", seed: int | None = None,
               hidden: str = "actual", by: str = "") -> Job:
        """Start a job (its start recorded before this returns) and run it in a worker thread."""
        job_id = new_job_id()
        running = Running(job_id)
        with self._lock:  # its place is taken before its start is written: it is never "lost" here
            if self._closed:
                raise ServerBusy("the server is stopping: start the rollout job again once it is back")
            if len(self._running) >= self.max_running:
                raise ServerBusy(f"this server runs {len(self._running)} rollout jobs already (at most "
                                 f"{self.max_running} at once): try again when one has ended")
            self._running[job_id] = running
        with _HERE_LOCK:
            _HERE.add(job_id)
        try:
            job, h = start(self.store, hypo, n, bots=bots, seed=seed, hidden=hidden, by=by, here=self.here(),
                           job_id=job_id)
        except BaseException:
            self._forget(job_id)
            raise
        running.thread = threading.Thread(target=self._run, args=(running, job, h), name=f"rollout-job-{job_id}",
                                          daemon=True)
        running.thread.start()
        self.changed()
        return job

    def _forget(self, job_id: str) -> None:
        with self._lock:
            self._running.pop(job_id, None)
        with _HERE_LOCK:
            _HERE.discard(job_id)

    def get(self, hypo_id: str, job_id: str) -> Job:
        """The job as recorded (a lost one recorded ``interrupted`` first), with the live
        count when this process runs it."""
        jobs = mark_lost(self.store, hypo_id, self.here())
        job = jobs.get(job_id)
        if job is None:
            raise UnknownMatch(f"no rollout job {job_id!r} on hypothetical {hypo_id}")
        return self._live(job)

    def list(self, hypo_id: str) -> list[Job]:
        return [self._live(j) for j in mark_lost(self.store, hypo_id, self.here()).values()]

    def _live(self, job: Job) -> Job:
        with self._lock:
            running = self._running.get(job.id)
        if running is not None and job.status == RUNNING:
            job.done = max(job.done, running.done)
        return job

    def local_progress(self, job_id: str) -> int | None:
        """The live count of a job this process runs (None: not run here, or ended)."""
        with self._lock:
            running = self._running.get(job_id)
        return None if running is None else running.done

    def cancel(self, hypo_id: str, job_id: str, by: str = "") -> Job:
        with self._lock:
            running = self._running.get(job_id)
        job = cancel(self.store, hypo_id, job_id, by, None if running is None else running.done)
        if running is not None:
            running.stop_reason = CANCELLED
            running.stop.set()
        self.changed()
        return job

    def close(self, timeout: float = 10.0) -> None:
        """The server stops: every job it runs stops and is recorded ``interrupted``."""
        with self._lock:
            self._closed = True
            running = list(self._running.values())
        for r in running:
            r.stop_reason = INTERRUPTED
            r.stop.set()
        deadline = time.monotonic() + timeout
        for r in running:
            if r.thread is not None:
                r.thread.join(max(0.0, deadline - time.monotonic()))

    # --- the worker thread ---------------------------------------------------------------------
    def _run(self, running: Running, job: Job, h: hy.Hypothetical) -> None:
        store = self.store
        stream = hy.hypo_stream(job.hypothetical)
        read = [h.version + 1]  # the stream read up to here (from the job's start on: a cancel may come at once)
        clock = {"checked": time.monotonic(), "beat": time.monotonic()}

        def ended_elsewhere() -> bool:
            """A cancel (or an ``interrupted``) recorded by another process."""
            version = store.stream_version(stream)
            if version == read[0]:
                return False
            records = store.read_stream(stream, read[0] + 1)
            read[0] = max(read[0], records[-1].version if records else 0)
            return any(isinstance(r.event, RolloutJobEnded) and r.event.job == job.id for r in records)

        def progress(k: int) -> None:
            running.done += k
            if running.stop.is_set():
                raise _Stop
            now = time.monotonic()
            if now - clock["checked"] < CHECK_SECONDS:
                return
            clock["checked"] = now
            try:  # a database hiccup costs a check or a heartbeat, never the job
                if ended_elsewhere():
                    raise _Stop
                if now - clock["beat"] >= HEARTBEAT_SECONDS:
                    clock["beat"] = now
                    store.append(stream, [RolloutJobProgress(job=job.id, done=running.done)], read[0],
                                 actor="server")
                    read[0] += 1
                    self.changed()
            except ConcurrencyConflict:
                pass  # read again at the next check
            except StoreError as exc:
                log.warning("rollout job %s: %s (it runs on)", job.id, exc)

        try:
            try:
                result = ro.rollout(h, job.n, bots=job.bots, seed=job.seed, hidden=job.hidden, progress=progress)
            except _Stop:
                if running.stop_reason == INTERRUPTED:  # the server stops: said so, unless ended meanwhile
                    self._end(job, INTERRUPTED, running.done, "the server stopped before the job finished")
                return
            except Exception as exc:  # noqa: BLE001 - recorded as the job's failure
                log.exception("rollout job %s failed", job.id)
                self._end(job, FAILED, running.done, f"{type(exc).__name__}: {exc}")
                return
            self._finish(job, result)
        except Exception:  # the store failed too: left running, the next reader records it interrupted
            log.exception("rollout job %s could not record its end", job.id)
        finally:
            self._forget(job.id)
            self.changed()

    def _end(self, job: Job, status: str, done: int, reason: str) -> None:
        def end(current: Job) -> list[Event] | None:
            if current.status != RUNNING:
                return None
            return [RolloutJobEnded(job=job.id, status=status, done_rollouts=done, reason=reason)]

        self._retry(lambda: _append_after(self.store, job.hypothetical, job.id, end, "server"))

    def _retry(self, write: Callable[[], Any], attempts: int = 5) -> None:
        """A job's end, written through a short database outage (then given up: the job
        reads as interrupted, with no result)."""
        for i in range(attempts):
            try:
                write()
                return
            except (DatabaseUnavailable, StoreBusy):
                if i == attempts - 1:
                    raise
                time.sleep(0.5 * (i + 1))

    def _finish(self, job: Job, result: ro.RolloutResult) -> None:
        """The result and the job's end in one append, unless it ended meanwhile (a
        cancel from another process): then nothing."""
        recorded = RolloutRecorded(n=result.n, bots=result.bots, hidden=result.hidden, seed=result.seed,
                                   at_version=result.at_version, players=result.players, outcomes=result.outcomes)

        def end(current: Job) -> list[Event] | None:
            if current.status != RUNNING:
                return None
            return [recorded, RolloutJobEnded(job=job.id, status=DONE, done_rollouts=result.n)]

        self._retry(lambda: _append_after(self.store, job.hypothetical, job.id, end, job.by or "td"))
