"""Every resource of the HTTP service and every refusal (401/403/404/409/422), on
SQLite and PostgreSQL; a refused request writes nothing."""

from __future__ import annotations

import msgspec
import pytest
from click.testing import CliRunner
from serving import bearer

from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.main import cli

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def created(client, td_token):
    r = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 7, "auto_deal": False},
                    headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture
def dealt(client, td_token, created):
    r = client.post(f"/matches/{created['match']}/deals", json={}, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return created


def refused(store, client, method, url, status, token=None, **kw):
    """The request is refused with ``status`` and an error body, and writes nothing."""
    before = store.head_position()
    r = client.request(method, url, headers={**bearer(token), **kw.pop("headers", {})}, **kw)
    assert r.status_code == status, (url, r.status_code, r.text)
    assert r.json()["error"]
    assert store.head_position() == before
    return r.json()


def first_actor(client, mid, tokens, td_token):
    state = client.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()
    player = state["to_act"][0]
    return player, tokens[player]


def test_openapi_document_lists_every_resource(client):
    doc = client.get("/schema/openapi.json").json()
    assert {"/matches", "/matches/{match_id}/commands", "/matches/{match_id}/stream", "/standings",
            "/series/{series_id}", "/audit/{match_id}/{ruling_id}/decide"} <= set(doc["paths"])
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_create_returns_one_seat_token_per_player(client, store, created, td_token):
    assert created["players"] == PLAYERS and set(created["tokens"]) == set(PLAYERS)
    assert len(set(created["tokens"].values())) == 3
    # only hashes are stored
    assert all(t not in repr(store.read_stream("tokens")) for t in created["tokens"].values())
    rows = client.get("/matches").json()
    assert [(r["match"], r["game"], r["players"]) for r in rows] == [(created["match"], "uxinjo", PLAYERS)]
    assert client.get("/matches", params={"game": "nosuch"}).status_code == 422


def test_create_refusals_write_nothing(client, store, created, td_token):
    body = {"game": "uxinjo", "players": PLAYERS}
    refused(store, client, "POST", "/matches", 401, json=body)
    refused(store, client, "POST", "/matches", 401, token="not-a-token", json=body)
    refused(store, client, "POST", "/matches", 403, token=created["tokens"]["ann"], json=body)
    refused(store, client, "POST", "/matches", 422, token=td_token, json={"players": PLAYERS})
    refused(store, client, "POST", "/matches", 422, token=td_token, json={"game": "uxinjo", "players": ["ann"]})
    refused(store, client, "POST", "/matches", 422, token=td_token, json={"game": "nosuch", "players": PLAYERS})
    refused(store, client, "POST", "/matches", 422, token=td_token, json={**body, "seed": "x"})
    refused(store, client, "POST", "/matches", 422, token=td_token, content=b"{not json",
            headers={"Content-Type": "application/json"})
    refused(store, client, "POST", "/matches", 415, token=td_token, content=b"{not json")  # JSON bodies only
    refused(store, client, "POST", "/matches", 404, token=td_token, json={"game": "uxinjo", "series": "nosuch"})


def test_create_with_a_command_id_is_idempotent(client, store, td_token):
    body = {"game": "uxinjo", "players": PLAYERS, "command_id": "create-1", "auto_deal": False}
    first = client.post("/matches", json=body, headers=bearer(td_token))
    assert first.status_code == 201 and not first.json()["duplicate"]
    first = first.json()
    before = store.head_position()
    again = client.post("/matches", json=body, headers=bearer(td_token)).json()
    # the same match; the secrets cannot be shown twice, so the retry gets new seat tokens
    assert again["duplicate"] and again["match"] == first["match"] and again["players"] == first["players"]
    assert set(again["tokens"]) == set(PLAYERS) and not set(again["tokens"].values()) & set(first["tokens"].values())
    assert len(MatchService(store).store.streams("match-")) == 1
    assert store.head_position() > before  # the new tokens and the revocations of the old ones
    mid = first["match"]
    assert client.get(f"/matches/{mid}/state", headers=bearer(first["tokens"]["ann"])).status_code == 401
    assert client.get(f"/matches/{mid}/state", headers=bearer(again["tokens"]["ann"])).json()["legal"] == []
    # without a command id every creation is a new match
    plain = {"game": "uxinjo", "players": PLAYERS}
    a, b = (client.post("/matches", json=plain, headers=bearer(td_token)).json() for _ in range(2))
    assert a["match"] != b["match"] and not a["duplicate"] and not b["duplicate"]


def test_me_names_the_tokens_holder(client, store, created, td_token):
    assert client.get("/me", headers=bearer(td_token)).json() == {"role": "td", "match": None, "seat": None,
                                                                  "player": None, "label": "mia"}
    me = client.get("/me", headers=bearer(created["tokens"]["bob"])).json()
    assert (me["role"], me["match"], me["seat"], me["player"]) == ("seat", created["match"], 1, "bob")
    refused(store, client, "GET", "/me", 401)
    refused(store, client, "GET", "/me", 401, token="kt_nope")


def test_state_is_the_callers_view(client, store, dealt, td_token):
    mid, tokens = dealt["match"], dealt["tokens"]
    public = client.get(f"/matches/{mid}/state").json()
    seat = client.get(f"/matches/{mid}/state", headers=bearer(tokens["bob"])).json()
    td = client.get(f"/matches/{mid}", headers=bearer(td_token)).json()
    svc = MatchService(store)
    # a seat and a TD also see how many watch the match (issue 40); the public does not
    assert td.pop("watchers") == seat.pop("watchers") == 0 and "watchers" not in public
    assert td == svc.state_json(svc.load(mid), -1)
    # a seat's view also carries its legal commands (one request per turn)
    assert seat.pop("legal") == [c.text() for c in svc.legal(svc.load(mid), "bob")]
    match = svc.load(mid)
    assert seat.pop("cautions") == match.game.legal_cautions(match.state, 1)
    assert seat.pop("shapes") == [msgspec.to_builtins(x) for x in match.game.legal_shapes(match.state, 1)]
    assert seat == svc.state_json(svc.load(mid), 1)
    assert "legal" not in td and "legal" not in public
    # ?legal=shapes: the moves as a table page draws them, without the expanded list
    lean = client.get(f"/matches/{mid}/state", params={"legal": "shapes"}, headers=bearer(tokens["bob"])).json()
    assert "legal" not in lean
    assert lean.pop("shapes") == [msgspec.to_builtins(x) for x in match.game.legal_shapes(match.state, 1)]
    assert lean.pop("cautions") == match.game.legal_cautions(match.state, 1)
    assert lean.pop("watchers") == 0
    assert lean == seat
    actor = match.players[match.game.to_act(match.state)[0]]
    lean = client.get(f"/matches/{mid}/state", params={"legal": "shapes"}, headers=bearer(tokens[actor])).json()
    assert "legal" not in lean and lean["shapes"]  # the seat to act: its moves, as shapes
    refused(store, client, "GET", f"/matches/{mid}/state?legal=some", 422, token=tokens["bob"])
    assert "hands" not in public or not public["hands"]
    assert set(seat["hands"]) == {"bob"} and set(td["hands"]) == set(PLAYERS)
    # another match's seat token sees the public view
    other = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS}, headers=bearer(td_token)).json()
    assert client.get(f"/matches/{mid}/state", headers=bearer(other["tokens"]["bob"])).json() == public
    refused(store, client, "GET", "/matches/nosuch/state", 404)
    refused(store, client, "GET", f"/matches/{mid}/state", 401, token="bad")


