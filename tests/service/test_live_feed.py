"""A match's shared live feed shows every viewer exactly what ``/events`` shows them, and
a live stream gets every event once, in order, whoever writes them."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import every_game
import httpx
import pytest
from serving import bearer

from kartludo.app.errors import AppError
from kartludo.app.matches.log import MatchLog
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.app.reading.reader import MatchReader
from kartludo.engine.base import ALL, PUBLIC, IllegalCommand
from kartludo.engine.registry import game_names
from kartludo.events.base import to_builtins
from kartludo.events.streams import match_stream as stream_of
from kartludo.service.live import woken
from kartludo.service.routes import stream as stream_route
from kartludo.store import EventStore


def _as_shown(events):
    return [to_builtins(e) for e in events]


def _expected(svc, match_id, viewer, after):
    return [to_builtins(e) for e in MatchReader(svc).events(match_id, viewer, after=after)]


def _viewers(n):
    return [(ALL, True), (PUBLIC, False), *[(seat, False) for seat in range(n)]]


@pytest.mark.parametrize("game", game_names())
def test_the_feed_shows_each_viewer_what_events_shows(store, game, monkeypatch):
    """Fed in small steps as a match is played (deals begin and end, the match ends),
    trimmed as it grows: at every step each viewer's new events equal ``/events``. The
    commands go through the feed's own service: their events reach it from the command
    path's fold, not read and folded again."""
    monkeypatch.setattr(MatchLog, "KEEP", 12)
    svc = MatchService(store)
    players = every_game.players(game)
    n = len(players)
    rng = random.Random(f"feed:{game}")
    bots = pick_bots(game, ["random"])
    match_id = svc.create(game, players, seed=5)
    feed = MatchReader(svc).follow(match_id)
    folds = []
    monkeypatch.setattr(MatchLog, "fold", _counting(MatchLog.fold, feed.log, folds))
    seen = {key: 0 for key in _viewers(n)}
    last = None
    for _ in range(40):
        play_match(svc, game, players, bots, rng, match_id=match_id, max_deals=1, max_commands=rng.randint(1, 9))
        feed.catch_up()
        for key, after in seen.items():
            got = feed.since(after, *key)
            want = _expected(svc, match_id, key[0], after)
            if got is None:  # behind the feed: a stream reads the store then
                assert after < feed.log.base_position
                got_out = want
            else:
                got_out = _as_shown(got)
            assert got_out == want, (key, after)
            if want:
                seen[key] = want[-1]["position"]
        match = svc.load(match_id)
        if match.game.is_finished(match.state) or match.version == last:
            break
        last = match.version
    assert last is not None
    assert sum(folds) == match.version - 1  # every event folded once, where the command was appended


def _counting(fold, log, counts):
    """``MatchLog.fold`` counting what it folds into ``log``."""
    def counted(self, records, each=None):
        out = fold(self, records, each)
        if self is log:
            counts.append(len(out))
        return out

    return counted


def test_a_feed_made_mid_deal_and_mid_match_hashes_as_events_does(store):
    """A feed built from a snapshot of a long match (its base well past the first
    event), fed by another process's commands (read from the store), still withholds
    or shows each hash as ``/events`` does."""
    svc = MatchService(store)
    rng = random.Random(3)
    bots = pick_bots("uxinjo", ["random"])
    for seed in (None, 9):  # without a seed only the running deal's salt is withheld
        match_id = svc.create("uxinjo", ["ann", "bob", "cy"], seed=seed)
        play_match(svc, "uxinjo", ["ann", "bob", "cy"], bots, rng, match_id=match_id, max_deals=3)
        play_match(svc, "uxinjo", ["ann", "bob", "cy"], bots, rng, match_id=match_id, max_deals=1, max_commands=4)
        feed = MatchReader(MatchService(store)).follow(match_id)
        play_match(svc, "uxinjo", ["ann", "bob", "cy"], bots, rng, match_id=match_id, max_deals=2)
        feed.catch_up()
        for viewer, td in _viewers(3):
            got = _as_shown(feed.since(feed.log.base_position, viewer, td))
            assert got == _expected(svc, match_id, viewer, feed.log.base_position)
            assert got


