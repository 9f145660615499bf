"""Watchers (issue 40): a match's public view held a number of moves or seconds behind
the table, so a watcher cannot relay a running deal to a player.

A *move* is one accepted command of a seat (one ``POST .../commands``): move n shows in
no anonymous read (state, events, replay, the live stream, the watch page's data) until
move n + k has been made. Every game of the registry is played (``every_game``), at a
random delay, by bots through the API, and every anonymous path is checked after every
move, the live stream against the moves begun when each message arrived.
"""

from __future__ import annotations

import random
import time

import every_game
import httpx
import pytest
from every_game import games, heuristic, short_options
from serving import bearer

from kartludo.app.matches.clock import replay_readings
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.registry import get_game

#: every route an anonymous caller reaches that shows a running match's moves, and
#: how each is held back: ``delayed`` (the delayed view) or why it shows no move
ANONYMOUS_ROUTES = {
    "GET /matches/{match_id}": "delayed",
    "GET /matches/{match_id}/state": "delayed",
    "GET /matches/{match_id}/events": "delayed",
    "GET /matches/{match_id}/replay": "delayed",
    "GET /matches/{match_id}/stream": "delayed",
    "GET /matches/{match_id}/watch": "the setting only",
    "GET /matches/{match_id}/clock": "delayed (the clocks as they stood at the watchers' cut)",
    "GET /matches": "delayed (a running match's deal number as watchers see it)",
    "GET /games": "no match",
    "GET /standings": "finished matches and ended deals' totals only (read models)",
    "GET /series": "series rows, no move",
    "GET /series/{series_id}": "series standings from ended deals, no move",
    "GET /audit": "delayed (a ruling is listed once the delay has passed its move)",
    "GET /audit/{match_id}/{ruling_id}": "delayed (404 until then, as for a ruling never made)",
    "GET /audit/{match_id}/{ruling_id}/annotations": "refused while the ruled deal runs",
    "GET /audit/{match_id}/{ruling_id}/hypotheticals": "refused while the ruled deal runs",
    "GET /hypotheticals": "left out while their deal runs",
    "GET /hypotheticals/{hypo_id}": "refused while its deal runs",
    "GET /hearings/{match_id}/{ruling_id}": "a hearing link: ended deals only",
    "GET /hearings/{match_id}/{ruling_id}/stream": "a hearing link: ended deals only",
    "GET /duplicates": "statuses",
    "GET /duplicates/{duplicate_id}": "statuses (a board's phase only for a TD)",
    "GET /duplicates/{duplicate_id}/boards/{board}": "refused until every table has played the board",
    "GET /duplicates/{duplicate_id}/standings": "played boards only",
}


#: every browser page: a shell whose script reads the API above with the token the page
#: holds (none: the anonymous routes), so a page shows a watcher what those give
PAGES = {"/", "/ui", "/ui/replay/{match_id}", "/ui/table/{match_id}", "/ui/watch/{match_id}", "/ui/td/{match_id}",
         "/ui/duplicate/{duplicate_id}", "/ui/new", "/ui/audit", "/ui/audit/{match_id}/{ruling_id}",
         "/ui/standings", "/ui/series", "/ui/series/{series_id}", "/ui/cards", "/ui/rules", "/ui/rules/{game}",
         "/ui/hearing/{match_id}/{ruling_id}"}


def test_every_page_is_a_shell_over_the_api(client):
    """The pages hold no match data of their own (the rules pages: our own files)."""
    paths = {route.path.replace(":str}", "}").rstrip("/") or "/" for route in client.app.routes
             if route.path == "/" or route.path.startswith("/ui")}
    assert paths == PAGES
    mid = client.post("/matches", json={"game": games()[0], "players": every_game.players(games()[0])},
                      headers=bearer(issue_td(client))).json()["match"]
    shell = client.get(f"/ui/watch/{mid}")
    assert shell.status_code == 200 and 'src="/static/js/pages/watch.js"' in shell.text
    assert "hands" not in shell.text and "version" not in shell.text


def issue_td(client) -> str:
    from kartludo.app.tokens import issue

    return issue(client.app.state.services.store, "td", label="pages")


