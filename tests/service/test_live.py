"""The live stream and concurrent clients, against the service on loopback."""

from __future__ import annotations

import random
import threading
import time

import httpx
from serving import bearer, free_port, wait_until_serving

from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.app.matches.refold import refold_all
from kartludo.events.base import to_builtins
from kartludo.store import EventStore

PLAYERS = ["ann", "bob", "cy"]


def _create(http, td_token, seed=7):
    r = http.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": seed, "auto_deal": False},
                  headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r.json()


def test_a_commit_by_another_writer_reaches_a_subscriber(server, sse, db_url, td_token):
    http = httpx.Client(base_url=server, timeout=30)
    created = _create(http, td_token)
    mid = created["match"]
    bob = sse(f"{server}/matches/{mid}/stream", bearer(created["tokens"]["bob"]))
    public = sse(f"{server}/matches/{mid}/stream")
    bob.wait_for(1)  # the backlog: MatchCreated
    assert [m["event"] for m in bob.messages] == ["match.created"]
    other = EventStore.open(db_url)  # another writer, as another process would be
    try:
        started = time.monotonic()
        outcome = MatchService(other).deal(mid, actor="elsewhere")
        bob.wait_for(outcome.positions[-1], timeout=5)
        public.wait_for(outcome.positions[-1], timeout=5)
        assert time.monotonic() - started < 3
    finally:
        other.close()
    dealt = bob.messages[-1]
    assert dealt["event"] == "match.deal-started" and int(dealt["id"]) == outcome.positions[0]
    deck = dealt["data"]["payload"]["deck"]
    hidden = public.messages[-1]["data"]["payload"]["deck"]
    assert "??" in deck and hidden.count("??") > deck.count("??")  # bob sees his own hand only
    # a stream resumes after a position
    later = sse(f"{server}/matches/{mid}/stream?after={outcome.positions[0] - 1}", bearer(created["tokens"]["bob"]))
    later.wait_for(outcome.positions[0])
    assert [int(m["id"]) for m in later.messages] == outcome.positions
    resumed = sse(f"{server}/matches/{mid}/stream",
                  {**bearer(created["tokens"]["bob"]), "Last-Event-ID": str(outcome.positions[0] - 1)})
    resumed.wait_for(outcome.positions[0])
    assert [int(m["id"]) for m in resumed.messages] == outcome.positions
    assert http.get("/matches/nosuch/stream").status_code == 404
    assert http.get(f"/matches/{mid}/stream", headers=bearer("bad")).status_code == 401
    http.close()


def _facts(event):
    """An event's data without a deal's salt and commitment (fresh randomness on every run)."""
    data = to_builtins(event)
    if data["type"] == "match.deal-started":
        assert data.pop("salt") and data.pop("commitment")
    return data


def test_concurrent_clients_apply_each_accepted_command_once(server, store, td_token, tmp_path):
    http = httpx.Client(base_url=server, timeout=30)
    created = _create(http, td_token, seed=3)
    mid, tokens = created["match"], created["tokens"]
    assert http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token)).status_code == 201
    accepted: list[tuple[str, dict, dict]] = []
    statuses: list[int] = []
    lock = threading.Lock()
    stop = time.monotonic() + 4

    def client(n: int) -> None:
        player = PLAYERS[n % 3]
        rng = random.Random(n)
        with httpx.Client(base_url=server, timeout=30) as c:
            for i in range(400):
                if time.monotonic() > stop:
                    return
                state = c.get(f"/matches/{mid}/state", headers=bearer(tokens[player])).json()
                if state["status"] == "finished" or not state["to_act"]:
                    return
                legal = c.get(f"/matches/{mid}/legal", headers=bearer(tokens[player])).json()
                if not legal:
                    time.sleep(0.002)
                    continue
                calm = [c for c in legal if not c.startswith(("levu", "munt"))]  # keep the deal going
                verb, *args = rng.choice(calm or legal).split()
                body = {"verb": verb, "args": args, "command_id": f"c{n}-{i}"}
                r = c.post(f"/matches/{mid}/commands", json=body, headers=bearer(tokens[player]))
                with lock:
                    statuses.append(r.status_code)
                    if r.status_code == 201:
                        accepted.append((player, body, r.json()))
                        # a retried POST returns the first result and writes nothing
                        again = c.post(f"/matches/{mid}/commands", json=body, headers=bearer(tokens[player]))
                        assert again.status_code == 201 and again.json()["duplicate"]
                        assert again.json()["positions"] == r.json()["positions"]

    threads = [threading.Thread(target=client, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    http.close()
    assert set(statuses) <= {201, 409}, statuses
    assert len(accepted) >= 5 and 409 in statuses  # the clients did race
    records = store.read_stream(stream_of(mid))
    assert refold_all(store)[1] == []
    # each accepted command's events appear once, and every event after the deal is one of them
    positions = [p for _, _, out in accepted for p in out["positions"]]
    assert len(positions) == len(set(positions))
    deal_at = next(r.version for r in records if r.type == "match.deal-started")
    # a command that ends a deal lets the table deal the next (HTTP matches deal by themselves)
    by_table = {r.version for r in records if r.version > deal_at and r.type == "match.deal-started"}
    assert sorted(positions) == [r.position for r in records if r.version > deal_at and r.version not in by_table]
    # a serial run of the accepted commands, in the order they were committed, gives the same events
    serial = EventStore.open(f"sqlite:///{tmp_path / 'serial.db'}")
    try:
        svc = MatchService(serial)
        first = records[0].event
        svc.create("uxinjo", first.players, seed=first.seed, options=first.options, match_id=mid)
        svc.deal(mid)
        for player, body, out in sorted(accepted, key=lambda a: a[2]["first_version"]):
            if out["first_version"] - 1 in by_table:
                svc.deal(mid)
            outcome = svc.act(mid, player, body["verb"], body["args"])
            assert outcome.first_version == out["first_version"]
        if records[-1].version in by_table:  # the last command ended a deal
            svc.deal(mid)
        replayed = serial.read_stream(stream_of(mid))
        assert [_facts(r.event) for r in replayed] == [_facts(r.event) for r in records]
    finally:
        serial.close()


def test_kartludo_serve_runs_the_service(sqlite_url, tmp_path):
    import os
    import subprocess
    import sys

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kartludo.cli.main", "--db", sqlite_url, "serve", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
                            env={**os.environ})
    try:
        r = wait_until_serving(proc, f"http://127.0.0.1:{port}/matches")
        assert r.status_code == 200 and r.json() == []
        assert httpx.get(f"http://127.0.0.1:{port}/schema/openapi.json").json()["info"]["title"]
    finally:
        proc.terminate()
        proc.wait(10)
