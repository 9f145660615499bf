"""Reads from a PostgreSQL hot standby (``--read-db``, ``store.replicas``), on the
project's own primary and standby (``tests/replica_cluster.py``): seats never miss
their own commands, a standby that stops fails no request, a paused one is skipped
within the lag bound, and hidden information stays hidden on the replica path.

Without PostgreSQL's cluster tools these tests skip, saying why; with
``KARTLUDO_REQUIRE_PG=1`` they fail instead.
"""

from __future__ import annotations

import random
import threading
import time

import httpx
import pytest
from every_game import games
from serving import bearer, serve_in_thread

from kartludo.app.matches.pipeline import MatchService

REQUIRE_PG = __import__("os").environ.get("KARTLUDO_REQUIRE_PG") == "1"


def _unavailable(reason: str) -> None:
    if REQUIRE_PG:
        pytest.fail(reason + " (KARTLUDO_REQUIRE_PG=1)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def replica_cluster():
    """The project's own primary and streaming hot standby for this test session."""
    from replica_cluster import for_tests

    yield from for_tests(_unavailable)


@pytest.fixture
def replica(replica_cluster):
    """A fresh schema on the primary, migrated and replayed by the (running) standby:
    (primary URL, standby URL, the cluster)."""
    import psycopg
    from replica_cluster import fresh_schema

    cluster = replica_cluster
    try:
        cluster.standby_sql("SELECT pg_wal_replay_resume()")
    except psycopg.OperationalError:
        cluster.start_standby()
    with fresh_schema(cluster) as schema:
        cluster.wait_replayed()
        yield cluster.primary_url(schema), cluster.standby_url(schema), cluster


@pytest.fixture
def primary_store(replica):
    from kartludo.store import EventStore

    s = EventStore.open(replica[0])
    yield s
    s.close()


@pytest.fixture
def served(replica, primary_store):
    """The service on the primary with the standby for reads: (base URL, its Services)."""
    from kartludo.service.app import create_app

    app = create_app(replica[0], store=primary_store, read_urls=[replica[1]], read_max_lag=0.5)
    services = app.state.services
    services.reads.backoff = 0.5  # retried soon after an outage (the default is seconds)
    with serve_in_thread(app) as url:
        yield url, services


@pytest.fixture
def td(primary_store):
    from kartludo.app.tokens import issue

    return issue(primary_store, "td", label="mia")


def _new_match(http, td_token, game="hakamo", players=("ann", "bob", "cy", "dan"), seed=3):
    created = http.post("/matches", json={"game": game, "players": list(players), "seed": seed, "auto_deal": False},
                        headers=bearer(td_token))
    assert created.status_code == 201, created.text
    mid, tokens = created.json()["match"], created.json()["tokens"]
    assert http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token)).status_code == 201
    return mid, tokens


def _play(http, svc, mid, tokens, steps, rng, td_token, check_reads=True):
    """``steps`` bot commands (the TD deals when a deal ends), each by the seat to act
    with its own token; after each, that seat reads /events and /replay and must find
    its command there."""
    match = svc.load(mid)
    game, players = match.game, match.players
    bot = game.bots()["heuristic"]
    done = 0
    for _ in range(steps):
        state = svc.load(mid).state
        assert not game.is_finished(state), "the match ended: play fewer steps"
        if game.can_deal(state):
            assert http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token)).status_code == 201
            state = svc.load(mid).state
        seat = game.to_act(state)[0]
        command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        verb, *args = command.text().split()
        token = tokens[players[seat]]
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args}, headers=bearer(token))
        assert r.status_code == 201, r.text
        positions = r.json()["positions"]
        if check_reads:
            events = http.get(f"/matches/{mid}/events", params={"after": positions[0] - 1}, headers=bearer(token))
            assert events.status_code == 200, events.text
            assert [e["position"] for e in events.json()][: len(positions)] == positions, "own command missing"
            replay = http.get(f"/matches/{mid}/replay", headers=bearer(token))
            assert replay.status_code == 200, replay.text
            assert replay.json()["steps"][-1]["event"]["position"] >= positions[-1], "own command missing (replay)"
            anon = http.get(f"/matches/{mid}/events", params={"after": 0})
            assert anon.status_code == 200, anon.text
        done += 1
    return done