def test_every_anonymous_route_is_listed(client):
    """Every GET route of the API (OpenAPI) that needs no token is in ``ANONYMOUS_ROUTES``
    (a new one must say how it keeps a delayed match's moves back)."""
    doc = client.get("/schema/openapi.json").json()
    guarded = {"/me", "/matches/{match_id}/legal", "/matches/{match_id}/moves", "/matches/{match_id}/table",
               "/duplicates/{duplicate_id}/me", "/hypotheticals/{hypo_id}/rollouts",
               "/hypotheticals/{hypo_id}/rollouts/{job_id}", "/hypotheticals/{hypo_id}/rollouts/{job_id}/stream"}
    found = {f"GET {path}" for path, ops in doc["paths"].items() if "get" in ops and path not in guarded}
    assert found == set(ANONYMOUS_ROUTES), (found - set(ANONYMOUS_ROUTES), set(ANONYMOUS_ROUTES) - found)


def until(ready, limit: int = 3000) -> None:
    """Wait until ``ready()`` (readiness, polled; no timed assertion: a generous cap only
    turns a hang into a failure)."""
    for _ in range(limit):
        if ready():
            return
        time.sleep(0.01)
    raise AssertionError("never ready")


def _play(http, mid, tokens, players, game, rng, bot, store):
    """One bot move through the API; returns the response's JSON."""
    svc = MatchService(store)
    state = svc.load(mid).state
    seat = game.to_act(state)[0]
    command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
    verb, *args = command.text().split()
    r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                  headers=bearer(tokens[players[seat]]))
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("game_name", games())
def test_a_watcher_never_sees_a_move_early(game_name, server, sse, store, td_token):
    """With a delay of k moves, move n is in no anonymous read before move n + k has
    been made: after every move the public state, the events, the replay of the deal
    and the live stream stand exactly where the delay cuts the match (the version before
    move M - k + 1), and no stream message came before its time; seats and a TD see
    the match live."""
    game = get_game(game_name)
    players = every_game.players(game_name)
    rng = random.Random(f"watch-{game_name}")
    k = rng.randint(1, 3)
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": game_name, "players": players, "options": short_options(game_name),
                                          "watch_delay": str(k), "clock": "5m+10s"}, headers=bearer(td_token))
    assert created.status_code == 201, created.text
    mid, tokens = created.json()["match"], created.json()["tokens"]
    assert http.get(f"/matches/{mid}/watch").json()["delay"] == f"{k} move{'s' if k > 1 else ''}"
    started = [0]  # moves whose command has been sent when a stream message arrives
    stream = sse(f"{server}/matches/{mid}/stream", {})
    stream.wait_for(http.get(f"/matches/{mid}/events").json()[-1]["position"])  # the backlog: no move yet
    arrivals: list[tuple[int, int]] = []  # (version, moves begun), as messages arrive

    class Tagged(list):
        def append(self, item):
            arrivals.append((int(item["data"]["version"]), started[0]))
            super().append(item)

    stream.messages = Tagged(stream.messages)
    until(lambda: http.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()["watchers"] == 1)
    svc = MatchService(store)
    firsts: list[int] = []  # each move's first version
    bot = heuristic(game_name)
    for _ in range(rng.randint(12, 30)):
        live = svc.load(mid)
        if game.is_finished(live.state):
            break
        started[0] += 1
        out = _play(http, mid, tokens, players, game, rng, bot, store)
        firsts.append(out["first_version"])
        live = svc.load(mid)
        if game.is_finished(live.state):
            break  # a match that is over is history: public in full
        moves = len(firsts)
        cut = firsts[moves - k] - 1 if moves >= k else firsts[0] - 1
        state = http.get(f"/matches/{mid}/state").json()
        assert state["version"] == cut, (moves, k, state["version"], cut)
        assert state["watch"]["moves"] == k
        # the clocks too: as they stood at the cut (who was to act then), never live
        at_cut = replay_readings(store, mid)[cut]
        assert state["clock"] == at_cut and http.get(f"/matches/{mid}/clock").json() == at_cut
        assert http.get(f"/matches/{mid}").json()["version"] == cut
        [row] = [r for r in http.get("/matches").json() if r["match"] == mid]
        assert row["deal"] == state["deal"]  # the match list: the deal the watchers see
        events = http.get(f"/matches/{mid}/events").json()
        assert events[-1]["version"] == cut
        replay = http.get(f"/matches/{mid}/replay")
        if replay.status_code == 200:  # (no deal yet at the cut: 404)
            assert max(st["event"]["version"] for st in replay.json()["steps"]) <= cut
        # seats and a TD: live
        assert http.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()["version"] == live.version
        seat_state = http.get(f"/matches/{mid}/state", headers=bearer(tokens[players[0]])).json()
        assert seat_state["version"] == live.version and "watch" not in seat_state
        assert seat_state["watchers"] == 1
        assert seat_state["clock"]["as_of"] >= at_cut["as_of"]
        live_clock = http.get(f"/matches/{mid}/clock", headers=bearer(td_token)).json()
        running = {p for p, c in live_clock["seats"].items() if c["running"]}
        assert running == {players[g] for g in game.to_act(live.state)}
        # the stream has reached the cut, and nothing beyond it
        stream.wait_for(events[-1]["position"])
        assert max(int(m["data"]["version"]) for m in stream.messages) == cut
    assert len(firsts) >= 8
    # no message arrived before its move n + k had been begun
    for version, begun in arrivals:
        n = sum(1 for f in firsts if f <= version)  # the move the event belongs to (0: before any)
        assert n == 0 or begun >= n + k, (version, n, begun, k)
    # the TD sees every event, the watcher's stream ends at the cut
    assert http.get(f"/matches/{mid}/events", headers=bearer(td_token)).json()[-1]["version"] == svc.load(mid).version
    http.close()