def test_deals(client, store, created, td_token):
    mid = created["match"]
    url = f"/matches/{mid}/deals"
    refused(store, client, "POST", url, 401, json={})
    refused(store, client, "POST", url, 403, token=created["tokens"]["ann"], json={})
    refused(store, client, "POST", "/matches/nosuch/deals", 404, token=td_token, json={})
    refused(store, client, "POST", url, 422, token=td_token, json={"deck": "R1 R2"})
    body = refused(store, client, "POST", url, 409, token=td_token, json={"deck": ["R1", "R2"]})
    assert body["rule"] == "uxinjo §2.1 (a listed deck is the 38-card Jx deck, top first)"
    r = client.post(url, headers=bearer(td_token))  # no body: the seeded shuffle
    assert r.status_code == 201 and r.json()["events"][0]["type"] == "match.deal-started"
    # the TD sees the whole deck
    assert "??" not in r.json()["events"][0]["payload"]["deck"]
    refused(store, client, "POST", url, 409, token=td_token, json={})  # a deal is running


def test_commands(client, store, dealt, td_token):
    mid, tokens = dealt["match"], dealt["tokens"]
    url = f"/matches/{mid}/commands"
    player, token = first_actor(client, mid, tokens, td_token)
    waiting = next(p for p in PLAYERS if p != player)
    refused(store, client, "POST", url, 401, json={"verb": "draw"})
    refused(store, client, "POST", url, 403, token=td_token, json={"verb": "draw"})
    other = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS}, headers=bearer(td_token)).json()
    refused(store, client, "POST", url, 403, token=other["tokens"][player], json={"verb": "draw"})
    refused(store, client, "POST", "/matches/nosuch/commands", 404, token=token, json={"verb": "draw"})
    refused(store, client, "POST", url, 422, token=token, json={"args": []})
    refused(store, client, "POST", url, 422, token=token, json={"verb": "draw", "seat": 2})
    body = refused(store, client, "POST", url, 422, token=token, json={"verb": "fly"})
    assert body["rule"] == "uxinjo §Commands" and body["detail"].startswith("unknown Uxinjo verb 'fly'")
    # a command the game cannot read cites the commands section in `rule`, as a refusal by a rule does
    body = refused(store, client, "POST", url, 422, token=token, json={"verb": "eltiri"})
    assert (body["detail"], body["rule"]) == ("eltiri takes one card, e.g. eltiri PJ", "uxinjo §Commands")
    assert refused(store, client, "POST", url, 422, token=token, json={"verb": "discard", "args": ["ZZ"]})[
        "rule"] == "uxinjo §Commands"
    body = refused(store, client, "POST", url, 409, token=tokens[waiting], json={"verb": "draw"})
    assert body["rule"]
    r = client.post(url, json={"verb": "draw", "command_id": "c-1"}, headers=bearer(token))
    assert r.status_code == 201, r.text
    first = r.json()
    assert not first["duplicate"] and first["events"]
    # the response carries the match after the command in the seat's view, and its legal commands
    svc = MatchService(store)
    after = svc.load(mid)
    assert first["state"].pop("watchers") == 0  # how many watch the match (issue 40)
    assert first["state"] == svc.state_json(after, after.seat_of(player))
    assert first["legal"] == [c.text() for c in svc.legal(after, player)]
    assert set(first["state"]["hands"]) == {player}
    assert [e["description"] for e in first["events"]] and all(e["description"] for e in first["events"])
    # a retried command id returns the first result and writes nothing
    before = store.head_position()
    again = client.post(url, json={"verb": "draw", "command_id": "c-1"}, headers=bearer(token)).json()
    assert again["duplicate"] and again["positions"] == first["positions"]
    assert store.head_position() == before
    legal = client.get(f"/matches/{mid}/legal", headers=bearer(token)).json()
    assert legal == first["legal"]
    assert "draw" not in legal and any(c.startswith("discard ") for c in legal)  # drawn: now a discard is due
    discard = next(c for c in legal if c.startswith("discard"))
    verb, *args = discard.split()
    assert client.post(url, json={"verb": verb, "args": args}, headers=bearer(token)).status_code == 201


