"""kill -9 in the middle of work: nothing acknowledged is lost, and the next start
finishes the work or leaves no trace of it.

- ``kartludo serve`` killed while 16 clients play: restarted, it answers the
  clients' retries (same ``command_id``) as the duplicates they are.
- ``kartludo events import`` killed with a batch written into its open transaction
  (SQLite and PostgreSQL): nothing of it is in the log, what was there stays, and
  the import run again goes through.
- ``kartludo projections rebuild`` killed between two of its batches: the next read
  command (or rebuild) resumes where it stopped, and the read models are exactly
  what a rebuild from scratch gives.

- a rollout job (``POST /hypotheticals/{id}/rollouts``) killed with its server: the
  restarted server reads it as interrupted and records it so, with no result.

The long jobs a kill may interrupt are named in ``JOBS``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from faultlib import CLI, Server, cli, cli_here, through_outage, wait_for

pytestmark = pytest.mark.faults

#: the jobs a kill -9 is tested in the middle of
JOBS = ("serve", "events import", "projections rebuild", "rollout job")


def test_kill9_of_the_server_while_16_clients_play(tmp_path, td_token, counts):
    url = f"sqlite:///{tmp_path / 'k.db'}"
    cli_here(url, "db", "upgrade")
    td = td_token(url)
    with Server(url, tmp_path) as server:
        def outage() -> tuple[float, float, float]:
            server.kill9()
            down = time.monotonic()
            time.sleep(0.5)
            up = time.monotonic()
            server.start()
            return down, up, time.monotonic()

        through_outage(server, url, td, counts, outage, seen_as=0)



def _count(url: str) -> int:
    """Events in the log."""
    from kartludo.store import EventStore

    store = EventStore.open(url)
    try:
        return int(store.select("SELECT count(*) FROM events")[0][0])
    finally:
        store.close()


def _kill9_mid_import(url: str, tmp_path: Path, log: Path, holding: Callable[[], bool]) -> None:
    """Import the export ``log`` into ``url`` through a pipe: its first 6,000 lines, then
    nothing. Once they are written, the importer has read all but what the pipe holds
    (64 KiB, ~150 lines) and so has written its first batch of 5,000 rows into its
    open transaction (``holding()`` confirms it holds one); then kill -9."""
    lines = log.read_bytes().splitlines(keepends=True)
    assert len(lines) > 6000, "the export is too short to interrupt after a batch"
    fifo = tmp_path / "import.pipe"
    os.mkfifo(fifo)
    importer = subprocess.Popen([*CLI, "--db", url, "events", "import", str(fifo), "--unsigned"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fed = threading.Event()

    def feed() -> None:
        try:
            with open(fifo, "wb") as pipe:
                pipe.writelines(lines[:6000])
                pipe.flush()
                fed.set()
                importer.wait(120)  # held open: the importer waits for more, its transaction open
        except BrokenPipeError:
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        wait_for(fed.is_set, "the importer to read 6,000 lines", cap=120)
        wait_for(holding, "the importer's open transaction", cap=60)
        importer.send_signal(signal.SIGKILL)
    finally:
        importer.kill()
        importer.wait(30)
        feeder.join(30)
    assert importer.returncode == -signal.SIGKILL
    done = cli(url, "events", "import", str(log), "--unsigned")  # the next start: everything, once
    assert done.returncode == 0, done.stderr
    assert f"imported {len(lines)} events" in done.stdout, done.stdout


def _sqlite_locked(path: Path) -> bool:
    """Someone holds the file's write lock (an open write transaction)."""
    conn = sqlite3.connect(path, timeout=0)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc)
    finally:
        conn.close()


def _pg_writing(url: str) -> bool:
    """Some other session of the database sits in a transaction that has written."""
    import psycopg

    from kartludo.store.database import normalise_url

    conninfo = normalise_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        return bool(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                 "AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL "
                                 "AND state = 'idle in transaction'").fetchone()[0])


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_kill9_during_an_import(backend, tmp_path, request, league, counts):
    if backend == "sqlite":
        db = tmp_path / "k.db"
        url = f"sqlite:///{db}"

        def holding() -> bool:
            return _sqlite_locked(db)
    else:
        url = request.getfixturevalue("pg_url")

        def holding() -> bool:
            return _pg_writing(url)
    cli_here(url, "db", "upgrade")
    cli_here(url, "simulate", "svoi-kozyri", "--matches", "1", "--seed", "3")  # acknowledged before the import
    before = _count(url)
    _kill9_mid_import(url, tmp_path, league.log, lambda: holding() and _count(url) == before)
    counts["faults"] += 1
    counts["acknowledged"] += 1  # the match played before
    cli_here(url, "verify")
    assert _count(url) == before + league.events