def test_resuming_a_watchers_stream_does_not_leak_ahead(server, sse, store, td_token):
    """A reconnecting watcher (``Last-Event-ID``, or ``after``, of any position, even one
    past the cut) gets nothing the delay still holds back."""
    game_name = games()[0]
    game = get_game(game_name)
    players = every_game.players(game_name)
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": game_name, "players": players, "watch_delay": "2"},
                        headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    rng = random.Random(1)
    firsts = [_play(http, mid, tokens, players, game, rng, heuristic(game_name), store)["first_version"]
              for _ in range(5)]
    cut = firsts[-2] - 1
    td_events = http.get(f"/matches/{mid}/events", headers=bearer(td_token)).json()
    by_version = {e["version"]: e["position"] for e in td_events}
    behind = sse(f"{server}/matches/{mid}/stream", {"Last-Event-ID": str(by_version[cut - 1])})
    behind.wait_for(by_version[cut])
    assert [int(m["data"]["version"]) for m in behind.messages] == [cut]
    ahead = sse(f"{server}/matches/{mid}/stream", {"Last-Event-ID": str(td_events[-1]["position"])})
    past = sse(f"{server}/matches/{mid}/stream?after={td_events[-1]['position']}", {})
    firsts.append(_play(http, mid, tokens, players, game, rng, heuristic(game_name), store)["first_version"])
    new_cut = firsts[-2] - 1
    shown = http.get(f"/matches/{mid}/events").json()
    assert shown[-1]["version"] == new_cut
    behind.wait_for(shown[-1]["position"])
    assert max(int(m["data"]["version"]) for m in behind.messages) == new_cut
    # the position they resumed from is still ahead of the cut: nothing is sent to them
    assert ahead.messages == [] and past.messages == []
    http.close()


def test_bad_watch_settings_are_refused_and_write_nothing(client, store, td_token):
    """A delay that is no delay, hands without a delay, a setting by a seat or nobody:
    each refused naming the problem; nothing written."""
    players = every_game.players(games()[0])
    before = store.head_position()
    for body, needle in [({"watch_delay": "2x"}, "'2x' is not a number of moves"),
                         ({"watch_hands": True}, "needs a watch delay"),
                         ({"watch_delay": "0", "watch_hands": True}, "needs a watch delay"),
                         ({"watch_delay": "5000"}, "at most 1000 moves")]:
        r = client.post("/matches", json={"game": games()[0], "players": players, **body},
                        headers=bearer(td_token))
        assert r.status_code == 422 and needle in r.json()["detail"], r.text
    assert store.head_position() == before
    created = client.post("/matches", json={"game": games()[0], "players": players, "watch_delay": "30s",
                                            "watch_hands": True}, headers=bearer(td_token)).json()
    mid, seat = created["match"], next(iter(created["tokens"].values()))
    assert client.get(f"/matches/{mid}/watch").json() == {"match": mid, "delay": "30 s", "moves": None,
                                                           "seconds": 30, "hands": True, "by": "mia"}
    before = store.head_position()
    for headers, body, status in [({}, {"delay": "2"}, 401), (bearer(seat), {"delay": "0"}, 403),
                                  (bearer(td_token), {"delay": "two"}, 422),
                                  (bearer(td_token), {"delay": "0", "hands": True}, 422),
                                  (bearer(td_token), {"delay": "3", "extra": 1}, 422)]:
        r = client.put(f"/matches/{mid}/watch", json=body, headers=headers)
        assert r.status_code == status, r.text
    assert store.head_position() == before
    r = client.put(f"/matches/{mid}/watch", json={"delay": "2", "reason": "final"}, headers=bearer(td_token))
    assert r.status_code == 200 and r.json()["moves"] == 2 and not r.json()["hands"], r.text
    r = client.put(f"/matches/{mid}/watch", json={"delay": "0"}, headers=bearer(td_token))
    assert r.json()["delay"] == "live"