def test_legal(client, store, dealt, td_token):
    mid, tokens = dealt["match"], dealt["tokens"]
    player, token = first_actor(client, mid, tokens, td_token)
    svc = MatchService(store)
    expected = [c.text() for c in svc.legal(svc.load(mid), player)]
    assert client.get(f"/matches/{mid}/legal", headers=bearer(token)).json() == expected
    refused(store, client, "GET", f"/matches/{mid}/legal", 401)
    refused(store, client, "GET", f"/matches/{mid}/legal", 403, token=td_token)
    refused(store, client, "GET", "/matches/nosuch/legal", 404, token=token)


def _play_deal_out(store, mid):
    """Finish the running deal with bots (another writer: the pipeline directly)."""
    import random

    svc = MatchService(store)
    match = svc.load(mid)
    game, rng = match.game, random.Random(3)
    bot = game.bots()["heuristic"]
    while not game.can_deal(svc.load(mid).state) and not game.is_finished(svc.load(mid).state):
        state = svc.load(mid).state
        seat = game.to_act(state)[0]
        svc.execute(mid, svc.play(bot.choose(game, state, seat, game.legal_commands(state, seat), rng)),
                    actor=match.players[seat])


def test_events_are_redacted_until_the_deal_ends(client, store, dealt, td_token):
    mid, tokens = dealt["match"], dealt["tokens"]
    public = client.get(f"/matches/{mid}/events").json()
    bob = client.get(f"/matches/{mid}/events", headers=bearer(tokens["bob"])).json()
    td = client.get(f"/matches/{mid}/events", headers=bearer(td_token)).json()
    assert [e["type"] for e in public] == ["match.created", "match.deal-started"]
    assert "??" in public[1]["payload"]["deck"] and "??" in bob[1]["payload"]["deck"]
    assert "??" not in td[1]["payload"]["deck"]
    assert public[1]["payload"]["deck"].count("??") > bob[1]["payload"]["deck"].count("??")
    after = client.get(f"/matches/{mid}/events", params={"after": public[0]["position"]}).json()
    assert [e["position"] for e in after] == [public[1]["position"]]
    # each event carries its one-line description, as the CLI replay shows it in that view
    from kartludo.app.reading.replay import build

    rep = build(mid, MatchService(store).records(mid), 1)
    assert [e["description"] for e in bob[1:]] == [rep.description(k, 1) for k in range(1, len(bob))]
    assert bob[0]["description"].startswith("match created: ")
    _play_deal_out(store, mid)
    ended = client.get(f"/matches/{mid}/events").json()
    td_ended = client.get(f"/matches/{mid}/events", headers=bearer(td_token)).json()
    # an ended deal is public, every card shown; the seed and the seeded shuffle's key
    # stay the TD's while the match runs (and so does every chain hash, which commits to them)
    assert [e["payload"] for e in ended[2:]] == [e["payload"] for e in td_ended[2:]]
    assert ended[1]["payload"] == {**td_ended[1]["payload"], "shuffle": "seeded"}
    assert td_ended[1]["payload"]["shuffle"] == "7:1" and td_ended[0]["payload"]["seed"] == 7
    assert ended[0]["payload"] == {**td_ended[0]["payload"], "seed": None}
    assert all(e["hash"] is None for e in ended) and all(e["hash"] for e in td_ended)
    assert "??" not in ended[1]["payload"]["deck"]
    refused(store, client, "GET", "/matches/nosuch/events", 404)
    refused(store, client, "GET", f"/matches/{mid}/events", 422, params={"after": "x"})


