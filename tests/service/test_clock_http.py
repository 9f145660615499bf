"""Clocks over HTTP (issue 40): a match created with a clock shows it in `state`, a TD
token adds time and pauses (nobody else), and a server applies the flag falls that fell
while none ran when it starts; two servers on one database apply each once. The store's
clock is injected: nothing sleeps."""

from __future__ import annotations

import pytest
from serving import bearer

from kartludo.app.matches import clock
from kartludo.app.matches.pipeline import stream_of
from kartludo.events.match import FlagFall

S = 1_000_000
T0 = 1_796_000_000_000_000
PLAYERS = ["ann", "bob", "cy", "dan"]


@pytest.fixture
def now(store):
    t = [T0]
    store.clock = lambda: t[0]
    return t


def _client(store, db_url):
    from litestar.testing import TestClient

    from kartludo.service.app import create_app

    return TestClient(create_app(db_url, store=store, clock_sweep=None), raise_server_exceptions=False)


def _create(c, td_token, **extra):
    r = c.post("/matches", json={"game": "hakamo", "players": PLAYERS, "seed": 5, **extra},
               headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r.json()


def test_a_clock_over_http_td_time_pause_and_refusals(store, db_url, now, td_token):
    with _client(store, db_url) as c:
        created = _create(c, td_token, clock="5m+10s")
        mid, tokens = created["match"], created["tokens"]
        assert created["dealt"]
        now[0] += 12 * S
        state = c.get(f"/matches/{mid}/state").json()  # anonymous: times only, public
        [first] = state["to_act"]
        assert state["clock"]["seats"][first] == {"remaining_ms": 288_000, "running": True, "flags": 0}
        assert c.get(f"/matches/{mid}/clock").json() == state["clock"]
        other = next(p for p in PLAYERS if p != first)
        seat_headers = bearer(tokens[other])
        before = len(store.read_stream(clock.table_stream(mid)))
        for path, body in [("time", {"seat": first, "time": "60s", "reason": "x"}), ("pause", {"reason": "x"})]:
            assert c.post(f"/matches/{mid}/clock/{path}", json=body).status_code == 401
            r = c.post(f"/matches/{mid}/clock/{path}", json=body, headers=seat_headers)
            assert r.status_code == 403 and "only a TD token" in r.json()["detail"]
        r = c.post(f"/matches/{mid}/clock/time", json={"seat": first, "time": "5x", "reason": "x"},
                   headers=bearer(td_token))
        assert r.status_code == 422 and "--time '5x' is not a duration" in r.json()["detail"]
        r = c.post(f"/matches/{mid}/clock/resume", json={"reason": "x"}, headers=bearer(td_token))
        assert r.status_code == 409 and "not paused" in r.json()["detail"]
        assert len(store.read_stream(clock.table_stream(mid))) == before  # nothing written by a refusal
        r = c.post(f"/matches/{mid}/clock/time", json={"seat": first, "time": "60s", "reason": "lights"},
                   headers=bearer(td_token))
        assert r.status_code == 201 and r.json()["seats"][first]["remaining_ms"] == 348_000
        r = c.post(f"/matches/{mid}/clock/pause", json={"reason": "dispute"}, headers=bearer(td_token))
        assert r.status_code == 201 and r.json()["paused"] is True
        [added, paused] = store.read_stream(clock.table_stream(mid))[-2:]
        assert (added.event.by, added.event.reason, paused.event.by) == ("mia", "lights", "mia")
        plain = _create(c, td_token)["match"]
        r = c.post(f"/matches/{plain}/clock/pause", json={"reason": "x"}, headers=bearer(td_token))
        assert r.status_code == 409 and "has no clock" in r.json()["detail"]
        assert c.get(f"/matches/{plain}/clock").status_code == 404
        assert "clock" not in c.get(f"/matches/{plain}/state").json()
        r = c.post("/matches", json={"game": "hakamo", "players": PLAYERS, "clock": "5x"}, headers=bearer(td_token))
        assert r.status_code == 422 and "--clock base '5x' is not a duration" in r.json()["detail"]
        r = c.post("/matches", json={"game": "hakamo", "players": PLAYERS, "on_flag": "bot-penalty"},
                   headers=bearer(td_token))
        assert r.status_code == 422 and "--on-flag bot-penalty says what a flag fall does: it needs a clock" in r.text
        r = c.post("/matches", json={"game": "hakamo", "players": PLAYERS, "clock": "1m", "on_flag": "concede"},
                   headers=bearer(td_token))
        assert r.status_code == 422 and "on_flag" in r.text
        penalised = _create(c, td_token, clock="1m", on_flag="bot-penalty")["match"]
        assert c.get(f"/matches/{penalised}/clock").json()["consequence"] == "bot-penalty"


def test_servers_started_after_the_flag_fell_apply_it_once(store, db_url, now, td_token):
    from kartludo.store import EventStore

    with _client(store, db_url) as c:
        created = _create(c, td_token, clock="1m")
    mid = created["match"]
    now[0] += 90 * S  # no server runs when the flag falls
    others = [EventStore.open(db_url, clock=lambda: now[0]) for _ in range(2)]
    try:
        for other in others:  # two servers (as `serve --workers` starts them) on one database
            with _client(other, db_url) as c:
                state = c.get(f"/matches/{mid}/state").json()
                assert sum(s["flags"] for s in state["clock"]["seats"].values()) == 1
    finally:
        for other in others:
            other.close()
    flags = [r for r in store.read_stream(stream_of(mid)) if isinstance(r.event, FlagFall)]
    assert len(flags) == 1 and flags[0].actor == clock.CLOCK_ACTOR
    # its public facts are times, never a card of the flagged seat's hand
    with _client(store, db_url) as c:
        [event] = [e for e in c.get(f"/matches/{mid}/events").json() if e["type"] == "match.flag-fall"]
        assert set(event["payload"]["facts"]) == {"player", "control", "turn_started_at", "flag_fell_at", "turn_us"}
        r = c.get("/audit", params={"match": mid})
        assert [row["type"] for row in r.json()] == ["match.flag-fall"]
