"""Tokens and authority: one live token per seat under concurrent retries, idempotency
keys scoped to their caller and request, and who may appeal and decide a ruling."""

from __future__ import annotations

import threading
from collections import Counter

import httpx

from kartludo.app.tokens import TokenIndex

from serving import bearer

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

        def create() -> None:
            with httpx.Client(base_url=server, timeout=30) as c:
                barrier.wait()
                r = c.post("/matches", json=body, headers=bearer(td_token))
                with lock:
                    answers.append(r)

        threads = [threading.Thread(target=create) for _ in range(8)]
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