def test_a_follower_gets_every_event_once_under_concurrent_writers(server, sse, db_url, td_token):
    """Two other writers (own store connections, as other processes) and the service
    itself append to the match, while unrelated matches are written too: every stream
    receives each of the match's events exactly once, in order."""
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 4},
                        headers=bearer(td_token)).json()
    mid = created["match"]
    followers = [sse(f"{server}/matches/{mid}/stream"), sse(f"{server}/matches/{mid}/stream", bearer(td_token)),
                 sse(f"{server}/matches/{mid}/stream", bearer(created["tokens"]["bob"]))]
    for f in followers:
        f.wait_for(1)
    errors: list[BaseException] = []

    def writer(seed: int, own_match: bool) -> None:
        store = EventStore.open(db_url)
        try:
            svc = MatchService(store)
            rng = random.Random(seed)
            target = svc.create("uxinjo", ["ann", "bob", "cy"], seed=seed) if own_match else mid
            for _ in range(12):
                try:
                    play_match(svc, "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", ["random"]), rng,
                               match_id=target, max_deals=1, max_commands=15)
                except (IllegalCommand, AppError):  # the other writer moved first: play on from there
                    continue
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(s, own)) for s, own in [(1, False), (2, False), (3, True)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    other = EventStore.open(db_url)
    try:
        positions = [r.position for r in other.read_stream(stream_of(mid))]
    finally:
        other.close()
    assert len(positions) > 20
    for f in followers:
        f.wait_for(positions[-1], timeout=15)
        time.sleep(0.3)  # anything duplicated would arrive now
        assert [int(m["id"]) for m in f.messages] == positions
    http.close()


def test_a_wake_up_counts_when_the_wait_for_it_gives_up_in_the_same_turn():
    """``asyncio.wait_for`` may give up on a wait whose event was set in the same turn of
    the loop (here: at once, timeout 0, the waiting task cancelled before it ran): the
    event decides, not how the wait ended."""
    async def check() -> tuple[bool, bool, bool]:
        wake = asyncio.Event()
        wake.set()
        gave_up = False
        try:
            await asyncio.wait_for(wake.wait(), timeout=0)
        except TimeoutError:
            gave_up = True
        return gave_up, await woken(wake, 0), await woken(asyncio.Event(), 0.01)

    gave_up, set_one, unset_one = asyncio.run(check())
    assert set_one is True and unset_one is False
    if not gave_up:
        pytest.skip("this Python's wait_for does not give up on a set event (the race cannot occur)")


def test_a_stream_whose_every_wait_times_out_still_sends_every_event(server, sse, td_token, monkeypatch):
    """Every wait of the stream for its next wake-up gives up at once (the token check's
    timeout set to 0), so each commit's wake-up lands as the wait times out: the stream
    still sends every event (it had lost them all until a commit woke it normally)."""
    monkeypatch.setattr(stream_route, "TOKEN_CHECK_SECONDS", 0)
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 4},
                        headers=bearer(td_token)).json()
    assert created["dealt"]  # the table dealt the first deal at once
    mid, tokens = created["match"], created["tokens"]
    follower = sse(f"{server}/matches/{mid}/stream")
    follower.wait_for(1)
    for _ in range(12):
        follower.wait_for(http.get(f"/matches/{mid}/events").json()[-1]["position"], timeout=10)
        to_act = http.get(f"/matches/{mid}/state").json()["to_act"]
        if not to_act:
            break
        seat = bearer(tokens[to_act[0]])
        verb, *args = http.get(f"/matches/{mid}/legal", headers=seat).json()[0].split()
        done = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args}, headers=seat)
        assert done.status_code == 201, done.text
    positions = [e["position"] for e in http.get(f"/matches/{mid}/events").json()]
    follower.wait_for(positions[-1], timeout=10)
    assert len(positions) > 10
    assert [int(m["id"]) for m in follower.messages] == positions
    http.close()