def test_seconds_delay_follows_the_stores_clock(client, store, td_token):
    """``30s``: a watcher sees the events recorded at least 30 s ago by the store's
    clock (injected here), nothing younger."""
    real = store.clock
    now = [real()]
    store.clock = lambda: now[0]
    try:
        game_name = games()[0]
        game = get_game(game_name)
        players = every_game.players(game_name)
        created = client.post("/matches", json={"game": game_name, "players": players, "watch_delay": "30s"},
                              headers=bearer(td_token)).json()
        mid, tokens = created["match"], created["tokens"]
        dealt_at = MatchService(store).load(mid).version
        rng = random.Random(2)
        versions = []
        for _ in range(4):
            now[0] += 10_000_000
            out = _play(client, mid, tokens, players, game, rng, heuristic(game_name), store)
            versions.append(out["first_version"] + len(out["positions"]) - 1)
        # recorded at +10, +20, +30, +40 s; now +40 s: only what was recorded by +10 s shows
        assert client.get(f"/matches/{mid}/state").json()["version"] == versions[0]
        now[0] += 15_000_000  # +55 s: up to +25 s
        assert client.get(f"/matches/{mid}/state").json()["version"] == versions[1]
        now[0] += 100_000_000  # everything (a deal the table started after the last move too)
        assert client.get(f"/matches/{mid}/state").json()["version"] == MatchService(store).load(mid).version
        assert dealt_at < versions[0]
    finally:
        store.clock = real


@pytest.mark.parametrize("game_name", games())
def test_watch_hands_only_in_the_delayed_view(game_name, client, store, td_token):
    """With ``watch_hands`` a watcher sees every seat's hand as it stood at the cut
    (each as its own seat saw it), never the stock, the deck, a salt or the seed; without
    it no hand while the deal runs."""
    game = get_game(game_name)
    players = every_game.players(game_name)
    rng = random.Random(f"hands-{game_name}")
    matches = {}
    for hands in (True, False):
        created = client.post("/matches", json={"game": game_name, "players": players, "seed": 5,
                                                "watch_delay": "1", "watch_hands": hands},
                              headers=bearer(td_token)).json()
        matches[hands] = (created["match"], created["tokens"])
    svc = MatchService(store)
    for hands, (mid, tokens) in matches.items():
        for _ in range(3):
            seat_hands = {p: client.get(f"/matches/{mid}/state", headers=bearer(tokens[p])).json()["hands"].get(p)
                          for p in players}
            _play(client, mid, tokens, players, game, rng, heuristic(game_name), store)
            if game.is_finished(svc.load(mid).state) or game.can_deal(svc.load(mid).state):
                break
            watcher = client.get(f"/matches/{mid}/state").json()
            assert "seed" not in watcher
            if hands:  # the hands before the last move: the cut of a one-move delay
                assert watcher["hands"] == {p: h for p, h in seat_hands.items() if h is not None}
            else:
                assert not watcher.get("hands")
            for e in client.get(f"/matches/{mid}/events").json():
                if e["type"] == "match.deal-started":
                    assert e["payload"]["salt"] == "" and e["payload"].get("shuffle") in ("seeded", "random")


def test_watchers_are_counted_across_server_processes(db_url, store, td_token, open_sse):
    """Two servers on one database (as ``serve --workers 2``): a watcher on either counts
    for the seats on both; a closed stream stops counting, and so do the rows of a
    process that died (not refreshed for ``presence.EXPIRY_S``)."""
    from serving import serve_in_thread

    from kartludo.service.app import create_app
    from kartludo.store import presence

    game_name = games()[0]
    players = every_game.players(game_name)
    with serve_in_thread(create_app(db_url)) as one, serve_in_thread(create_app(db_url)) as two:
        created = httpx.post(f"{one}/matches", json={"game": game_name, "players": players, "watch_delay": "1"},
                             headers=bearer(td_token), timeout=30).json()
        mid, seat = created["match"], bearer(created["tokens"][players[0]])

        def counted(url: str) -> int:
            return httpx.get(f"{url}/matches/{mid}/state", headers=seat, timeout=30).json()["watchers"]

        assert counted(one) == counted(two) == 0
        first = open_sse(f"{one}/matches/{mid}/stream")
        second = open_sse(f"{two}/matches/{mid}/stream")
        until(lambda: counted(one) == 2 and counted(two) == 2)
        first.close()
        until(lambda: counted(one) == 1 and counted(two) == 1)
        second.close()
        until(lambda: counted(one) == 0 and counted(two) == 0)
        # a process that died: its rows stop counting once stale
        real = store.clock
        presence.publish(store, "gone:1:dead", {mid: 3})
        assert presence.count(store, mid) == 3
        later = real() + (presence.EXPIRY_S + 1) * 1_000_000
        store.clock = lambda: later
        try:
            assert presence.count(store, mid) == 0
        finally:
            store.clock = real


