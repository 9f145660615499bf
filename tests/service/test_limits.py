"""Limits that keep one client from hurting the others: slow or huge requests, deep or
non-JSON bodies, and the `serve` options that set them."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse

import httpx
import pytest
from serving import bearer, free_port, serve_in_thread, wait_until_serving

from kartludo.service.limits import Limits, guarded_protocol, json_depth

FAST = Limits(header_timeout=0.5, body_timeout=0.5, max_header_bytes=2048, keep_alive_timeout=5)


@pytest.fixture
def guarded(store, db_url):
    from kartludo.service.app import create_app

    with serve_in_thread(create_app(db_url, store=store, limits=FAST), http=guarded_protocol(FAST)) as url:
        parsed = urlparse(url)
        yield url, (parsed.hostname, parsed.port)


def _exchange(address, chunks: list[bytes], pause: float = 0.0, wait: float = 5.0) -> tuple[bytes, float]:
    """Send ``chunks`` (``pause`` seconds apart), then read until the server closes;
    returns what it answered and how long after the last chunk it closed."""
    with socket.create_connection(address, timeout=wait) as sock:
        for chunk in chunks:
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):  # the server has closed: read its answer
                break
            time.sleep(pause)
        sent = time.monotonic()
        answer = b""
        while True:
            try:
                data = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not data:
                break
            answer += data
        return answer, time.monotonic() - sent


def test_headers_that_do_not_arrive_in_time_close_the_connection(guarded):
    url, address = guarded
    answer, _ = _exchange(address, [b"GET /matches HTTP/1.1\r\nHost: x\r\n"])  # never finished
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 0.5s" in answer
    answer, _ = _exchange(address, [])  # an idle connection is closed quietly
    assert answer == b""
    assert httpx.get(f"{url}/matches").status_code == 200  # the server serves on


def test_a_trickled_request_is_cut_off_by_its_deadline(guarded):
    _, address = guarded
    trickle = [b"GET /matches HTTP/1.1\r\n"] + [b"X-Slow: %d\r\n" % i for i in range(20)]
    started = time.monotonic()
    answer, _ = _exchange(address, trickle, pause=0.1)
    assert answer.startswith(b"HTTP/1.1 408")
    assert time.monotonic() - started < 4  # not the 2 s of trickling plus more: cut at 0.5 s


def test_a_body_that_does_not_arrive_in_time_is_a_408(guarded, td_token):
    _, address = guarded
    head = (f"POST /matches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {td_token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 50\r\n\r\n").encode()
    answer, _ = _exchange(address, [head, b'{"game": '])
    assert answer.startswith(b"HTTP/1.1 408") and b"the request body did not arrive" in answer


def test_headers_beyond_the_size_limit_are_a_431(guarded):
    url, address = guarded
    answer, _ = _exchange(address, [b"GET /matches HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 4000 + b"\r\n\r\n"])
    assert answer.startswith(b"HTTP/1.1 431") and b"exceed 2048 bytes" in answer
    assert httpx.get(f"{url}/matches", headers={"X-Fine": "a" * 1000}).status_code == 200


def test_a_kept_alive_connection_serves_several_requests_then_idles_out(guarded):
    url, _ = guarded
    with httpx.Client(base_url=url) as c:
        assert [c.get("/matches").status_code for _ in range(3)] == [200, 200, 200]
        time.sleep(0.8)  # past the header deadline: the idle connection was closed, httpx reconnects
        assert c.get("/matches").status_code == 200


def test_bodies_must_be_json_within_size_and_depth(client, store, td_token):
    before = store.head_position()
    url = "/matches"
    body = b'{"game": "uxinjo", "players": ["ann", "bob", "cy"]}'
    for headers, content, status, message in [
        ({"Content-Type": "text/plain"}, body, 415, "send the body as JSON with 'Content-Type: application/json' "
                                                     "(got 'text/plain')"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, b"game=uxinjo", 415, "Content-Type"),
        ({}, body, 415, "(got none)"),
        ({"Content-Type": "application/json"}, b"[" * 1000 + b"]" * 1000, 400,
         "the JSON body nests 1000 levels deep: at most 16"),
        ({"Content-Type": "application/json"}, b'{"game": "uxinjo", "options": ' + b'{"a": ' * 40 + b"1" + b"}" * 41,
         400, "the JSON body nests 41 levels deep"),
        ({"Content-Type": "application/json"}, b'{"game": "' + b"x" * 70_000 + b'"}', 413,
         "the request body is too large: at most 65536 bytes"),
    ]:
        r = client.post(url, content=content, headers={**bearer(td_token), **headers})
        assert r.status_code == status, (headers, r.text[:200])
        assert message in r.json()["error"]
        if status == 400:  # refused unread: its own kind of problem, not a malformed field (422)
            assert r.json()["type"] == "/schema#problem-too-deep"
    assert store.head_position() == before
    # strings are not nesting; a charset parameter is fine
    r = client.post(url, content=b'{"game": "uxinjo", "players": ["ann", "bob", "cy"], "command_id": "[[[[{{{{",'
                    b' "auto_deal": false}',
                    headers={**bearer(td_token), "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 201, r.text
    # a deal needs no body at all
    assert client.post(f"/matches/{r.json()['match']}/deals", headers=bearer(td_token)).status_code == 201


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth(b"") == 0 and json_depth(b"1") == 0
    assert json_depth(b'{"a": [1, {"b": []}]}') == 4
    assert json_depth(b'["[[[[", "\\"[[[", {}]') == 2
    assert json_depth(b"[" * 1000) == 1000  # need not be valid JSON


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError, match="streams_per_seat must be positive"):
        Limits(streams_per_seat=0)


def test_serve_takes_the_limits_as_options(sqlite_url, tmp_path):
    import os
    import subprocess
    import sys

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kartludo.cli.main", "--db", sqlite_url, "serve", "--port",
                             str(port), "--max-body-bytes", "100", "--header-timeout", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path, env={**os.environ})
    try:
        wait_until_serving(proc, f"http://127.0.0.1:{port}/matches")
        r = httpx.post(f"http://127.0.0.1:{port}/matches", json={"game": "uxinjo", "options": {"x": "y" * 200}})
        assert r.status_code == 413 and "at most 100 bytes" in r.json()["error"]
        answer, _ = _exchange(("127.0.0.1", port), [b"GET /matches HTTP/1.1\r\n"])
        assert answer.startswith(b"HTTP/1.1 408")
    finally:
        proc.terminate()
        proc.wait(10)
    bad = subprocess.run([sys.executable, "-m", "kartludo.cli.main", "--db", sqlite_url, "serve",
                          "--streams-per-seat", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "0 is not in the range" in bad.stderr