def test_without_read_db_reads_take_the_primary_path(db_url, store):
    """No replica URL: no router, and the one read path runs on the primary's service."""
    from kartludo.service.app import create_app
    from kartludo.store.replicas import ReadRouter, read_urls

    app = create_app(db_url, store=store)
    services = app.state.services
    assert services.reads is None and ReadRouter.of(store, []) is None
    assert services.read(None, lambda reader: reader) is services.reader
    assert read_urls(["a, b", "c  a", ""]) == ["a", "b", "c"]


def test_read_db_needs_a_postgresql_primary(sqlite_url):
    from click.testing import CliRunner

    from kartludo.cli.main import cli
    from kartludo.store import EventStore

    with EventStore.open(sqlite_url) as store:
        mid = MatchService(store).create("hakamo", ["ann", "bob", "cy", "dan"], seed=1)
    result = CliRunner().invoke(cli, ["--db", sqlite_url, "--read-db", "postgresql://postgres@127.0.0.1:1/x",
                                      "replay", mid, "--json"])
    assert result.exit_code == 1 and "--read-db needs a PostgreSQL primary" in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.postgres
def test_seats_playing_concurrently_always_read_their_own_commands(served, primary_store, td):
    url, services = served
    errors: list[BaseException] = []

    def table(seed: int) -> None:
        try:
            with httpx.Client(base_url=url, timeout=30) as http:
                mid, tokens = _new_match(http, td, seed=seed)
                _play(http, MatchService(primary_store), mid, tokens, 24, random.Random(seed), td)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=table, args=(seed,)) for seed in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert services.reads.replicas[0].reads > 0, "no read went to the replica"


@pytest.mark.postgres
def test_a_standby_that_stops_fails_no_request(served, replica, primary_store, td):
    url, services = served
    cluster = replica[2]
    svc = MatchService(primary_store)
    rng = random.Random(4)
    with httpx.Client(base_url=url, timeout=30) as http:
        mid, tokens = _new_match(http, td)
        _play(http, svc, mid, tokens, 4, rng, td)
        served_before = services.reads.replicas[0].reads
        assert served_before > 0
        stopper = threading.Thread(target=cluster.stop_standby)
        stopper.start()  # stops while the seats go on playing and reading
        _play(http, svc, mid, tokens, 12, rng, td)
        stopper.join(60)
        primary_before = services.reads.primary_reads
        _play(http, svc, mid, tokens, 4, rng, td)
        assert services.reads.primary_reads > primary_before  # the primary took the reads
        cluster.start_standby()
        cluster.wait_replayed()
        time.sleep(services.reads.backoff + 0.1)
        _play(http, svc, mid, tokens, 4, rng, td)
    assert services.reads.replicas[0].reads > served_before, "the replica was not used again after it came back"


@pytest.mark.postgres
def test_a_paused_standby_is_skipped_within_the_lag_bound(served, replica, primary_store, td):
    url, services = served
    cluster = replica[2]
    svc = MatchService(primary_store)
    rng = random.Random(6)
    with httpx.Client(base_url=url, timeout=30) as http:
        mid, tokens = _new_match(http, td)
        _play(http, svc, mid, tokens, 2, rng, td)
        cluster.wait_replayed()
        cluster.standby_sql("SELECT pg_wal_replay_pause()")
        try:
            _play(http, svc, mid, tokens, 3, rng, td)
            head = svc.load(mid).version
            time.sleep(services.reads.max_lag + 0.2)
            replica_reads = services.reads.replicas[0].reads
            for _ in range(5):  # anonymous reads need no own write: only the lag bound guards them
                events = http.get(f"/matches/{mid}/events").json()
                assert events[-1]["version"] == head, "a stale replica served a read past the lag bound"
            assert services.reads.replicas[0].reads == replica_reads
        finally:
            cluster.standby_sql("SELECT pg_wal_replay_resume()")


