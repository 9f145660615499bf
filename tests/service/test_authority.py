"""Tokens and authority: one live token per seat under concurrent retries, idempotency
keys scoped to their caller and request, and who may appeal and decide a ruling."""

from __future__ import annotations

import threading
from collections import Counter

import httpx
from serving import bearer

from kartludo.app.tokens import TokenIndex

PLAYERS = ["ann", "bob", "cy"]


def _live_seat_tokens(store, match_id: str) -> Counter:
    index = TokenIndex(store)
    index.refresh()
    return Counter(p.seat for p in index._live.values() if p.role == "seat" and p.match == match_id)


def test_concurrent_retries_of_one_creation_leave_one_live_token_per_seat(server, store, td_token):
    body = {"game": "uxinjo", "players": PLAYERS, "seed": 5, "command_id": "create-race"}
    for trial in range(3):
        body["command_id"] = f"create-race-{trial}"
        barrier = threading.Barrier(8)
        answers: list[httpx.Response] = []
        lock = threading.Lock()

        def create(barrier: threading.Barrier, lock: threading.Lock, answers: list[httpx.Response]) -> None:
            with httpx.Client(base_url=server, timeout=30) as c:
                barrier.wait()
                r = c.post("/matches", json=body, headers=bearer(td_token))
                with lock:
                    answers.append(r)

        threads = [threading.Thread(target=create, args=(barrier, lock, answers)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r.status_code for r in answers] == [201] * 8, [r.text for r in answers]
        out = [r.json() for r in answers]
        mid = out[0]["match"]
        assert {o["match"] for o in out} == {mid}
        assert sum(not o["duplicate"] for o in out) == 1
        assert _live_seat_tokens(store, mid) == Counter({0: 1, 1: 1, 2: 1})
        # the one live token of each seat is one that was handed out, and it works
        handed = [o["tokens"]["bob"] for o in out]
        working = [t for t in handed if httpx.get(f"{server}/me", headers=bearer(t)).status_code == 200]
        assert len(working) == 1


def _count(store) -> int:
    return store.count_events()


def test_two_tds_using_the_same_key_get_two_matches(client, store, td_token):
    from kartludo.app.tokens import issue

    other = issue(store, "td", label="noa")
    body = {"game": "uxinjo", "players": PLAYERS, "command_id": "round-1-table-1"}
    mine = client.post("/matches", json=body, headers=bearer(td_token)).json()
    theirs = client.post("/matches", json=body, headers=bearer(other)).json()
    assert mine["match"] != theirs["match"] and not mine["duplicate"] and not theirs["duplicate"]
    # each one's retry finds its own match
    again = client.post("/matches", json=body, headers=bearer(other)).json()
    assert again["duplicate"] and again["match"] == theirs["match"]


def test_a_reused_creation_key_with_another_body_is_a_409_naming_the_conflict(client, store, td_token):
    body = {"game": "uxinjo", "players": PLAYERS, "seed": 3, "command_id": "table-7"}
    first = client.post("/matches", json=body, headers=bearer(td_token)).json()
    before = _count(store)
    for changed, named in [({"seed": 4}, "seed"), ({"players": ["ann", "bob", "dan"]}, "players"),
                           ({"game": "laugavatnsmanni"}, "game"), ({"options": {"needed_base": "3"}}, "options")]:
        r = client.post("/matches", json={**body, **changed}, headers=bearer(td_token))
        assert r.status_code == 409, (changed, r.text)
        error = r.json()["error"]
        assert f"command_id 'table-7' already created match {first['match']} with a different request " \
               f"(a different {named})" in error
        assert _count(store) == before  # nothing written, no token re-issued
    assert client.post("/matches", json=body, headers=bearer(td_token)).json()["match"] == first["match"]


def test_command_keys_belong_to_their_seat_and_their_command(client, store, td_token):
    created = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 7, "auto_deal": False},
                          headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    deal = {"command_id": "deal-1"}
    assert client.post(f"/matches/{mid}/deals", json=deal, headers=bearer(td_token)).status_code == 201
    state = client.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()
    first = state["to_act"][0]
    legal = client.get(f"/matches/{mid}/legal", headers=bearer(tokens[first])).json()
    verb, *args = legal[0].split()
    url = f"/matches/{mid}/commands"
    done = client.post(url, json={"verb": verb, "args": args, "command_id": "k-1"}, headers=bearer(tokens[first]))
    assert done.status_code == 201, done.text
    before = _count(store)
    # the same seat, the same key, another command: refused, never a silent duplicate
    other = [c for c in client.get(f"/matches/{mid}/legal", headers=bearer(tokens[first])).json()
             if c != legal[0]] or ["pass"]
    verb2, *args2 = other[0].split()
    r = client.post(url, json={"verb": verb2, "args": args2, "command_id": "k-1"}, headers=bearer(tokens[first]))
    assert r.status_code == 409 and "command_id 'k-1' was already used by this caller" in r.json()["error"]
    assert _count(store) == before
    # a genuine retry returns the first result
    again = client.post(url, json={"verb": verb, "args": args, "command_id": "k-1"}, headers=bearer(tokens[first]))
    assert again.json()["duplicate"] and again.json()["positions"] == done.json()["positions"]
    # another seat's same key is its own command
    for i in range(20):
        state = client.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()
        if state["to_act"] != [first]:
            break
        verb4, *args4 = client.get(f"/matches/{mid}/legal", headers=bearer(tokens[first])).json()[0].split()
        client.post(url, json={"verb": verb4, "args": args4, "command_id": f"f-{i}"}, headers=bearer(tokens[first]))
    second = next(p for p in state["to_act"] if p != first)
    verb3, *args3 = client.get(f"/matches/{mid}/legal", headers=bearer(tokens[second])).json()[0].split()
    r = client.post(url, json={"verb": verb3, "args": args3, "command_id": "k-1"}, headers=bearer(tokens[second]))
    assert r.status_code == 201 and not r.json()["duplicate"]
    # the TD's deal key with another deck is refused too
    r = client.post(f"/matches/{mid}/deals", json={**deal, "deck": ["R1"]}, headers=bearer(td_token))
    assert r.status_code == 409 and "command_id 'deal-1'" in r.json()["error"]


