"""Duplicate play over HTTP (issue 39): for every game an event of 3 tables x 4 boards is
created over HTTP (one player token per player) and played to its end, table 1's and
table 2's commands sent over HTTP with the players' tokens (table 3 by the library, a
writer beside the service); every table got the board's deck (the TD reads it from the
traveller); a board's deck and traveller stay unreadable to every player token and to
the public until the last table has played it, and readable after; the standings over
HTTP are the library's; a revoked player token stops at once; refusals write nothing."""

from __future__ import annotations

import random

import every_game
import msgspec
import pytest
from serving import bearer

from kartludo.app.duplicate.boards import after_command, load_duplicate
from kartludo.app.duplicate.scores import standings
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import revoke

TABLES, BOARDS = 3, 4
PROBLEM = {"type", "title", "status", "detail", "error", "rule"}


def tables_of(game: str) -> list[list[str]]:
    n = len(every_game.players(game, smallest=True))
    return [[f"{chr(96 + t)}{s}" for s in range(n)] for t in range(1, TABLES + 1)]


def create(client, td_token, game: str, **extra) -> dict:
    body = {"game": game, "tables": tables_of(game), "boards": BOARDS, "seed": 5,
            "options": every_game.short_options(game), "label": "club night", **extra}
    r = client.post("/duplicates", json=body, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/duplicates/{r.json()['duplicate']}"
    return r.json()


def my_board(client, dup: str, token: str) -> dict:
    r = client.get(f"/duplicates/{dup}/me", headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def play_board_over_http(client, svc: MatchService, dup: str, tokens: dict[str, str], player: str, bot,
                         rng: random.Random) -> str:
    """The player's table plays its board in play to its end, each command sent with the
    token of the player to act; returns the board's match."""
    where = my_board(client, dup, tokens[player])
    assert not where["over"]
    mid = where["match"]
    for _ in range(20_000):
        match = svc.load(mid)
        if match.over:
            return mid
        game = match.game
        seat = game.to_act(match.state)[0]
        command = bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)
        verb, *args = command.text().split()
        r = client.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                        headers=bearer(tokens[match.players[seat]]))
        assert r.status_code == 201, r.text
    pytest.fail("a board did not end")


def play_board_in_library(svc: MatchService, dup: str, table: int, bot, rng: random.Random) -> str:
    """Table ``table`` plays its board in play by the library (another writer)."""
    board, mid = load_duplicate(svc.store, dup).latest(table)
    for _ in range(20_000):
        match = svc.load(mid)
        if match.over:
            return mid
        game = match.game
        seat = game.to_act(match.state)[0]
        command = bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)
        svc.execute(mid, svc.play(command), actor=match.players[seat])
        after_command(svc, mid)
    pytest.fail("a board did not end")


def hidden_from(client, dup: str, board: int, mid: str, deck: list[str], salt: str,
                readers: dict[str, str | None], own: set[str]) -> None:
    """Board ``board`` (match ``mid``) is hidden from each reader: its traveller refused
    naming the tables still to play it, its match refused to all but its own seats, whose
    reads show the deal as running (no deck)."""
    for name, token in readers.items():
        headers = bearer(token)
        r = client.get(f"/duplicates/{dup}/boards/{board}", headers=headers)
        assert r.status_code == 403, (name, r.text)
        assert set(r.json()) == PROBLEM and "still to be played at table" in r.json()["detail"]
        for path in (f"/matches/{mid}", f"/matches/{mid}/state", f"/matches/{mid}/events",
                     f"/matches/{mid}/replay"):
            got = client.get(path, headers=headers)
            if name in own:
                assert got.status_code == 200, (name, path, got.text)
                assert salt not in got.text, (name, path, "the board's salt")
                if path.endswith("/events"):
                    [dealt] = [e for e in got.json() if e["type"] == "match.deal-started"]
                    assert dealt["payload"]["deck"] != deck, (name, "the board's deck")
            else:
                # (the replay route answers every refusal of the library as a 404, naming it)
                assert got.status_code == (404 if path.endswith("/replay") else 403), (name, path, got.text)
                assert set(got.json()) == PROBLEM and "still to be played at another table" in got.json()["detail"]
        progress = client.get(f"/duplicates/{dup}", headers=headers)
        assert progress.status_code == 200
        assert "deck" not in progress.text and all(b["phase"] is None and b["to_act"] is None
                                                   for t in progress.json()["tables"] for b in t["boards"])


def dealt_deck(client, td_token: str, mid: str) -> list[str]:
    events = client.get(f"/matches/{mid}/events", headers=bearer(td_token)).json()
    [dealt] = [e for e in events if e["type"] == "match.deal-started"]
    return dealt["payload"]["deck"]