def test_replay(client, store, dealt, td_token):
    mid, tokens = dealt["match"], dealt["tokens"]
    running = client.get(f"/matches/{mid}/replay", headers=bearer(tokens["ann"])).json()
    assert not running["ended"] and running["deal"] == 1 and len(running["steps"]) == 1
    assert set(running["steps"][0]["state"]["hands"]) == {"ann"} and running["view"] == "ann"
    # while it runs a seat may narrow its view, never widen it; a TD may take any seat's
    assert client.get(f"/matches/{mid}/replay", params={"view": "public"},
                      headers=bearer(tokens["ann"])).json()["steps"][0]["state"].get("hands", {}) == {}
    refused(store, client, "GET", f"/matches/{mid}/replay", 403, token=tokens["ann"], params={"view": "bob"})
    refused(store, client, "GET", f"/matches/{mid}/replay", 403, token=tokens["ann"], params={"view": "all"})
    refused(store, client, "GET", f"/matches/{mid}/replay", 403, params={"view": "ann"})
    as_bob = client.get(f"/matches/{mid}/replay", params={"view": "bob"}, headers=bearer(td_token)).json()
    assert set(as_bob["steps"][0]["state"]["hands"]) == {"bob"} and as_bob["view"] == "bob"
    _play_deal_out(store, mid)
    rep = client.get(f"/matches/{mid}/replay", params={"deal": 1}).json()
    assert rep["ended"] and set(rep["steps"][-1]["state"]["hands"]) == set(PLAYERS) and rep["view"] == "all"
    # an ended deal is public, also as any one seat saw it
    as_cy = client.get(f"/matches/{mid}/replay", params={"deal": 1, "view": "cy"}).json()
    assert [set(s["state"].get("hands", {})) <= {"cy"} for s in as_cy["steps"]] == [True] * len(rep["steps"])
    refused(store, client, "GET", f"/matches/{mid}/replay", 422, params={"view": "nobody"})
    # `ruling` marks exactly the steps the engine decided
    from kartludo.app.reading.replay import build, is_ruling_or_settlement

    built = build(mid, MatchService(store).records(mid), 1)
    assert [s["ruling"] for s in rep["steps"]] == [is_ruling_or_settlement(s.record.event) for s in built.steps]
    assert any(s["ruling"] for s in rep["steps"]) and not all(s["ruling"] for s in rep["steps"])
    one = client.get(f"/matches/{mid}/replay", params={"deal": 1, "to": 2}).json()
    assert [s["step"] for s in one["steps"]] == [2] and one["steps"][0] == rep["steps"][1]
    refused(store, client, "GET", f"/matches/{mid}/replay", 404, params={"deal": 7})
    refused(store, client, "GET", f"/matches/{mid}/replay", 404, params={"to": 999})
    refused(store, client, "GET", f"/matches/{mid}/replay", 422, params={"to": 0})
    refused(store, client, "GET", "/matches/nosuch/replay", 404)


