"""A live stream answers to its token for as long as it is open, and a caller may
hold only so many streams open."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest
from serving import bearer, serve_in_thread

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import hash_token, revoke

PLAYERS = ["ann", "bob", "cy"]
BODY = {"game": "uxinjo", "players": PLAYERS, "seed": 11, "command_id": "live-1", "auto_deal": False}


def _ended_within(reader, seconds: float, since: float) -> float:
    assert reader.ended.wait(seconds + 5), "the revoked token's stream did not end"
    return time.monotonic() - since


@pytest.mark.parametrize("how", ["this process", "cli process", "re-issue"])
def test_a_revoked_tokens_stream_ends_within_a_second(server, sse, store, db_url, td_token, how):
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json=BODY, headers=bearer(td_token)).json()
    mid, bob = created["match"], created["tokens"]["bob"]
    dealt = http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token)).json()
    stream = sse(f"{server}/matches/{mid}/stream", bearer(bob))
    watcher = sse(f"{server}/matches/{mid}/stream")  # a public stream goes on
    stream.wait_for(dealt["positions"][-1])
    if how == "this process":
        revoke(store, bob, by="test")
        revoked_at = time.monotonic()
    elif how == "cli process":
        done = subprocess.run([sys.executable, "-m", "kartludo.cli.main", "--db", db_url, "token", "revoke",
                               hash_token(bob)[:16], "--reason", "left"], capture_output=True, text=True,
                              env={**os.environ}, timeout=60)
        revoked_at = time.monotonic()  # the revocation is committed when the process has ended
        assert done.returncode == 0, done.stderr
    else:
        again = http.post("/matches", json=BODY, headers=bearer(td_token)).json()
        revoked_at = time.monotonic()
        assert again["duplicate"] and again["tokens"]["bob"] != bob
    head = store.head_position()
    assert _ended_within(stream, 1.0, revoked_at) < 1.0
    assert "token revoked: the stream ends" in stream.comments
    # the seat plays on (with the token it holds now); the revoked stream never carries it
    svc = MatchService(store)
    match = svc.load(mid)
    player = match.players[match.game.to_act(match.state)[0]]
    verb, *args = svc.legal(match, player)[0].text().split()
    outcome = svc.act(mid, player, verb, args)
    watcher.wait_for(outcome.positions[-1])
    assert all(int(m["id"]) <= head for m in stream.messages)
    assert http.get(f"/matches/{mid}/stream", headers=bearer(bob)).status_code == 401
    http.close()


def test_a_stream_rechecks_its_token_every_second_without_any_wake_up(store, db_url, td_token, open_sse,
                                                                     monkeypatch):
    from kartludo.service import live
    from kartludo.service.app import create_app

    with serve_in_thread(create_app(db_url, store=store)) as url:
        created = httpx.post(f"{url}/matches", json=BODY, headers=bearer(td_token)).json()
        stream = open_sse(f"{url}/matches/{created['match']}/stream", bearer(created["tokens"]["cy"]))
        stream.wait_for(1)
        monkeypatch.setattr(live.LiveHub, "bump", lambda self: None)  # no commit wakes the stream now
        revoke(store, created["tokens"]["cy"])
        revoked_at = time.monotonic()
        assert _ended_within(stream, 1.0, revoked_at) < 1.5  # the next per-second check at the latest
        stream.close()


def test_live_streams_per_token_and_per_address_are_capped(store, db_url, td_token, open_sse):
    from kartludo.service.app import create_app
    from kartludo.service.limits import Limits

    limits = Limits(streams_per_seat=2, anonymous_streams=3, anonymous_streams_per_address=2)
    with serve_in_thread(create_app(db_url, store=store, limits=limits)) as url:
        created = httpx.post(f"{url}/matches", json=BODY, headers=bearer(td_token)).json()
        mid, ann, bob = created["match"], created["tokens"]["ann"], created["tokens"]["bob"]
        path = f"{url}/matches/{mid}/stream"
        mine = [open_sse(path, bearer(ann)) for _ in range(2)]
        refused = httpx.get(path, headers=bearer(ann))
        assert refused.status_code == 429
        assert refused.json()["error"] == "too many open live streams for this token (at most 2): close one first"
        assert open_sse(path, bearer(bob)).status == 200  # another seat's allowance is its own
        anonymous = [open_sse(path) for _ in range(2)]
        refused = httpx.get(path)
        assert refused.status_code == 429 and "from 127.0.0.1 (at most 2)" in refused.json()["error"]
        # a closed stream gives its place back
        mine[0].close()
        deadline = time.monotonic() + 5
        while (reopened := open_sse(path, bearer(ann))).status != 200:
            assert time.monotonic() < deadline, "a closed stream's place was not given back"
            time.sleep(0.05)
        for reader in [*mine, reopened, *anonymous]:
            reader.close()


def test_anonymous_streams_are_capped_in_all_across_addresses():
    from litestar.exceptions import TooManyRequestsException

    from kartludo.app.tokens import Principal
    from kartludo.service.limits import Limits
    from kartludo.service.live import StreamSlots

    slots = StreamSlots(Limits(anonymous_streams=3, anonymous_streams_per_address=2, streams_per_td=1))
    held = [slots.take(None, f"10.0.0.{i}") for i in range(3)]
    with pytest.raises(TooManyRequestsException, match="without a token on this server \\(at most 3\\)"):
        slots.take(None, "10.0.0.9")
    td = Principal("h1", "td")
    held.append(slots.take(td, "10.0.0.9"))  # a token's allowance is separate
    with pytest.raises(TooManyRequestsException, match="for this token"):
        slots.take(td, "10.0.0.9")
    held[0].release()
    held[0].release()  # giving back twice frees one place only
    held.append(slots.take(None, "10.0.0.9"))
    with pytest.raises(TooManyRequestsException):
        slots.take(None, "10.0.0.8")


def test_a_revoked_tokens_hearing_stream_ends_cleanly_within_a_second(server, sse, store, td_token, caplog):
    """A hearing room's stream re-checks its token as a match's does: once the TD's
    token is revoked it ends with a `closed` event, not with a server error."""
    import logging

    from scenarios import foul_deal

    from kartludo.app.audit.rulings import appeal
    from kartludo.app.audit.trail import resolve_ruling
    from kartludo.app.tokens import issue

    svc = MatchService(store)
    mid = svc.create("uxinjo", PLAYERS, seed=1)
    foul_deal(svc, mid, 0)
    ruling = f"{mid}/uxinjo-d1-Or"
    appeal(store, resolve_ruling(store, ruling), "ann", "two sets")
    leader = issue(store, "td", label="noa")
    assert httpx.post(f"{server}/hearings/{ruling}", headers=bearer(leader)).status_code == 201
    stream = sse(f"{server}/hearings/{ruling}/stream", bearer(leader))
    deadline = time.monotonic() + 30
    while not stream.messages:
        assert time.monotonic() < deadline, "no frame"
        time.sleep(0.01)
    caplog.set_level(logging.ERROR)
    revoke(store, leader, by="test")
    revoked_at = time.monotonic()
    assert _ended_within(stream, 1.0, revoked_at) < 1.5
    assert stream.messages[-1]["event"] == "closed"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
