"""The match's secrets over HTTP, on SQLite and PostgreSQL: the seed and the seeded
shuffles' keys (a TD's until the match ends), each deal's salt (hidden while the deal
runs) and its commitment (every seat sees it), and chain hashes (withheld while they
would let a reader test guesses of a hidden card)."""

from __future__ import annotations

import random

import every_game
import msgspec
import pytest
from click.testing import CliRunner
from every_game import games, heuristic
from serving import bearer

from kartludo.app.matches.fairness import commitment
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.cli.main import cli
from kartludo.events.base import encode, from_builtins
from kartludo.events.uxinjo import Discarded, Drew
from kartludo.store.eventstore import GENESIS, chain_hash
from kartludo.store.transfer import parse_us

PLAYERS = ["ann", "bob", "cy"]
SEED = 4_817_202_611_930_577


def create(client, td_token, game="uxinjo", players=PLAYERS, **body):
    r = client.post("/matches", json={"game": game, "players": players, "auto_deal": False, **body},
                    headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r.json()


def deal(client, td_token, mid, **body):
    r = client.post(f"/matches/{mid}/deals", json=body, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r.json()


def play(store, mid, *, until_deal_ends=True):
    """Bots play (the pipeline directly: another writer) until the deal or the match ends."""
    svc = MatchService(store)
    match = svc.load(mid)
    game, rng = match.game, random.Random(3)
    bot = heuristic(game.name)
    while not (game.can_deal(match.state) or game.is_finished(match.state)):
        seat = game.to_act(match.state)[0]
        svc.execute(mid, svc.play(bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)),
                    actor=match.players[seat])
        match = svc.load(mid)


def act(client, mid, token, command):
    verb, *args = command.split()
    r = client.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args}, headers=bearer(token))
    assert r.status_code == 201, r.text
    return r.json()


def recompute(prev: bytes, e: dict) -> bytes:
    """A served event's chain hash, from what was served (its payload re-encoded)."""
    payload = encode(from_builtins(e["type"], e["schema_version"], e["payload"]))
    return chain_hash(prev, e["stream_id"], e["version"], e["type"], e["schema_version"], parse_us(e["recorded_at"]),
                      e["actor"], e["command_id"], payload)


def test_a_hash_over_a_hidden_card_would_give_it_away_so_it_is_withheld(client, store, td_token):
    created = create(client, td_token)
    mid, tokens = created["match"], created["tokens"]
    deal(client, td_token, mid)
    svc = MatchService(store)
    drawer = svc.state_json(svc.load(mid), -1)["to_act"][0]
    other = next(p for p in PLAYERS if p != drawer)
    act(client, mid, tokens[drawer], "draw")
    records = store.read_stream(stream_of(mid))
    drew = next(r for r in records if isinstance(r.event, Drew))
    hand = svc.state_json(svc.load(mid), -1)["hands"][drawer]
    act(client, mid, tokens[drawer], f"discard {next(c for c in hand if c != drew.event.card)}")
    records = store.read_stream(stream_of(mid))
    discarded = next(r for r in records if isinstance(r.event, Discarded))
    assert discarded.version == drew.version + 1

    # The attack on the raw hashes: every field but the drawn card is known to `other`
    # (the header, the payload with "??", the previous hash), so trying each card of the
    # deck finds the one whose hash matches — from the draw's own hash, and from the
    # next event's hash too (it chains over the draw).
    def drew_hash(card: str) -> bytes:
        event = msgspec.structs.replace(drew.event, card=card)
        return chain_hash(drew.prev_hash, drew.stream_id, drew.version, drew.type, drew.schema_version,
                          drew.recorded_at_us, drew.actor, drew.command_id, encode(event))

    deck = set(svc.load(mid).game.deck({}))
    assert [c for c in deck if drew_hash(c) == drew.hash] == [drew.event.card]
    via_next = [c for c in deck if chain_hash(drew_hash(c), discarded.stream_id, discarded.version, discarded.type,
                                              discarded.schema_version, discarded.recorded_at_us, discarded.actor,
                                              discarded.command_id, encode(discarded.event)) == discarded.hash]
    assert via_next == [drew.event.card]

    # What `other` is served: the card hidden, and no hash from the first hidden event on.
    served = client.get(f"/matches/{mid}/events", headers=bearer(tokens[other])).json()
    by_version = {e["version"]: e for e in served}
    assert by_version[drew.version]["payload"]["card"] == "??"
    assert by_version[1]["hash"] == records[0].hash.hex()  # the match's creation: nothing hidden in it
    assert all(by_version[v]["hash"] is None for v in range(2, len(records) + 1))
    # every hash served is recomputable from what was served: it commits to nothing hidden
    assert recompute(GENESIS, by_version[1]).hex() == by_version[1]["hash"]
    # the drawer sees its card; the deal's start (the others' hands) stays hidden from it
    mine = client.get(f"/matches/{mid}/events", headers=bearer(tokens[drawer])).json()
    assert mine[drew.version - 1]["payload"]["card"] == drew.event.card and mine[drew.version - 1]["hash"] is None
    # once the deal has ended its events are public: every hash is served and checks out
    play(store, mid)
    public = client.get(f"/matches/{mid}/events").json()
    prev = GENESIS
    for e in public:
        assert e["hash"] is not None and recompute(prev, e).hex() == e["hash"]
        prev = bytes.fromhex(e["hash"])