def test_standings_and_series(client, store, td_token):
    import random

    from kartludo.app.league.series import create_series
    from kartludo.app.matches.simulate import pick_bots, play_match

    sid = create_series(store, "uxinjo", PLAYERS, 60)
    svc = MatchService(store)
    play_match(svc, "uxinjo", PLAYERS, pick_bots("uxinjo", None), random.Random(1), max_deals=2)
    rows = client.get("/standings").json()
    assert isinstance(rows, list)
    assert client.get("/standings", params={"game": "uxinjo", "sort": "player"}).status_code == 200
    assert client.get("/standings", params={"sort": "nosuch"}).status_code == 422
    r = client.post("/matches", json={"game": "uxinjo", "series": sid}, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    rep = client.get(f"/series/{sid[:6]}").json()
    assert rep["series"] == sid and [m["match"] for m in rep["matches"]] == [r.json()["match"]]
    # the series' next match waits for this one to end (series-order RULING): 409, nothing written
    problem = refused(store, client, "POST", "/matches", 409, token=td_token, json={"game": "uxinjo", "series": sid})
    assert problem["detail"] == (f"series {sid}: match {r.json()['match']} is still in progress (deal 1): "
                                 "its next match starts once it has ended")
    refused(store, client, "GET", "/series/nosuch", 404)


def test_audit_list_show_appeal_decide(client, store, td_token):
    from scenarios import foul_deal

    created = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 1, "auto_deal": False},
                          headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    foul_deal(MatchService(store), mid, 0)
    rulings = client.get("/audit").json()
    assert [r["id"] for r in rulings] == [f"{mid}/uxinjo-d1-Or"]
    assert client.get("/audit", params={"player": "bob"}).json() == []
    url = f"/audit/{mid}/uxinjo-d1-Or"
    assert client.get(url).json()["status"] == rulings[0]["status"]
    refused(store, client, "GET", f"/audit/{mid}/nosuch", 404)
    refused(store, client, "GET", "/audit/nosuch/uxinjo-d1-Or", 404)
    appeal = {"reason": "I had two combinations"}
    refused(store, client, "POST", url + "/appeal", 401, json=appeal)
    # a seat of another match may not appeal (a TD may: see test_authority.py)
    elsewhere = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS}, headers=bearer(td_token)).json()
    refused(store, client, "POST", url + "/appeal", 403, token=elsewhere["tokens"]["ann"], json=appeal)
    refused(store, client, "POST", url + "/appeal", 422, token=tokens["ann"], json={"reason": ""})
    refused(store, client, "POST", url + "/decide", 409, token=td_token, json={"decision": "uphold", "reason": "x"})
    r = client.post(url + "/appeal", json=appeal, headers=bearer(tokens["ann"]))
    assert r.status_code == 201, r.text
    assert r.json()["history"][-1]["by"] == "ann"
    refused(store, client, "POST", url + "/appeal", 409, token=tokens["ann"], json=appeal)  # each person once
    # another player's appeal is recorded beside the first (the RULING on appeals); then bob's is his one
    r = client.post(url + "/appeal", json={"reason": "ann had two sets"}, headers=bearer(tokens["bob"]))
    assert r.status_code == 201, r.text
    assert [(h["kind"], h["by"]) for h in r.json()["history"][-2:]] == [("appealed", "ann"), ("appealed", "bob")]
    refused(store, client, "POST", url + "/appeal", 409, token=tokens["bob"], json=appeal)
    refused(store, client, "POST", url + "/decide", 403, token=tokens["bob"], json={"decision": "uphold",
                                                                                    "reason": "x"})
    refused(store, client, "POST", url + "/decide", 422, token=td_token, json={"decision": "maybe", "reason": "x"})
    r = client.post(url + "/decide", json={"decision": "overturn", "reason": "miscounted"}, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "overturned" and r.json()["history"][-1]["by"] == "mia"


def test_token_cli_new_and_revoke(client, store, db_url, dealt):
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", db_url, "token", "new", "--role", "td", "--label", "zoe"])
    assert out.exit_code == 0, out.output
    token = out.output.strip()
    mid = dealt["match"]
    assert client.get(f"/matches/{mid}/state", headers=bearer(token)).json()["hands"].keys() == set(PLAYERS)
    from kartludo.app.tokens import hash_token

    out = runner.invoke(cli, ["--db", db_url, "token", "revoke", hash_token(token)[:10], "--reason", "left"])
    assert out.exit_code == 0 and "revoked td token" in out.output
    refused(store, client, "GET", f"/matches/{mid}/state", 401, token=token)
    seat = dealt["tokens"]["bob"]
    assert runner.invoke(cli, ["--db", db_url, "token", "revoke", seat]).exit_code == 0
    refused(store, client, "GET", f"/matches/{mid}/legal", 401, token=seat)
    bad = runner.invoke(cli, ["--db", db_url, "token", "revoke", "zzzz"])
    assert bad.exit_code == 1 and "no live token" in bad.output
    out = runner.invoke(cli, ["--db", db_url, "token", "new", "--role", "seat", "--match", mid, "--seat", "cy"])
    assert out.exit_code == 0
    assert set(client.get(f"/matches/{mid}/state", headers=bearer(out.output.strip())).json()["hands"]) == {"cy"}


def test_contention_after_the_retries_is_a_409_and_writes_nothing(client, store, dealt, td_token, monkeypatch):
    from kartludo.store import ConcurrencyConflict

    mid, tokens = dealt["match"], dealt["tokens"]
    _, token = first_actor(client, mid, tokens, td_token)

    def always_lose(stream, events, expected, **kwargs):
        raise ConcurrencyConflict(stream, expected, expected + 1)

    monkeypatch.setattr(store, "append", always_lose)
    body = refused(store, client, "POST", f"/matches/{mid}/commands", 409, token=token, json={"verb": "draw"})
    assert "gave up after" in body["error"]


def test_secrets_never_look_like_command_line_options():
    from kartludo.app.tokens import new_secret

    assert all(new_secret().startswith("kt_") for _ in range(500))


def test_a_match_and_its_seat_tokens_are_written_in_one_transaction(store, created):
    match_rows = store.read_stream(f"match-{created['match']}")
    token_rows = store.read_stream(f"tokens-{created['match']}")
    assert {r.command_id for r in token_rows} == {match_rows[0].command_id}
    assert [r.event.label for r in token_rows] == PLAYERS
    assert {r.recorded_at_us for r in token_rows} == {match_rows[0].recorded_at_us}


def test_dependencies_resolve_without_a_task_per_dependency(client, store, dealt, td_token, monkeypatch):
    """A command names five dependencies; Litestar would resolve them in an anyio task
    group, a task each (the service's dependencies are resolved one after another:
    the tasks had cost more than the request's own work)."""
    import litestar._kwargs.kwargs_model as kwargs_model

    def no_task_group(*_a, **_k):
        raise AssertionError("a task group was opened to resolve a request's dependencies")

    monkeypatch.setattr(kwargs_model, "create_task_group", no_task_group)
    mid, tokens = dealt["match"], dealt["tokens"]
    player, token = first_actor(client, mid, tokens, td_token)
    legal = client.get(f"/matches/{mid}/legal", headers=bearer(token)).json()
    verb, *args = legal[0].split()
    r = client.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args}, headers=bearer(token))
    assert r.status_code == 201, r.text
    assert r.json()["legal"] is not None and r.json()["state"]["match"] == mid
    # a dependency that refuses still answers with its own error
    r = client.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args}, headers=bearer(td_token))
    assert r.status_code == 403
