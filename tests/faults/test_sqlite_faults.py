"""SQLite meeting a full disk and a damaged page.

A full disk is a real one: a small tmpfs mounted for the test (root only; without
root the tests skip, saying so), filled with a ballast file. It is met by a command on
the command line (a fresh process: the file's WAL and shared memory are made anew, so
different fill levels meet SQLite at different points: opening, the WAL's first
frame, its growth), by an import (one transaction, written in batches) and by the HTTP
service under play. Each time: a clear one-line error (a 503 with ``Retry-After``
over HTTP), nothing half-written, ``verify`` passes once space is freed, and the work
then goes through.

A damaged page: a b-tree page of ``events`` overwritten in the file. A write that
meets it is refused with a clear error; ``verify`` names the page and notes it beside
the file, and from then on every write is refused (also one that touches no damaged
page); the service answers 503, never a traceback; restoring the file and verifying
again lifts the refusal.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from faultlib import Server, cli, cli_here, through_outage, tmpfs

pytestmark = pytest.mark.faults

KIB = 1024


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MiB tmpfs of the test's own (unmounted after)."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is a small tmpfs mounted for the test: mounting one needs root")
    made = tmpfs(tmp_path / "disk", "16m")
    try:
        folder = made.__enter__()
    except OSError as exc:
        pytest.skip(f"no tmpfs for a full disk: {exc}")
    try:
        yield folder
    finally:
        made.__exit__(None, None, None)


def fill(folder: Path, leave: int) -> Path:
    """A ballast file leaving about ``leave`` bytes free on ``folder``'s file system."""
    ballast = folder / "ballast"
    stat = os.statvfs(folder)
    size = max(0, stat.f_bavail * stat.f_frsize - leave)
    with open(ballast, "ab") as f:
        try:
            f.write(b"\0" * size)
        except OSError:  # full already: that is the point
            pass
    return ballast


def rows(path: Path) -> tuple[int, int]:
    """(events, command records) in the file, read without kartludo."""
    conn = sqlite3.connect(path)
    try:
        return (conn.execute("SELECT count(*) FROM events").fetchone()[0],
                conn.execute("SELECT count(*) FROM commands").fetchone()[0])
    finally:
        conn.close()


def one_line_error(done, *words: str) -> None:
    """A refused command: exit 1, one line on stderr naming ``words``, no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert all(w in lines[0] for w in words), done.stderr


def first_move(url: str, match: str) -> tuple[str, list[str]]:
    """Who acts in ``match`` now, and their first legal command."""
    import json

    who = json.loads(cli_here(url, "state", match, "--json"))["to_act"][0]
    return who, json.loads(cli_here(url, "legal", match, "--as", who, "--format", "json"))[0].split()


def test_disk_full_during_a_command(small_disk, counts):
    db = small_disk / "k.db"
    url = f"sqlite:///{db}"
    match = cli(url, "match", "new", "svoi-kozyri", "--players", "ann,bob", "--seed", "5").stdout.strip()
    assert cli(url, "match", "deal", match).returncode == 0
    refused = 0
    for leave in (0, 16 * KIB, 32 * KIB, 48 * KIB):
        who, command = first_move(url, match)
        before = rows(db)
        ballast = fill(small_disk, leave)
        done = cli(url, "act", match, "--as", who, *command)
        ballast.unlink()
        if done.returncode == 0:  # enough room for this one
            assert rows(db)[0] > before[0]
            counts["acknowledged"] += 1
            continue
        refused += 1
        counts["faults"] += 1
        one_line_error(done, "the disk is full", "nothing was written", "KiB free")
        assert rows(db) == before, "a command refused for a full disk wrote something"
    assert refused >= 2, "the full disk was met too seldom to say anything"
    verified = cli(url, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    who, command = first_move(url, match)
    assert cli(url, "act", match, "--as", who, *command).returncode == 0


def test_disk_full_during_an_import(small_disk, league, counts):
    log, exported = league.log, league.events
    db = small_disk / "k.db"
    url = f"sqlite:///{db}"
    match = cli(url, "match", "new", "svoi-kozyri", "--players", "ann,bob").stdout.strip()  # something there before
    assert match
    before = rows(db)
    ballast = fill(small_disk, 256 * KIB)  # the import needs more than that in the WAL
    done = cli(url, "events", "import", str(log), "--unsigned")
    counts["faults"] += 1
    one_line_error(done, "the disk is full", "nothing was written")
    assert rows(db) == before, "a refused import left part of itself behind"
    ballast.unlink()
    verified = cli(url, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    done = cli(url, "events", "import", str(log), "--unsigned")
    assert done.returncode == 0, done.stderr
    assert rows(db)[0] == before[0] + exported
    counts["acknowledged"] += 2  # the match, the import


def test_disk_full_under_the_service(small_disk, tmp_path, td_token, counts):
    """Clients play over HTTP while the disk fills up and is freed again: 503s that
    say the disk is full, the service goes on by itself once there is room."""
    url = f"sqlite:///{small_disk / 'k.db'}"
    assert cli(url, "db", "upgrade").returncode == 0
    td = td_token(url)

    def outage() -> tuple[float, float, float]:
        ballast = fill(small_disk, 0)
        down = time.monotonic()
        time.sleep(1.5)
        up = time.monotonic()
        ballast.unlink()
        return down, up, time.monotonic()

    with Server(url, tmp_path) as server:
        # reads go on while the disk is full (200), and a write may still find room in the WAL (201)
        through_outage(server, url, td, counts, outage, clients=4, followers=2, detail="the disk is full",
                       down_allows=frozenset({0, 200, 201, 503}))


def _damage(db: Path, match: str) -> int:
    """Overwrite the header of the b-tree leaf of ``events`` that holds ``match``'s
    last event (a load reads it whatever snapshot it starts from; positions run 1, 2,
    3… on SQLite, a leaf holding the next ``ncell`` rows in tree order); returns the
    page's number."""
    conn = sqlite3.connect(db)
    try:
        positions = [p for (p,) in conn.execute(
            "SELECT position FROM events WHERE stream_id = ? ORDER BY version", (f"match-{match}",))]
        target = positions[-1]
        leaves = conn.execute("SELECT pageno, ncell FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' "
                              "ORDER BY path").fetchall()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    below, page = 0, 0
    for page, cells in leaves:  # noqa: B007 - the page found is the one the loop stops at
        if below < target <= below + cells:
            break
        below += cells
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xff" * 8)
    return int(page)