def test_reads_of_a_match_the_standby_has_not_replayed_yet_go_to_the_primary(served, replica, open_sse, td):
    """A seat (or anyone) reads a match as soon as the TD has created and dealt it,
    before the standby has replayed either: the standby does not know the match, so the
    primary answers (the live stream's backlog, ``/events``, ``/replay`` and the CLI's
    replay, even within a lag bound the standby meets), and the stream does not end."""
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    url, services = served
    primary, standby, cluster = replica
    cluster.wait_replayed()
    cluster.standby_sql("SELECT pg_wal_replay_pause()")
    bound, services.reads.max_lag = services.reads.max_lag, 3600  # the paused standby stays eligible
    try:
        with httpx.Client(base_url=url, timeout=30) as http:
            mid, tokens = _new_match(http, td)
            dealt = http.get(f"/matches/{mid}/events", headers=bearer(td)).json()[-1]["position"]
            for name in ("ann", None):
                who = bearer(tokens[name]) if name else {}
                stream = open_sse(f"{url}/matches/{mid}/stream", who)
                stream.wait_for(dealt)
                assert [m["data"]["type"] for m in stream.messages][:2] == ["match.created", "match.deal-started"]
                events = http.get(f"/matches/{mid}/events", headers=who)
                assert events.status_code == 200 and events.json()[-1]["position"] == dealt, events.text
                replay = http.get(f"/matches/{mid}/replay", headers=who)
                assert replay.status_code == 200 and replay.json()["deal"] == 1, replay.text
        read = CliRunner().invoke(cli, ["--db", primary, "--read-db", standby, "--read-max-lag", "3600",
                                        "replay", mid, "--json"])
        assert read.exit_code == 0 and '"deal"' in read.output, read.output
    finally:
        services.reads.max_lag = bound
        cluster.standby_sql("SELECT pg_wal_replay_resume()")


@pytest.mark.postgres
def test_hidden_information_stays_hidden_on_the_replica_path(replica, served, primary_store, td, open_sse):
    """The property check of ``test_hidden`` (every seat's state, events, live stream and
    replay at every step of a deal), with reads served by the standby, replayed up to the
    primary before each round of reads."""
    from test_hidden import test_no_seat_sees_a_card_another_seat_holds as hidden_check

    url, services = served
    cluster = replica[2]
    for game in games():
        hidden_check(game, url, open_sse, primary_store, td, settle=cluster.wait_replayed)
    assert services.reads.replicas[0].reads > 0, "no read went to the replica"


@pytest.mark.postgres
def test_cli_replay_reads_from_the_standby(replica, primary_store):
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    primary, standby, cluster = replica
    mid = MatchService(primary_store).create("hakamo", ["ann", "bob", "cy", "dan"], seed=2)
    MatchService(primary_store).deal(mid, None, actor="td")
    cluster.wait_replayed()
    runner = CliRunner()
    on_primary = runner.invoke(cli, ["--db", primary, "replay", mid, "--json"])
    on_standby = runner.invoke(cli, ["--db", primary, "--read-db", standby, "replay", mid, "--json"])
    assert on_primary.exit_code == 0 and on_standby.exit_code == 0, on_standby.output
    assert on_standby.output == on_primary.output
    cluster.standby_sql("SELECT pg_wal_replay_pause()")
    try:  # the standby no longer replays: a read it serves lacks the next command
        svc = MatchService(primary_store)
        match = svc.load(mid)
        seat = match.game.to_act(match.state)[0]
        command = match.game.legal_commands(match.state, seat)[0].text().split()
        svc.act(mid, match.players[seat], command[0], command[1:])
        env = {"KARTLUDO_READ_DB": f" {standby} "}
        stale = runner.invoke(cli, ["--db", primary, "--read-max-lag", "3600", "replay", mid, "--json"], env=env)
        assert stale.exit_code == 0 and stale.output == on_primary.output, "the standby did not serve the read"
        fresh = runner.invoke(cli, ["--db", primary, "--read-max-lag", "0", "replay", mid, "--json"], env=env)
        current = runner.invoke(cli, ["--db", primary, "replay", mid, "--json"])
        assert fresh.exit_code == 0 and fresh.output == current.output != on_primary.output
    finally:
        cluster.standby_sql("SELECT pg_wal_replay_resume()")
    on_primary = current
    cluster.stop_standby()
    try:  # a standby that is down: the primary answers, nothing fails
        down = runner.invoke(cli, ["--db", primary, "--read-db", standby, "replay", mid, "--json"])
        assert down.exit_code == 0 and down.output == on_primary.output, down.output
    finally:
        cluster.start_standby()


