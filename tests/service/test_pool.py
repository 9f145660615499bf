"""The service's connections: live streams that open and drop never keep one."""

from __future__ import annotations

import threading
import time

import httpx
from serving import bearer


def _open_and_drop(http: httpx.Client, url: str, headers: dict[str, str]) -> None:
    """Open a live stream, wait for its first event, hang up."""
    with http.stream("GET", url, headers=headers) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if line.startswith("data:"):
                return


def test_500_dropped_live_streams_leave_the_pool_whole(server, store, td_token):
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 3},
                        headers=bearer(td_token))
    assert created.status_code == 201, created.text
    mid, tokens = created.json()["match"], created.json()["tokens"]
    url = f"{server}/matches/{mid}/stream"
    who = [bearer(tokens["ann"]), bearer(tokens["bob"]), bearer(td_token), {}]
    errors: list[BaseException] = []

    def client(k: int) -> None:
        try:
            with httpx.Client(timeout=30) as own:
                for i in range(50):
                    _open_and_drop(own, url, who[(k + i) % len(who)])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[0]
    deadline = time.monotonic() + 10  # the dropped streams' last reads finish
    while store.connections_in_use() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.connections_in_use() == 0
    for path in ("/standings", "/matches", "/audit"):
        r = http.get(path)
        assert r.status_code == 200, (path, r.text)
    assert any(m["match"] == mid for m in http.get("/matches").json())


def test_serve_workers_share_the_pool_size_unless_it_is_set():
    """``serve --workers N`` gives each process a share of the backend's pool size (at
    least 8), so N processes open no more PostgreSQL connections than one would; a
    ``KARTLUDO_POOL_SIZE`` the user set is kept as it is."""
    from kartludo.cli.serve import worker_pool

    pg, lite = "postgresql://postgres@127.0.0.1/club", "sqlite:///club.db"
    assert worker_pool(pg, 1, {}) == {}
    assert worker_pool(pg, 2, {}) == {"KARTLUDO_POOL_SIZE": "32"}
    assert worker_pool(pg, 4, {}) == {"KARTLUDO_POOL_SIZE": "16"}
    assert worker_pool(pg, 16, {}) == {"KARTLUDO_POOL_SIZE": "8"}
    assert worker_pool(lite, 2, {}) == {"KARTLUDO_POOL_SIZE": "8"}
    assert worker_pool(pg, 4, {"KARTLUDO_POOL_SIZE": "40"}) == {}
    assert worker_pool(pg, 4, {"KARTLUDO_POOL_SIZE": " "}) == {"KARTLUDO_POOL_SIZE": "16"}