def test_the_seed_is_a_tds_until_the_match_ends(client, store, td_token):
    created = create(client, td_token, "svoi-kozyri", options={"deals": "1"}, seed=SEED)
    mid, tokens = created["match"], created["tokens"]
    readers = {"public": {}, "bob": bearer(tokens["bob"])}
    td = bearer(td_token)
    dealt = deal(client, td_token, mid)
    assert dealt["events"][0]["payload"]["shuffle"] == f"{SEED}:1"  # the TD's own response
    assert client.get(f"/matches/{mid}/state", headers=td).json()["seed"] == SEED
    for name, headers in readers.items():
        state = client.get(f"/matches/{mid}/state", headers=headers).json()
        assert "seed" not in state, name
        events = client.get(f"/matches/{mid}/events", headers=headers).json()
        assert events[0]["payload"]["seed"] is None and events[1]["payload"]["shuffle"] == "seeded"
        assert all(e["hash"] is None for e in events)  # every hash chains over the seed
        replay = client.get(f"/matches/{mid}/replay", headers=headers).json()
        assert replay["steps"][0]["event"]["payload"]["shuffle"] == "seeded"
        assert all("seed" not in s["state"] for s in replay["steps"])
        for path in ("/matches", "/standings", f"/matches/{mid}"):
            assert str(SEED) not in client.get(path, headers=headers).text, (name, path)
    assert str(SEED) not in client.get("/me", headers=readers["bob"]).text
    # the TD's every-hand replay shows the key; a TD asking for bob's view sees what bob sees
    assert client.get(f"/matches/{mid}/replay", headers=td).json()["steps"][0]["event"]["payload"]["shuffle"] \
        == f"{SEED}:1"
    as_bob = client.get(f"/matches/{mid}/replay", params={"view": "bob"}, headers=td).json()
    assert as_bob["steps"][0]["event"]["payload"]["shuffle"] == "seeded" and "seed" not in as_bob["steps"][0]["state"]
    # the CLI: a seat's and the public view never carry it, the TD's (--all) does
    runner = CliRunner()
    url = store.url

    def kartludo(*args):
        result = runner.invoke(cli, ["--db", url, *args])
        assert result.exit_code == 0, result.output
        return result.output

    assert str(SEED) not in kartludo("state", mid, "--as", "bob", "--json") + kartludo("state", mid, "--json")
    assert str(SEED) not in kartludo("replay", mid, "--as", "bob", "--json")
    assert f'"seed": {SEED}' in kartludo("state", mid, "--all", "--json")

    play(store, mid)  # a one-deal match: it has ended
    assert MatchService(store).load(mid).status == "finished"
    for name, headers in readers.items():
        assert client.get(f"/matches/{mid}/state", headers=headers).json()["seed"] == SEED, name
        events = client.get(f"/matches/{mid}/events", headers=headers).json()
        assert events[0]["payload"]["seed"] == SEED and events[1]["payload"]["shuffle"] == f"{SEED}:1"
        prev = GENESIS
        for e in events:
            assert recompute(prev, e).hex() == e["hash"]
            prev = bytes.fromhex(e["hash"])
    assert f'"seed": {SEED}' in kartludo("state", mid, "--as", "bob", "--json")