def test_rulings_over_http_a_td_may_appeal_and_the_decider_is_neither_player_nor_appellant(client, store, td_token):
    from scenarios import foul_deal

    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.tokens import issue

    created = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 1, "auto_deal": False},
                          headers=bearer(td_token)).json()
    foul_deal(MatchService(store), created["match"], 0)
    url = f"/audit/{created['match']}/uxinjo-d1-Or"
    r = client.post(url + "/appeal", json={"reason": "the TD saw a miscount"}, headers=bearer(td_token))
    assert r.status_code == 201 and r.json()["history"][-1] == {**r.json()["history"][-1], "kind": "appealed",
                                                                 "by": "mia"}
    decision = {"decision": "overturn", "reason": "miscounted"}
    before = _count(store)
    r = client.post(url + "/decide", json=decision, headers=bearer(td_token))
    assert r.status_code == 403 and r.json()["error"] == "mia made this appeal: another TD decides it"
    assert _count(store) == before
    playing = issue(store, "td", label="bob")  # a TD who plays in the match
    before = _count(store)
    r = client.post(url + "/decide", json=decision, headers=bearer(playing))
    assert r.status_code == 403 and "bob plays in match" in r.json()["error"]
    assert _count(store) == before
    other = issue(store, "td", label="noa")
    r = client.post(url + "/decide", json=decision, headers=bearer(other))
    assert r.status_code == 201 and r.json()["status"] == "overturned" and r.json()["history"][-1]["by"] == "noa"


def test_a_td_label_spelt_like_a_player_may_not_decide_over_http(client, store, td_token):
    """A TD token labelled " Bob" is bob: the label is compared as a name, not as bytes."""
    from scenarios import foul_deal

    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.tokens import issue

    created = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 1, "auto_deal": False},
                          headers=bearer(td_token)).json()
    foul_deal(MatchService(store), created["match"], 0)
    url = f"/audit/{created['match']}/uxinjo-d1-Or"
    assert client.post(url + "/appeal", json={"reason": "two sets"},
                       headers=bearer(created["tokens"]["ann"])).status_code == 201
    for label in (" Bob", "bob\t", "\uff42\uff4f\uff42", " ann "):
        token = issue(store, "td", label=label)
        before = _count(store)
        r = client.post(url + "/decide", json={"decision": "overturn", "reason": "x"}, headers=bearer(token))
        assert r.status_code == 403, (label, r.text)
        assert "plays in match" in r.json()["error"] or "made this appeal" in r.json()["error"]
        assert _count(store) == before