def test_kill9_during_a_projection_rebuild(tmp_path, league, counts):
    db = tmp_path / "k.db"
    url = f"sqlite:///{db}"
    shutil.copy(league.db, db)  # some 7,000 events: a rebuild of several batches of 2,000
    expected = cli_here(url, "standings", "--format", "json")
    head = _count(url)

    def checkpoints() -> list[int]:
        conn = sqlite3.connect(db)
        try:
            return [p for (p,) in conn.execute("SELECT position FROM projection_checkpoints")]
        finally:
            conn.close()

    for _attempt in range(5):  # the kill lands between two batches: watched for, not timed
        if _kill9_when(url, lambda: 0 < min(checkpoints()) < head):
            break
    else:
        pytest.fail("every rebuild ended before it could be killed between batches")
    counts["faults"] += 1
    assert 0 < min(checkpoints()) < head, "killed, yet the checkpoints do not say it stopped half-way"
    # the next start finishes it: a read command catches up, and the result is a full rebuild's
    assert cli_here(url, "standings", "--format", "json") == expected
    assert min(checkpoints()) == head
    cli_here(url, "verify")


def _kill9_when(url: str, midway: Callable[[], bool]) -> bool:
    """Run ``projections rebuild`` and kill -9 it as soon as ``midway()``; whether it was
    killed (False: it ended first)."""
    rebuild = subprocess.Popen([*CLI, "--db", url, "projections", "rebuild"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        wait_for(lambda: rebuild.poll() is not None or midway(), "the rebuild to get going", cap=120, every=0.005)
        if rebuild.poll() is None:
            rebuild.send_signal(signal.SIGKILL)
    finally:
        rebuild.wait(30)
    return rebuild.returncode == -signal.SIGKILL


def _hypothetical(url: str, game: str = "hakamo") -> str:
    """A hypothetical from the start of a bot-played first deal of ``game`` (Hakamo's
    rollouts are the slowest: 10,000 of them run far longer than the test waits)."""
    import random

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.store import EventStore

    store = EventStore.open(url)
    try:
        mid, _, _ = play_match(MatchService(store), game, ["ann", "bob", "cy", "dan"], pick_bots(game, ["heuristic"]),
                               random.Random(4), max_deals=1)
        return hy.create(store, mid, 1, 0)
    finally:
        store.close()


def _hypo_events(url: str, hid: str) -> list[str]:
    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.store import EventStore

    store = EventStore.open(url)
    try:
        return [r.type for r in store.read_stream(hy.hypo_stream(hid))]
    finally:
        store.close()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_kill9_during_a_rollout_job(backend, tmp_path, request, td_token, counts):
    """``kartludo serve`` killed while a rollout job runs in it: restarted, the server
    reads the job as interrupted (its process is gone) and records it so, with no
    result, not even a partial one; the log verifies, and the hypothetical takes the
    next job, which finishes with the library's figures."""
    import httpx

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.hypotheticals import rollouts as ro
    from kartludo.store import EventStore

    url = f"sqlite:///{tmp_path / 'k.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    cli_here(url, "db", "upgrade")
    hid = _hypothetical(url)
    headers = {"Authorization": f"Bearer {td_token(url)}"}
    with Server(url, tmp_path) as server:
        started = httpx.post(f"{server.base}/hypotheticals/{hid}/rollouts", headers=headers, timeout=30,
                             json={"n": 10_000, "seed": 7, "hidden": "resample"})
        assert started.status_code == 202, started.text
        job_url = server.base + started.headers["location"]
        counts["acknowledged"] += 1

        def midway() -> dict | None:
            job = httpx.get(job_url, headers=headers, timeout=30).json()
            assert job["status"] == "running", job
            return job if job["done"] >= 20 else None

        before = wait_for(midway, "the job to play some rollouts", cap=120)
        server.kill9()
        counts["faults"] += 1
        assert before["done"] < 10_000
        kinds = _hypo_events(url, hid)
        assert kinds[-1] in ("hypo.rollout-job", "hypo.rollout-job-progress"), kinds  # killed mid-job: no end

        server.start()  # the next start
        job = httpx.get(job_url, headers=headers, timeout=30).json()
        assert job["status"] == "interrupted" and job["result"] is None, job
        assert "stopped before it finished" in job["reason"]
        kinds = _hypo_events(url, hid)
        assert "hypo.rollout" not in kinds and kinds.count("hypo.rollout-job-ended") == 1  # no half result
        assert httpx.get(job_url, headers=headers, timeout=30).json()["status"] == "interrupted"
        assert _hypo_events(url, hid) == kinds  # recorded once
        gone = httpx.delete(job_url, headers=headers, timeout=30)
        assert gone.status_code == 409 and "interrupted" in gone.json()["detail"]

        again = httpx.post(f"{server.base}/hypotheticals/{hid}/rollouts", headers=headers, timeout=30,
                           json={"n": 30, "seed": 7, "hidden": "resample"})
        assert again.status_code == 202, again.text
        done = wait_for(lambda: (j := httpx.get(server.base + again.headers["location"], headers=headers,
                                                timeout=30).json())["status"] != "running" and j,
                        "the next job to finish", cap=120)
    assert done["status"] == "done"
    store = EventStore.open(url)
    try:
        h = hy.load(store, hid)
        moment = hy.fold(store, hid, store.read_stream(hy.hypo_stream(hid), 1, done["at_version"]))
        assert done["result"] == ro.result_json(ro.rollout(moment, 30, seed=7, hidden="resample"))
        assert len(h.rollouts) == 1  # the finished job's, and nothing of the killed one
    finally:
        store.close()
    cli_here(url, "verify")