def test_seats_see_the_commitment_while_the_deal_runs_and_check_it_once_it_ends(client, store, td_token,
                                                                                 db_url):
    created = create(client, td_token)
    mid, tokens = created["match"], created["tokens"]
    deck = [c for c in reversed(MatchService(store).load(mid).game.deck({}))]
    dealt = deal(client, td_token, mid, deck=deck)["events"][0]["payload"]
    assert dealt["deck"] == deck and dealt["commitment"] == commitment(dealt["salt"], deck)
    for headers in ({}, bearer(tokens["ann"])):
        start = client.get(f"/matches/{mid}/events", headers=headers).json()[1]["payload"]
        assert start["commitment"] == dealt["commitment"] and start["salt"] == "" and "??" in start["deck"]
        stream_start = client.get(f"/matches/{mid}/replay", headers=headers).json()["steps"][0]["event"]
        assert stream_start["payload"]["salt"] == "" and stream_start["hash"] is None
    play(store, mid)
    public = client.get(f"/matches/{mid}/events").json()[1]["payload"]
    assert public["deck"] == deck and public["salt"] == dealt["salt"]
    assert commitment(public["salt"], public["deck"]) == public["commitment"]


@pytest.mark.parametrize("game_name", games())
def test_a_player_checks_a_deal_over_http(server, store, td_token, game_name):
    import httpx

    players = every_game.players(game_name)

    with httpx.Client(base_url=server, timeout=30) as http:
        created = create(http, td_token, game_name, players)
        mid = created["match"]
        deal(http, td_token, mid)
        runner = CliRunner()
        out = runner.invoke(cli, ["match", "check", mid[:7], "--server", server])
        assert out.exit_code == 0 and "still running" in out.output, out.output
        play(store, mid)
        out = runner.invoke(cli, ["match", "check", mid, "--deal", "1", "--server", server + "/"])
        assert out.exit_code == 0 and f"match {mid} deal 1: ok" in out.output, out.output
        missing = runner.invoke(cli, ["match", "check", "nosuch", "--server", server])
        assert missing.exit_code == 1 and "404 no match 'nosuch'" in missing.output
        bad = runner.invoke(cli, ["match", "check", mid, "--server", "ftp://example.org"])
        assert bad.exit_code == 1 and "not an http:// or https:// URL" in bad.output


def test_the_readmes_check_by_hand_works_on_what_a_reader_without_a_token_gets(client, store, td_token):
    """The README's by-hand check, run as documented on `GET /matches/ID/events`
    without a token: True for an ended deal, "running" (not a false alarm) for the
    deal that runs."""
    import json
    import pathlib
    import re
    import subprocess
    import sys

    readme = (pathlib.Path(__file__).parents[2] / "README.md").read_text()
    script = re.search(r"\| python3 -c '(.*?)'\n", readme, re.S)
    assert script, "the README's by-hand check is gone"
    mid = create(client, td_token, seed=SEED)["match"]
    deal(client, td_token, mid)
    play(store, mid)
    deal(client, td_token, mid)
    events = client.get(f"/matches/{mid}/events").json()
    out = subprocess.run([sys.executable, "-c", script.group(1)], input=json.dumps(events), capture_output=True,
                         text=True, check=True).stdout
    assert out.splitlines() == ["1 True", "2 running"], out