# --- read models (standings, lists, the audit trail) on the standby -------------------
PLAYERS3 = ["ann", "bob", "cy"]


def _checkpoint_rows(primary_url: str) -> list[tuple]:
    """The projections' checkpoint rows with their xmin/xmax: a catch-up that locks or
    writes them (a write transaction) changes one of these."""
    import psycopg

    with psycopg.connect(primary_url, autocommit=True) as conn:
        return conn.execute("SELECT name, position, xmin::text, xmax::text FROM projection_checkpoints "
                            "ORDER BY name").fetchall()


def _until_replica_serves(router, read, tries: int = 200):
    """``read()`` (each result is returned for the caller's checks) until the standby has
    served one; the standby streams asynchronously, so a read right after a write may
    rightly go to the primary."""
    before = router.replicas[0].reads
    results = []
    for _ in range(tries):
        results.append(read())
        if router.replicas[0].reads > before:
            return results
        time.sleep(0.02)
    raise AssertionError("the standby never served the read")


@pytest.mark.postgres
def test_league_and_audit_reads_are_served_by_the_standby(served, replica, primary_store, td):
    """Standings, the match list, a series and the audit trail come from the standby once
    it has replayed the catch-up; an idle league's reads write nothing on the primary."""
    from scenarios import foul_deal

    from kartludo.app.league import standings as league
    from kartludo.app.league.series import create_series
    from kartludo.app.matches.simulate import pick_bots, play_match

    url, services = served
    primary, _, cluster = replica
    router = services.reads
    svc = MatchService(primary_store)
    sid = create_series(primary_store, "uxinjo", PLAYERS3, 60)
    finished, _, _ = play_match(svc, "uxinjo", PLAYERS3, pick_bots("uxinjo", None), random.Random(1))
    with httpx.Client(base_url=url, timeout=30) as http:
        created = http.post("/matches", json={"game": "uxinjo", "seed": 1, "series": sid, "auto_deal": False},
                            headers=bearer(td))
        assert created.status_code == 201, created.text
        mid = created.json()["match"]
        foul_deal(svc, mid, 0)
        ruling = f"{mid}/uxinjo-d1-Or"
        assert http.get("/standings").status_code == 200  # the first catch-up, on the primary
        cluster.wait_replayed()
        idle = _checkpoint_rows(primary)
        assert idle, "the catch-up recorded no checkpoint"

        standings = _until_replica_serves(router, lambda: http.get("/standings", headers=bearer(td)))
        from kartludo.app.league.standings import PROVISIONAL_BELOW
        from kartludo.app.league.standings_table import standing_rows

        want = standing_rows(league.standings(primary_store), None, "rating", PROVISIONAL_BELOW)[1]
        assert want and {r["player"] for r in want} == set(PLAYERS3), "no finished match in the standings"
        assert all(r.status_code == 200 and r.json() == want for r in standings)
        matches = _until_replica_serves(router, lambda: http.get("/matches"))
        assert all([m["match"] for m in r.json()] == [finished, mid] for r in matches)
        series = _until_replica_serves(router, lambda: http.get(f"/series/{sid[:6]}"))
        assert all([m["match"] for m in r.json()["matches"]] == [mid] for r in series)
        listed = _until_replica_serves(router, lambda: http.get("/audit", params={"match": mid[:6]}))
        assert all([a["id"] for a in r.json()] == [ruling] for r in listed)
        shown = _until_replica_serves(router, lambda: http.get(f"/audit/{ruling}"))
        assert all(r.status_code == 200 and r.json()["status"] == "standing" for r in shown)
        assert http.get(f"/audit/{mid}/nosuch").status_code == 404
        assert _checkpoint_rows(primary) == idle, "a read of an idle league wrote on the primary"