@pytest.mark.parametrize("game", every_game.games())
def test_an_event_played_over_http_with_player_tokens(client, store, td_token, game):
    created = create(client, td_token, game)
    dup, tokens = created["duplicate"], created["tokens"]
    tables = tables_of(game)
    assert created["tables"] == tables and sorted(tokens) == sorted(p for t in tables for p in t)
    assert len(created["started"]) == TABLES
    svc = MatchService(store)
    rng = random.Random(game)
    bots = [every_game.heuristic(game), every_game.Erratic(game, share=0.1), every_game.Erratic(game, share=0.3)]
    everyone: dict[str, str | None] = {**tokens, "public": None}
    for board in range(1, BOARDS + 1):
        # every player's token finds its board: board k seats the table turned k - 1 places
        for t, players in enumerate(tables, 1):
            for player in players:
                where = my_board(client, dup, tokens[player])
                assert (where["table"], where["board"], where["boards"]) == (t, board, BOARDS)
                seats = players[board - 1:] + players[:board - 1] if board <= len(players) else None
                state = client.get(f"/matches/{where['match']}/state?legal=shapes",
                                   headers=bearer(tokens[player])).json()
                assert state["board"] == {"duplicate": dup, "board": board, "table": t, "boards": BOARDS}
                assert list(state.get("hands", {})) in ([], [player])
                assert state["players"][where["seat"]] == player
                if seats is not None:
                    assert state["players"] == seats
        first = play_board_over_http(client, svc, dup, tokens, tables[0][0], bots[0], rng)
        secrets = load_duplicate(store, dup).created
        deck, salt = secrets.decks[board - 1], secrets.salts[board - 1]
        # table 1 has played it, tables 2 and 3 not: hidden from every player and the public
        hidden_from(client, dup, board, first, deck, salt, everyone, own=set(tables[0]))
        second = play_board_over_http(client, svc, dup, tokens, tables[1][0], bots[1], rng)
        hidden_from(client, dup, board, second, deck, salt, everyone, own=set(tables[1]))
        third = play_board_in_library(svc, dup, 3, bots[2], rng)
        # the last table has played it: public
        for name, token in everyone.items():
            r = client.get(f"/duplicates/{dup}/boards/{board}", headers=bearer(token))
            assert r.status_code == 200, (name, r.text)
            assert r.json()["complete"] and r.json()["deck"] == deck
            assert [tr["match"] for tr in r.json()["tables"]] == [first, second, third]
            events = client.get(f"/matches/{third}/events", headers=bearer(token))
            assert events.status_code == 200, (name, events.text)
        # every table was dealt the board's deck: the TD reads it from the traveller
        told = client.get(f"/duplicates/{dup}/boards/{board}", headers=bearer(td_token)).json()
        assert told["deck"] == deck
        for table_result in told["tables"]:
            assert dealt_deck(client, td_token, table_result["match"]) == told["deck"]
        assert client.get(f"/duplicates/{dup}", headers=bearer(td_token)).json()["complete"] == \
            list(range(1, board + 1))
    # the event is over at every table
    for player in tokens:
        where = my_board(client, dup, tokens[player])
        assert where["over"] and where["board"] == BOARDS and where["played"] == BOARDS
    shown = client.get(f"/duplicates/{dup}").json()
    assert shown["played"] == shown["total"] == TABLES * BOARDS
    assert shown["complete"] == list(range(1, BOARDS + 1))
    # the standings over HTTP are the library's, for everyone
    expected = msgspec.to_builtins(standings(MatchService(store), load_duplicate(store, dup)))
    for token in (None, td_token, tokens[tables[2][0]]):
        assert client.get(f"/duplicates/{dup}/standings", headers=bearer(token)).json() == expected
    assert expected["boards_complete"] == BOARDS
    listed = client.get("/duplicates").json()
    assert listed == [{"duplicate": dup, "game": game, "label": "club night", "boards": BOARDS, "tables": TABLES,
                       "complete": BOARDS}]


