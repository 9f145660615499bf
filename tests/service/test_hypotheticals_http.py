"""Hypotheticals, rollouts and an adjusted decision as HTTP resources (issue 21): the
same contract as the command line (the rollout JSON's shape, the 10,000 bound, seeded
figures that repeat), TD tokens only, and a refusal writes nothing."""

from __future__ import annotations

from scenarios import foul_then_void_win
from serving import bearer

from kartludo.app.audit.rulings import appeal
from kartludo.app.audit.trail import resolve_ruling
from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine.base import ALL


def _started(client, td_token) -> tuple[str, dict[str, str]]:
    made = client.post("/matches", json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 5,
                                         "auto_deal": False},
                       headers=bearer(td_token)).json()
    assert client.post(f"/matches/{made['match']}/deals", json={}, headers=bearer(td_token)).status_code == 201
    return made["match"], made["tokens"]


def _rolled_out(client, hid: str, body: dict, td_token: str) -> dict:
    """A rollout job (202 at once) followed to its end: its result."""
    import time

    r = client.post(f"/hypotheticals/{hid}/rollouts", json=body, headers=bearer(td_token))
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + 60
    while (job := client.get(r.headers["location"], headers=bearer(td_token)).json())["status"] == "running":
        assert time.monotonic() < deadline, "the rollout job did not end"
        time.sleep(0.02)
    assert job["status"] == "done", job
    return job["result"]


def test_only_a_td_makes_plays_and_rolls_out_a_hypothetical(client, store, td_token):
    mid, tokens = _started(client, td_token)
    for headers, code in (({}, 401), (bearer(tokens["ann"]), 403)):
        r = client.post("/hypotheticals", json={"match": mid, "deal": 1, "step": 1}, headers=headers)
        assert r.status_code == code, r.text
    assert hy.list_hypotheticals(store) == []
    made = client.post("/hypotheticals", json={"match": mid, "deal": 1, "step": 1, "label": "what if"},
                       headers=bearer(td_token))
    assert made.status_code == 201
    hid = made.json()["hypothetical"]
    assert made.json()["origin"]["hash"] == store.read_stream(stream_of(mid))[made.json()["origin"]["version"] - 1] \
        .hash.hex()
    version = store.stream_version(hy.hypo_stream(hid))

    # refused: beyond the bound, an illegal command, a step the deal does not have; nothing written
    for n in (0, 10_001):
        r = client.post(f"/hypotheticals/{hid}/rollouts", json={"n": n}, headers=bearer(td_token))
        assert r.status_code in (400, 422) and "n" in r.json()["detail"], r.text
    r = client.post(f"/hypotheticals/{hid}/commands", json={"player": "bob", "verb": "draw"},
                    headers=bearer(td_token))
    assert r.status_code == 409 and "bob" in r.json()["detail"], r.text
    r = client.post("/hypotheticals", json={"match": mid, "deal": 1, "step": 999}, headers=bearer(td_token))
    assert r.status_code == 409 and "no step 999" in r.json()["detail"]
    assert store.stream_version(hy.hypo_stream(hid)) == version and len(hy.list_hypotheticals(store)) == 1

    # a rollout job's result is the CLI's JSON; with a seed, the same figures twice
    first, again, actual = (_rolled_out(client, hid, {"n": 25, "seed": 4, "hidden": hidden}, td_token)
                            for hidden in ("resample", "resample", "actual"))
    assert {"n", "players", "outcomes"} <= set(first) and first["n"] == 25
    assert set(first["players"]) == {"ann", "bob", "cy"}
    assert all(set(st) == {"mean", "p10", "p50", "p90"} for st in first["players"].values())
    assert all(set(o) == {"scores", "count"} and set(o["scores"]) == {"ann", "bob", "cy"}
               for o in first["outcomes"]) and sum(o["count"] for o in first["outcomes"]) == 25
    assert (first["players"], first["outcomes"]) == (again["players"], again["outcomes"])
    assert actual["hidden"] == "actual" and first["hidden"] == "resample"
    assert len(client.get(f"/hypotheticals/{hid}", headers=bearer(td_token)).json()["rollouts"]) == 3

    # a move, by the TD as the seat to act
    state = client.get(f"/hypotheticals/{hid}", headers=bearer(td_token)).json()
    [who] = state["to_act"]
    moved = client.post(f"/hypotheticals/{hid}/commands", json={"player": who, "verb": "draw"},
                        headers=bearer(td_token))
    assert moved.status_code == 201 and moved.json()["described"], moved.text
    assert MatchService(store).load(mid).version == store.stream_version(stream_of(mid))  # the match never moved
    # the match list and the standings (with ratings) know matches only
    listed = client.get("/matches", headers=bearer(td_token)).json()
    rows = listed["matches"] if isinstance(listed, dict) else listed
    assert [m["match"] for m in rows] == [mid] and hid not in client.get("/standings").text


def test_an_adjusted_decision_over_http_is_the_clis(client, store, td_token):
    svc = MatchService(store)
    mid = foul_then_void_win(svc)
    ruling = f"/audit/{mid}/uxinjo-d1-Or"
    appeal(store, resolve_ruling(store, f"{mid}/uxinjo-d1-Or"), "ann", "two sets")
    before = svc.state_json(svc.load(mid), ALL)["totals"]
    head = store.head_position()
    bad = client.post(f"{ruling}/decide", json={"decision": "adjust", "reason": "x",
                                                "adjust_scores": {"ann": 2, "bob": 1, "cy": 0}},
                      headers=bearer(td_token))
    assert bad.status_code == 409 and "sum to 0" in bad.json()["detail"]
    assert store.head_position() == head
    r = client.post(f"{ruling}/decide", json={"decision": "adjust", "reason": "12C1(c)",
                                              "adjust_scores": {"ann": 2, "bob": -1, "cy": -1}},
                    headers=bearer(td_token))
    assert r.status_code == 201 and r.json()["status"] == "adjusted", r.text
    after = svc.state_json(svc.load(mid), ALL)["totals"]
    assert {p: after[p] - before[p] for p in after} == {"ann": 2, "bob": -1, "cy": -1}  # deal 1 was drawn: 0 each
