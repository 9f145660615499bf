"""``kartludo serve --workers 2``: two processes sweep one database for due flag falls
(every 0.1 s, racing), and every turn's flag falls once (issue 40). The test waits for
the flag falls by reading the log (readiness), never by a fixed sleep of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from serving import START_CAP, free_port, wait_until_serving

from kartludo.app.matches import clock
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.events.match import FlagFall

PLAYERS = ["ann", "bob", "cy", "dee"]


def test_two_worker_processes_apply_each_flag_fall_once(store, db_url):
    svc = MatchService(store)
    mid = svc.create("hakamo", PLAYERS, seed=4, also=clock.setting(clock.control_of(None, "1s")))
    svc.deal(mid)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kartludo.cli.main", "--db", db_url, "serve", "--port", str(port),
                             "--workers", "2", "--clock-sweep", "0.1", "--no-access-log"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ})
    try:
        wait_until_serving(proc, f"http://127.0.0.1:{port}/games")
        deadline = time.monotonic() + START_CAP
        flags: list = []
        while len(flags) < 3:  # each turn lasts a second at most: three flag falls, three turns
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            assert time.monotonic() < deadline, f"only {len(flags)} flag falls within {START_CAP:.0f} s"
            time.sleep(0.2)
            flags = [r for r in store.read_stream(stream_of(mid)) if isinstance(r.event, FlagFall)]
    finally:
        proc.terminate()
        proc.wait(30)
    records = store.read_stream(stream_of(mid))
    flags = [r for r in records if isinstance(r.event, FlagFall)]
    turns = [(r.event.seat, r.event.facts["turn_started_at"]) for r in flags]
    assert len(turns) == len(set(turns)), f"a turn flagged twice: {turns}"
    assert [r.version for r in records] == list(range(1, len(records) + 1))
    for rec in flags:  # each flag fall is followed by the bot's play of that seat's turn
        after = records[rec.version]
        assert after.actor == clock.CLOCK_ACTOR and not isinstance(after.event, FlagFall)