def test_a_damaged_page(tmp_path, league, counts):
    db = tmp_path / "k.db"
    url = f"sqlite:///{db}"
    shutil.copy(league.db, db)
    backup = league.db
    conn = sqlite3.connect(db)
    match = conn.execute("SELECT substr(stream_id, 7) FROM events WHERE stream_id LIKE 'match-%' "
                         "ORDER BY position LIMIT 1").fetchone()[0]
    conn.close()
    page = _damage(db, match)
    counts["faults"] += 1

    # a write that reads the damaged page: refused, before anyone ran verify
    one_line_error(cli(url, "match", "deal", match), "is damaged", "kartludo verify")
    # verify names the page (and notes it beside the file)
    found = cli(url, "verify")
    assert found.returncode == 1 and f"page {page}" in found.stdout + found.stderr, found.stdout + found.stderr
    assert "Traceback" not in found.stdout + found.stderr
    note = Path(str(db) + "-damaged")
    assert f"page {page}" in note.read_text()
    # from then on every write is refused, even one that reads no damaged page
    one_line_error(cli(url, "match", "new", "svoi-kozyri", "--players", "ann,bob"), "is damaged",
                   f"page {page}", "no writes until it is repaired")
    one_line_error(cli(url, "token", "new", "--role", "td", "--label", "x"), "is damaged")
    # a read that meets it: a clear error too, through the store or through the read models' own queries
    one_line_error(cli(url, "replay", match, "--deal", "1", "--json"), "is damaged")
    one_line_error(cli(url, "standings"), "is damaged")
    # the service: a 503, no traceback
    from litestar.testing import TestClient

    from kartludo.service.app import create_app

    with TestClient(create_app(url)) as http:
        for path in (f"/matches/{match}/events", "/standings"):
            r = http.get(path)
            assert r.status_code == 503 and "is damaged" in r.json()["detail"], (path, r.text)
            assert r.headers.get("retry-after")
        r = http.post("/matches", json={"game": "svoi-kozyri", "players": ["a", "b"]})
        assert r.status_code in (401, 503), r.text  # no token: refused before any write either way
    # restored from the backup: verify finds it whole, lifts the refusal, writes go through
    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    shutil.copy(backup, db)
    assert cli(url, "verify").returncode == 0
    assert not note.exists()
    made = cli(url, "match", "new", "svoi-kozyri", "--players", "ann,bob")
    assert made.returncode == 0, made.stderr
    counts["acknowledged"] += 1