def test_a_ruling_shows_to_watchers_once_the_delay_has_passed_it(client, store, td_token):
    """The audit trail is a read of the match too: a penalty ruling made at a move is not
    listed to a watcher (nor found: the same 404 as a ruling never made) until the delay
    has passed that move; seats and TDs see it at once."""
    import scenarios

    from kartludo.app import watching

    svc = MatchService(store)
    mid = svc.create("uxinjo", scenarios.PLAYERS, seed=1, also=watching.creation("2", False, "td"))
    scenarios.foul_deal(svc, mid, 0)  # ann's munt is a foul: a ruling, with the munt, as one move
    [ruling] = client.get("/audit", params={"match": mid}, headers=bearer(td_token)).json()
    assert client.get("/audit", params={"match": mid}).json() == []
    hidden = client.get(f"/audit/{ruling['id']}")
    unknown = client.get(f"/audit/{mid}/uxinjo-d9")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["detail"].replace(ruling["ruling_id"], "X") == unknown.json()["detail"].replace(
        "uxinjo-d9", "X")
    game = svc.load(mid).game
    rng = random.Random(3)
    for made in (1, 2):
        if game.can_deal(svc.load(mid).state):
            svc.deal(mid)  # a deal is no move
        state = svc.load(mid).state
        seat = game.to_act(state)[0]
        command = heuristic("uxinjo").choose(game, state, seat, game.legal_commands(state, seat), rng)
        verb, *args = command.text().split()
        svc.act(mid, svc.load(mid).players[seat], verb, args)
        listed = client.get("/audit", params={"match": mid}).json()
        assert [r["id"] for r in listed] == ([ruling["id"]] if made == 2 else []), made
    assert client.get(f"/audit/{ruling['id']}").status_code == 200


def test_the_stream_holds_each_event_for_the_seconds_delay(server, sse, store, td_token):
    """``30s`` on the live stream: the server sends an event only once the store's clock
    (injected) is 30 s past its recording, without any new commit to wake the stream;
    no message arrives while the clock says it is younger."""
    real = store.clock
    now = [real()]
    store.clock = lambda: now[0]
    try:
        game_name = games()[0]
        game = get_game(game_name)
        players = every_game.players(game_name)
        http = httpx.Client(base_url=server, timeout=30)
        created = http.post("/matches", json={"game": game_name, "players": players, "watch_delay": "30s"},
                            headers=bearer(td_token)).json()
        mid, tokens = created["match"], created["tokens"]
        stream = sse(f"{server}/matches/{mid}/stream", {})
        arrivals: list[tuple[int, int]] = []  # (event recorded at, the clock when it arrived), in µs

        class Tagged(list):
            def append(self, item):
                arrivals.append((item["data"]["version"], now[0]))
                super().append(item)

        stream.messages = Tagged(stream.messages)
        stream.wait_for(1)  # the creation (recorded "now": older than nothing yet, so the cut's floor)
        recorded = {r.version: r.recorded_at_us for r in store.read_stream(f"match-{mid}")}
        rng = random.Random(4)
        for _ in range(3):
            now[0] += 10_000_000
            out = _play(http, mid, tokens, players, game, rng, heuristic(game_name), store)
            recorded.update({r.version: r.recorded_at_us for r in store.read_stream(f"match-{mid}")})
            last = out["first_version"] + len(out["positions"]) - 1
            now[0] += 31_000_000  # the move is now 31 s old: the stream sends it within its next look
            stream.wait_for(out["positions"][-1])
            assert max(int(m["data"]["version"]) for m in stream.messages) == last
        for version, at in arrivals:
            assert version == 1 or recorded[version] <= at - 30_000_000, (version, recorded[version], at)
        http.close()
    finally:
        store.clock = real
