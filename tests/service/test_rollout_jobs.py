"""Rollout jobs over HTTP (issue 41): ``POST /hypotheticals/{id}/rollouts`` answers 202
with the job; ``GET`` it for progress and its result (the CLI's document), follow it by
SSE, cancel it by ``DELETE``; only a TD token does any of it, and a refused request
writes nothing."""

from __future__ import annotations

import json
import random
import threading
import time

import httpx
import pytest
from serving import bearer

from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import jobs
from kartludo.app.hypotheticals import rollouts as ro
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.app.tokens import issue, revoke
from kartludo.events.hypo import RolloutJobEnded, RolloutJobStarted, RolloutRecorded


def hypothetical(store, game: str = "laugavatnsmanni", step: int = 0) -> str:
    """A hypothetical from step ``step`` of a bot-played first deal of ``game``."""
    players = ["ann", "bob", "cy", "dan"][: 4 if game == "hakamo" else 3]
    options = {"laugavatnsmanni": {"max_deals": "1"}, "svoi-kozyri": {"deals": "1"}}.get(game)
    mid, _, _ = play_match(MatchService(store), game, players, pick_bots(game, ["heuristic"]), random.Random(2),
                           options=options, max_deals=1)
    return hy.create(store, mid, 1, step)


@pytest.fixture
def slow(monkeypatch):
    """Each rollout takes at least ``slow.seconds`` (default 4 ms): a job runs long enough
    to be watched, cancelled and revoked mid-way, whatever the machine."""
    real = ro.play_out

    class Slow:
        seconds = 0.004

    def play_out(*args, **kwargs):
        time.sleep(Slow.seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(ro, "play_out", play_out)
    return Slow


def wait(condition, what: str, cap: float = 60.0):
    deadline = time.monotonic() + cap
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def job_events(store, hid: str) -> list:
    return [r.event for r in store.read_stream(hy.hypo_stream(hid))
            if isinstance(r.event, (RolloutJobStarted, RolloutJobEnded, RolloutRecorded))]


def test_a_job_answers_202_and_its_result_is_the_clis_document(client, store, td_token, k):
    hid = hypothetical(store)
    before = hy.load(store, hid)
    expected = ro.result_json(ro.rollout(before, 120, seed=5, hidden="resample"))  # the library, same moment
    r = client.post(f"/hypotheticals/{hid[:6]}/rollouts", json={"n": 120, "seed": 5, "hidden": "resample"},
                    headers=bearer(td_token))
    assert r.status_code == 202, r.text
    job = r.json()
    assert r.headers["location"] == f"/hypotheticals/{hid}/rollouts/{job['job']}" == job["url"]
    assert job["status"] in ("running", "done") and job["total"] == 120 and 0 <= job["done"] <= 120
    assert job["request"] == {"n": 120, "bots": "heuristic", "seed": 5, "hidden": "resample"}
    assert job["at_version"] == before.version and job["by"] == "mia"

    def finished():
        got = client.get(job["url"], headers=bearer(td_token)).json()
        return got if got["status"] != "running" else None

    done = wait(finished, "the job to finish")
    assert done["status"] == "done" and done["done"] == done["total"] == 120 and done["ended_at"]
    assert done["result"] == expected  # every field, at_version and the hypothetical's id included
    assert hy.load(store, hid).rollouts[-1].players == expected["players"]  # recorded, as the CLI records it
    cli = json.loads(k("hypo", "rollout", hid, "--n", "120", "--seed", "5", "--hidden", "resample",
                       "--format", "json"))
    assert {key: v for key, v in cli.items() if key != "at_version"} == \
        {key: v for key, v in done["result"].items() if key != "at_version"}
    listed = client.get(f"/hypotheticals/{hid}/rollouts", headers=bearer(td_token)).json()
    assert [(j["job"], j["status"]) for j in listed] == [(job["job"], "done")] and listed[0]["result"] is None
    kinds = [type(e).__name__ for e in job_events(store, hid)]
    assert kinds == ["RolloutJobStarted", "RolloutRecorded", "RolloutJobEnded", "RolloutRecorded"]  # then the CLI's


def test_refused_requests_write_nothing(client, store, td_token, slow):
    hid = hypothetical(store)
    seat_token = issue(store, "seat", match=hy.load(store, hid).started.match, seat=0)  # a seat of the origin
    version = store.stream_version(hy.hypo_stream(hid))
    url = f"/hypotheticals/{hid}/rollouts"
    for headers, body, status in [({}, {"n": 10}, 401), (bearer(seat_token), {"n": 10}, 403),
                                  (bearer("not-a-token"), {"n": 10}, 401),
                                  (bearer(td_token), {"n": 0}, 422), (bearer(td_token), {"n": 10_001}, 422),
                                  (bearer(td_token), {"n": 10, "bots": "clever"}, 422),
                                  (bearer(td_token), {"n": 10, "hidden": "peek"}, 422)]:
        r = client.post(url, json=body, headers=headers)
        assert r.status_code == status, (headers, body, r.text)
        assert r.headers["content-type"].startswith("application/problem+json") and r.json()["detail"]
    assert client.post("/hypotheticals/nosuch/rollouts", json={"n": 5}, headers=bearer(td_token)).status_code == 404
    assert store.stream_version(hy.hypo_stream(hid)) == version

    slow.seconds = 0.02
    job = client.post(url, json={"n": 2000, "seed": 1}, headers=bearer(td_token)).json()
    version = store.stream_version(hy.hypo_stream(hid))
    again = client.post(url, json={"n": 5}, headers=bearer(td_token))  # one job at a time per hypothetical
    assert again.status_code == 409 and job["job"] in again.json()["detail"] and "cancel" in again.json()["detail"]
    for method in ("GET", "DELETE"):  # the job is TD material, as the rollout is
        for headers, status in [({}, 401), (bearer(seat_token), 403)]:
            assert client.request(method, job["url"], headers=headers).status_code == status
        assert client.request(method, f"{url}/0123abcd", headers=bearer(td_token)).status_code == 404
    assert client.get(job["url"] + "/stream", headers=bearer(seat_token)).status_code == 403
    assert store.stream_version(hy.hypo_stream(hid)) == version
    assert client.delete(job["url"], headers=bearer(td_token)).status_code == 200


def test_a_busy_server_says_when_to_come_back(client, store, td_token, slow, monkeypatch):
    slow.seconds = 0.02
    first, second = hypothetical(store), hypothetical(store)
    client.post(f"/hypotheticals/{first}/rollouts", json={"n": 10}, headers=bearer(td_token))  # makes the runner
    runner = client.app.state.rollout_jobs
    monkeypatch.setattr(runner, "max_running", 1)
    wait(lambda: not runner.mine(), "the first job to end")
    running = client.post(f"/hypotheticals/{first}/rollouts", json={"n": 2000}, headers=bearer(td_token)).json()
    version = store.stream_version(hy.hypo_stream(second))
    busy = client.post(f"/hypotheticals/{second}/rollouts", json={"n": 10}, headers=bearer(td_token))
    assert busy.status_code == 503 and busy.headers["retry-after"] == "5" and "at most 1" in busy.json()["detail"]
    assert store.stream_version(hy.hypo_stream(second)) == version
    client.delete(running["url"], headers=bearer(td_token))


def test_a_cancelled_job_stops_soon_and_records_no_result(client, store, td_token, slow):
    slow.seconds = 0.01
    hid = hypothetical(store)
    job = client.post(f"/hypotheticals/{hid}/rollouts", json={"n": 5000, "seed": 2},
                      headers=bearer(td_token)).json()
    wait(lambda: client.get(job["url"], headers=bearer(td_token)).json()["done"] >= 5, "some progress")
    runner = client.app.state.rollout_jobs
    cancelled = client.delete(job["url"], headers=bearer(td_token))
    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert body["status"] == "cancelled" and body["result"] is None and 5 <= body["done"] < 5000
    assert body["ended_by"] == "mia"
    wait(lambda: job["job"] not in runner.mine(), "the job's thread to stop", cap=5)
    head = store.stream_version(hy.hypo_stream(hid))
    time.sleep(0.3)
    assert store.stream_version(hy.hypo_stream(hid)) == head  # nothing more from it
    assert not hy.load(store, hid).rollouts  # no result, not even a partial one
    got = client.get(job["url"], headers=bearer(td_token)).json()
    assert got["status"] == "cancelled" and got["result"] is None
    again = client.delete(job["url"], headers=bearer(td_token))
    assert again.status_code == 409 and "is cancelled" in again.json()["detail"]
    assert store.stream_version(hy.hypo_stream(hid)) == head
    slow.seconds = 0
    nxt = client.post(f"/hypotheticals/{hid}/rollouts", json={"n": 5}, headers=bearer(td_token))
    assert nxt.status_code == 202  # the hypothetical takes a new job


def test_a_cancel_recorded_by_another_process_stops_the_job(client, store, td_token, slow):
    slow.seconds = 0.01
    hid = hypothetical(store)
    job = client.post(f"/hypotheticals/{hid}/rollouts", json={"n": 5000}, headers=bearer(td_token)).json()
    runner = client.app.state.rollout_jobs
    wait(lambda: (runner.local_progress(job["job"]) or 0) >= 3, "some progress")
    jobs.cancel(store, hid, job["job"], by="elsewhere")  # as another `serve --workers` process would
    wait(lambda: job["job"] not in runner.mine(), "the job to see the cancel", cap=5)
    assert not hy.load(store, hid).rollouts
    assert client.get(job["url"], headers=bearer(td_token)).json()["status"] == "cancelled"


def test_a_result_never_lands_after_a_cancel(client, store, td_token, monkeypatch):
    """The job's rollouts end just as a cancel is recorded elsewhere: the result is not
    appended (the cancel and the result are both appended at the stream's version, after
    reading the job there)."""
    hid = hypothetical(store)
    release, started = threading.Event(), threading.Event()
    real = ro.rollout

    def rollout(*args, **kwargs):
        kwargs.pop("progress", None)  # never looks at its stream meanwhile
        started.set()
        assert release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(ro, "rollout", rollout)
    job = client.post(f"/hypotheticals/{hid}/rollouts", json={"n": 20}, headers=bearer(td_token)).json()
    assert started.wait(30)
    jobs.cancel(store, hid, job["job"], by="elsewhere")
    release.set()
    runner = client.app.state.rollout_jobs
    wait(lambda: job["job"] not in runner.mine(), "the job's thread to end")
    assert not hy.load(store, hid).rollouts
    assert [type(e).__name__ for e in job_events(store, hid)] == ["RolloutJobStarted", "RolloutJobEnded"]


def test_the_stream_shows_progress_then_the_result(server, sse, store, td_token, slow):
    slow.seconds = 0.003
    hid = hypothetical(store)
    http = httpx.Client(base_url=server, timeout=30)
    job = http.post(f"/hypotheticals/{hid}/rollouts", json={"n": 400, "seed": 9},
                    headers=bearer(td_token)).json()
    reader = sse(server + job["stream"], bearer(td_token))
    assert reader.status == 200
    assert reader.ended.wait(60), "the stream did not end with the job"
    kinds = [m["event"] for m in reader.messages]
    assert kinds[-1] == "result" and set(kinds[:-1]) == {"progress"}
    counts = [m["data"]["done"] for m in reader.messages[:-1]]
    assert counts == sorted(counts) and len(set(counts)) >= 3 and counts[-1] == 400  # it moved, then done
    assert reader.messages[-2]["data"]["status"] == "done"
    got = http.get(job["url"], headers=bearer(td_token)).json()
    assert reader.messages[-1]["data"] == got["result"] and got["result"]["n"] == 400
    # a finished job's stream says so at once
    late = sse(server + job["stream"], bearer(td_token))
    assert late.ended.wait(10) and [m["event"] for m in late.messages] == ["progress", "result"]
    http.close()


def test_a_cancelled_jobs_stream_ends_saying_so(server, sse, store, td_token, slow):
    slow.seconds = 0.01
    hid = hypothetical(store)
    http = httpx.Client(base_url=server, timeout=30)
    job = http.post(f"/hypotheticals/{hid}/rollouts", json={"n": 5000}, headers=bearer(td_token)).json()
    reader = sse(server + job["stream"], bearer(td_token))
    wait(lambda: reader.messages and reader.messages[-1]["data"]["done"] > 0, "progress on the stream")
    http.delete(job["url"], headers=bearer(td_token))
    assert reader.ended.wait(10)
    last = reader.messages[-1]
    assert last["event"] == "cancelled" and last["data"]["status"] == "cancelled" and last["data"]["result"] is None
    http.close()


def test_a_revoked_tokens_job_stream_ends_at_once_and_the_job_runs_on(server, sse, store, td_token, slow):
    slow.seconds = 0.005
    hid = hypothetical(store)
    other = issue(store, "td", label="ola")
    http = httpx.Client(base_url=server, timeout=30)
    job = http.post(f"/hypotheticals/{hid}/rollouts", json={"n": 600, "seed": 1}, headers=bearer(td_token)).json()
    reader = sse(server + job["stream"], bearer(other))
    wait(lambda: reader.messages, "the first progress message")
    revoke(store, other, by="test")
    revoked_at = time.monotonic()
    assert reader.ended.wait(5), "the revoked token's job stream did not end"
    assert time.monotonic() - revoked_at < 1.0
    assert "token revoked: the stream ends" in reader.comments
    assert all(m["event"] == "progress" for m in reader.messages)  # never its result
    assert http.get(job["url"], headers=bearer(other)).status_code == 401
    wait(lambda: http.get(job["url"], headers=bearer(td_token)).json()["status"] == "done", "the job to finish")
    http.close()
