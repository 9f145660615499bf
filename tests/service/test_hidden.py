"""Hidden information over HTTP: a deal of every game played by bots through the API;
after every command no seat's view (state, events list, live stream, replay of the
running deal) contains a card
another seat holds face down at that moment.

A card counts as secret to seat s when another seat holds it now, s does not hold a
copy and never held it, and it has never been shown publicly (the no-token view).
"""

from __future__ import annotations

import random

import httpx
import pytest

from kartludo.app.matches import MatchService
from kartludo.engine.base import ALL
from kartludo.engine.registry import get_game

from serving import bearer

GAMES = {"uxinjo": 3, "hakamo": 4, "laugavatnsmanni": 3, "svoi-kozyri": 3}


def words_in(text: str, deck: set[str]) -> set[str]:
    """Card codes named in a sentence (a replay step's description)."""
    import re

    return {w for w in re.split(r"[\s,;:()\[\]]+", text) if w in deck}


def cards_in(data, deck: set[str]) -> set[str]:
    """Every card code anywhere in a JSON value."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in deck:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(k for k in item if k in deck)
        elif isinstance(item, list):
            stack.extend(item)
    return found


@pytest.mark.parametrize("game_name", list(GAMES))
def test_no_seat_sees_a_card_another_seat_holds(game_name, server, sse, store, td_token):
    game = get_game(game_name)
    players = ["ann", "bob", "cy", "dan"][: GAMES[game_name]]
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": game_name, "players": players, "seed": 11},
                        headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    streams = {p: sse(f"{server}/matches/{mid}/stream", bearer(tokens[p])) for p in players}
    dealt = http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token))
    assert dealt.status_code == 201
    svc = MatchService(store)
    deck = set(game.deck(svc.load(mid).created.options))
    held_ever = {p: set() for p in players}
    public_seen: set[str] = set()
    last_seen = {p: 0 for p in players}
    positions = dealt.json()["positions"]
    rng = random.Random(5)
    bot = game.bots()["heuristic"]
    checked = 0
    for _ in range(2000):
        td_view = svc.state_json(svc.load(mid), ALL)
        hands = {p: set(td_view["hands"].get(p, [])) for p in players}
        public_state = http.get(f"/matches/{mid}/state").json()
        assert not public_state.get("hands")
        public_seen |= cards_in(public_state, deck)
        public_seen |= cards_in(http.get(f"/matches/{mid}/events", params={"after": positions[0] - 1}).json(), deck)
        ended = td_view["status"] == "finished" or game.can_deal(svc.load(mid).state)
        for p in players:
            held_ever[p] |= hands[p]
            secret = set().union(*(hands[q] for q in players if q != p)) - held_ever[p] - public_seen
            state = http.get(f"/matches/{mid}/state", headers=bearer(tokens[p])).json()
            assert not cards_in(state, deck) & secret, (p, "state", cards_in(state, deck) & secret)
            events = http.get(f"/matches/{mid}/events", params={"after": last_seen[p]},
                              headers=bearer(tokens[p])).json()
            if not ended:
                assert not cards_in(events, deck) & secret, (p, "events", cards_in(events, deck) & secret)
                streams[p].wait_for(positions[-1])
                live = [m["data"] for m in streams[p].messages if int(m["id"]) in positions]
                assert [e["position"] for e in live] == positions
                assert not cards_in(live, deck) & secret, (p, "stream", cards_in(live, deck) & secret)
                replay = http.get(f"/matches/{mid}/replay", headers=bearer(tokens[p])).json()
                assert not replay["ended"]
                shown = cards_in(replay["steps"], deck).union(*(words_in(st["description"], deck)
                                                                for st in replay["steps"]))
                assert not shown & secret, (p, "replay", shown & secret)
            if events:
                last_seen[p] = events[-1]["position"]
        checked += 1
        if ended:
            break
        state = svc.load(mid).state
        seat = game.to_act(state)[0]
        command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        verb, *args = command.text().split()
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                      headers=bearer(tokens[players[seat]]))
        assert r.status_code == 201, r.text
        positions = r.json()["positions"]
    else:
        pytest.fail("the deal did not end")
    assert checked > 10
    http.close()