@pytest.mark.postgres
def test_a_ruling_appealed_then_read_at_once_is_seen(served, replica, primary_store, td):
    """Read-your-writes for the audit trail: a seat's appeal, then its reads at once;
    with replay paused the standby cannot have it, so the primary answers, and an
    anonymous reader sees it too (the read follows the catch-up, not only its caller)."""
    from scenarios import foul_deal

    url, services = served
    cluster = replica[2]
    router = services.reads
    svc = MatchService(primary_store)
    with httpx.Client(base_url=url, timeout=30) as http:
        created = http.post("/matches", json={"game": "uxinjo", "players": PLAYERS3, "seed": 1, "auto_deal": False},
                            headers=bearer(td))
        mid, tokens = created.json()["match"], created.json()["tokens"]
        foul_deal(svc, mid, 0)
        ruling = f"{mid}/uxinjo-d1-Or"
        for reason in ("two combinations", "the count"):  # an appeal, then (refused) another, racing replay
            r = http.post(f"/audit/{ruling}/appeal", json={"reason": reason}, headers=bearer(tokens["ann"]))
            if r.status_code == 201:
                got = http.get(f"/audit/{ruling}", headers=bearer(tokens["ann"]))
                assert got.json()["status"] == "appealed" and got.json()["history"][-1]["by"] == "ann"
            else:
                assert r.status_code == 409, r.text
        cluster.wait_replayed()
        cluster.standby_sql("SELECT pg_wal_replay_pause()")
        try:
            served_before, primary_before = router.replicas[0].reads, router.primary_reads
            r = http.post(f"/audit/{ruling}/decide", json={"decision": "overturn", "reason": "miscounted"},
                          headers=bearer(td))
            assert r.status_code == 201, r.text
            for who in (bearer(td), {}):
                got = http.get(f"/audit/{ruling}", headers=who).json()
                assert got["status"] == "overturned" and got["history"][-1]["by"] == "mia"
                assert [a["status"] for a in http.get("/audit", headers=who).json()] == ["overturned"]
            other = http.post("/matches", json={"game": "hakamo", "players": ["ann", "bob", "cy", "dan"]},
                              headers=bearer(td)).json()["match"]
            assert other in [m["match"] for m in http.get("/matches", headers=bearer(td)).json()]
            assert other in [m["match"] for m in http.get("/matches").json()]
            assert router.replicas[0].reads == served_before, "the paused standby served a read it lacks"
            assert router.primary_reads >= primary_before + 6
        finally:
            cluster.standby_sql("SELECT pg_wal_replay_resume()")
        cluster.wait_replayed()
        listed = _until_replica_serves(router, lambda: http.get("/audit", headers=bearer(tokens["ann"])))
        assert all([a["status"] for a in r.json()] == ["overturned"] for r in listed)