def test_a_player_token_is_a_seat_of_its_own_boards_only(client, store, td_token):
    game = "uxinjo"
    created = create(client, td_token, game)
    dup, tokens = created["duplicate"], created["tokens"]
    svc = MatchService(store)
    ann, dee = tokens["a0"], tokens["b0"]
    mine = my_board(client, dup, ann)["match"]
    theirs = my_board(client, dup, dee)["match"]
    # ann is a seat of her board: its legal list, its moves; of table 2's board nothing
    assert client.get(f"/matches/{mine}/legal", headers=bearer(ann)).status_code == 200
    r = client.get(f"/matches/{theirs}/legal", headers=bearer(ann))
    assert r.status_code == 403 and "player token of a0" in r.json()["detail"]
    match = svc.load(theirs)
    seat = match.game.to_act(match.state)[0]
    command = match.game.legal_commands(match.state, seat)[0].text().split()
    before = store.head_position()
    r = client.post(f"/matches/{theirs}/commands", json={"verb": command[0], "args": command[1:]},
                    headers=bearer(ann))
    assert r.status_code == 403 and store.head_position() == before
    # an ordinary match: public to a player token
    other = client.post("/matches", json={"game": game, "players": ["a0", "bob", "cy"], "seed": 1},
                        headers=bearer(td_token)).json()["match"]
    state = client.get(f"/matches/{other}/state", headers=bearer(ann)).json()
    assert not state.get("hands") and "legal" not in state
    assert client.get(f"/matches/{other}/legal", headers=bearer(ann)).status_code == 403
    # /me says what the token is; another event's player token is refused its /me
    assert client.get("/me", headers=bearer(ann)).json()["role"] == "player"
    second = create(client, td_token, game)
    r = client.get(f"/duplicates/{second['duplicate']}/me", headers=bearer(ann))
    assert r.status_code == 403 and "player token of duplicate" in r.json()["detail"]
    assert client.get(f"/duplicates/{dup}/me").status_code == 401
    assert client.get(f"/duplicates/{dup}/me", headers=bearer(td_token)).status_code == 403
    # a revoked player token stops at once: no command, no seat, no /me
    match = svc.load(mine)
    seat = match.game.to_act(match.state)[0]
    assert match.players[seat] == "a0"
    revoke(store, ann, by="mia", reason="left")
    before = store.head_position()
    command = match.game.legal_commands(match.state, seat)[0].text().split()
    r = client.post(f"/matches/{mine}/commands", json={"verb": command[0], "args": command[1:]}, headers=bearer(ann))
    assert r.status_code == 401 and "revoked" in r.json()["detail"]
    assert store.head_position() == before
    for path in (f"/matches/{mine}/state", f"/duplicates/{dup}/me", "/me"):
        assert client.get(path, headers=bearer(ann)).status_code == 401
    # the other players' tokens still work
    assert client.get(f"/duplicates/{dup}/me", headers=bearer(tokens["a1"])).status_code == 200


@pytest.mark.parametrize(("body", "status", "said"), [
    ({"game": "uxinjo", "tables": [["ann", "bob", "cy"]], "boards": 2}, 422, "2 to 64 tables"),
    ({"game": "uxinjo", "tables": [["ann", "bob", "cy"], ["dee", "eve"]], "boards": 2}, 422, "3 players"),
    ({"game": "uxinjo", "tables": [["ann", "bob", "cy"], ["ann", "eve", "fay"]], "boards": 2}, 422,
     "ann at more than one"),
    ({"game": "chess", "tables": [["ann", "bob"], ["cy", "dee"]], "boards": 2}, 422, "unknown game"),
    ({"game": "uxinjo", "tables": [["ann", "bob", "cy"], ["dee", "eve", "fay"]], "boards": 0}, 422, "boards"),
    ({"game": "uxinjo", "tables": [["ann", "bob", "cy"], ["dee", "eve", "fay"]], "boards": 2, "nosuch": 1}, 422,
     "nosuch"),
])
def test_a_bad_event_is_refused_naming_the_problem_and_writes_nothing(client, store, td_token, body, status, said):
    before = store.head_position()
    r = client.post("/duplicates", json=body, headers=bearer(td_token))
    assert r.status_code == status and said in r.json()["detail"], r.text
    assert store.head_position() == before


def test_only_a_td_creates_an_event_and_unknown_ones_are_404(client, store, td_token):
    body = {"game": "uxinjo", "tables": [["ann", "bob", "cy"], ["dee", "eve", "fay"]], "boards": 1}
    before = store.head_position()
    assert client.post("/duplicates", json=body).status_code == 401
    dup = create(client, td_token, "uxinjo")
    seat = dup["tokens"]["a0"]
    before = store.head_position()
    r = client.post("/duplicates", json=body, headers=bearer(seat))
    assert r.status_code == 403 and store.head_position() == before
    for path in ("/duplicates/nosuch", "/duplicates/nosuch/standings", "/duplicates/nosuch/boards/1"):
        r = client.get(path)
        assert r.status_code == 404 and "no duplicate event" in r.json()["detail"], (path, r.text)
    r = client.get(f"/duplicates/{dup['duplicate']}/boards/9")
    assert r.status_code == 404 and "boards 1 to 4" in r.json()["detail"]
    assert client.get(f"/duplicates/{dup['duplicate'][:4]}").json()["duplicate"] == dup["duplicate"]  # a prefix