@pytest.mark.postgres
def test_league_reads_survive_a_standby_that_stops(served, replica, primary_store, td):
    from scenarios import foul_deal

    from kartludo.app.league.series import create_series

    url, services = served
    cluster = replica[2]
    router = services.reads
    sid = create_series(primary_store, "uxinjo", PLAYERS3, 60)
    with httpx.Client(base_url=url, timeout=30) as http:
        mid = http.post("/matches", json={"game": "uxinjo", "seed": 1, "series": sid, "auto_deal": False},
                        headers=bearer(td)).json()["match"]
        foul_deal(MatchService(primary_store), mid, 0)
        paths = ["/standings", "/matches", f"/series/{sid}", "/audit", f"/audit/{mid}/uxinjo-d1-Or"]
        before = {p: http.get(p).json() for p in paths}
        cluster.wait_replayed()
        _until_replica_serves(router, lambda: http.get("/audit"))
        primary_before = router.primary_reads
        stopper = threading.Thread(target=cluster.stop_standby)
        stopper.start()  # stops while the reads go on
        try:
            for _ in range(10):
                for p in paths:
                    r = http.get(p)
                    assert r.status_code == 200 and r.json() == before[p], (p, r.text)
            stopper.join(60)
            for p in paths:
                r = http.get(p)
                assert r.status_code == 200 and r.json() == before[p], (p, r.text)
            assert router.primary_reads > primary_before, "the primary took no read"
        finally:
            stopper.join(60)
            cluster.start_standby()


@pytest.mark.postgres
def test_cli_league_and_audit_reads_from_the_standby(replica, primary_store, monkeypatch):
    """`standings`, `match list`, `series show/list`, `audit list/show` with --read-db
    print what they print on the primary, served by the standby once it has replayed;
    with replay paused they still show a write just made (the primary answers)."""
    from click.testing import CliRunner
    from scenarios import foul_deal, win_match

    from kartludo.app.league.series import create_series
    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.cli.main import cli
    from kartludo.store import replicas

    primary, standby, cluster = replica
    routers: list = []
    made = replicas.ReadRouter.__init__

    def spied(self, *args, **kwargs):
        made(self, *args, **kwargs)
        routers.append(self)

    monkeypatch.setattr(replicas.ReadRouter, "__init__", spied)
    svc = MatchService(primary_store)
    sid = create_series(primary_store, "uxinjo", PLAYERS3, 60)
    play_match(svc, "uxinjo", PLAYERS3, pick_bots("uxinjo", None), random.Random(2))
    mid = svc.create("uxinjo", None, seed=1, series=sid)
    foul_deal(svc, mid, 0)
    win_match(svc, mid, 1)  # the series' next match (below) is created once this one has ended
    commands = [["standings", "--format", "json"], ["standings", "--series", sid[:6], "--format", "json"],
                ["match", "list", "--format", "json"], ["series", "show", sid[:6], "--format", "json"],
                ["series", "list", "--format", "json"], ["audit", "list", "--format", "json"],
                ["audit", "show", f"{mid[:6]}/uxinjo-d1-Or", "--format", "json"]]
    runner = CliRunner()

    def run(args, *read):
        out = runner.invoke(cli, ["--db", primary, *read, *args])
        assert out.exit_code == 0, (args, out.output)
        return out.output

    on_primary = {tuple(c): run(c) for c in commands}
    cluster.wait_replayed()
    for c in commands:  # until the standby serves it (it streams asynchronously), always the same output
        for _ in range(200):
            assert run(c, "--read-db", standby) == on_primary[tuple(c)], c
            if routers[-1].replicas[0].reads:
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"the standby never served {c}")
    cluster.standby_sql("SELECT pg_wal_replay_pause()")
    try:
        other = svc.create("uxinjo", None, seed=4, series=sid)
        listed = run(["match", "list", "--format", "json"], "--read-db", standby, "--read-max-lag", "3600")
        assert other in listed and routers[-1].replicas[0].reads == 0, "the paused standby served the list"
        shown = run(["series", "show", sid, "--format", "json"], "--read-db", standby, "--read-max-lag", "3600")
        assert other in shown and routers[-1].replicas[0].reads == 0
    finally:
        cluster.standby_sql("SELECT pg_wal_replay_resume()")
    cluster.stop_standby()
    try:  # a standby that is down: the primary answers, nothing fails
        assert run(["audit", "list", "--format", "json"], "--read-db", standby) == on_primary[
            ("audit", "list", "--format", "json")]
    finally:
        cluster.start_standby()

