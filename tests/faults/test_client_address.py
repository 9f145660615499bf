"""The client address behind the anonymous live-stream cap (``Limits``,
``anonymous_streams_per_address``): ``X-Forwarded-For`` counts only from the proxies
``kartludo serve --trusted-proxy`` names; by default from none, not even 127.0.0.1.

Over real HTTP, with ``kartludo serve`` itself (uvicorn's own proxy-header handling,
on by default for 127.0.0.1, is what made a forged header pass before), and the
rules of a chain of proxies on ``client_address`` directly.
"""

from __future__ import annotations

import contextlib

import httpx
import pytest
from faultlib import Server, cli

pytestmark = pytest.mark.faults


@pytest.fixture
def match_db(tmp_path):
    url = f"sqlite:///{tmp_path / 'kartludo.db'}"
    made = cli(url, "match", "new", "svoi-kozyri", "--players", "ann,bob")
    assert made.returncode == 0, made.stderr
    return url, made.stdout.strip()


def _streams(base: str, match: str, forwarded: list[str | None]) -> list[int]:
    """Open one anonymous live stream per entry (with that ``X-Forwarded-For``, None:
    none), all held open together: each one's status."""
    statuses = []
    with httpx.Client(base_url=base, timeout=10) as http, contextlib.ExitStack() as held:
        for value in forwarded:
            headers = {} if value is None else {"X-Forwarded-For": value}
            r = held.enter_context(http.stream("GET", f"/matches/{match}/stream", headers=headers))
            statuses.append(r.status_code)
    return statuses


def test_forwarded_for_is_not_trusted_by_default(match_db, tmp_path, counts):
    """From 127.0.0.1, with no --trusted-proxy: every stream is 127.0.0.1's, whatever
    the header says; the second one is over the cap of 1."""
    url, match = match_db
    with Server(url, tmp_path, "--anonymous-streams-per-address", "1") as server:
        counts["faults"] += 1
        assert _streams(server.base, match, ["10.0.0.1", "10.0.0.2"]) == [200, 429]
        assert _streams(server.base, match, [None, "10.0.0.3"]) == [200, 429]


def test_forwarded_for_counts_from_a_trusted_proxy(match_db, tmp_path, counts):
    """With --trusted-proxy 127.0.0.1, the header's last address is the client: two
    clients each get their stream, a client's second is over the cap; what a client
    wrote to the left of its proxy's entry changes nothing."""
    url, match = match_db
    with Server(url, tmp_path, "--anonymous-streams-per-address", "1", "--trusted-proxy", "127.0.0.1") as server:
        counts["faults"] += 1
        assert _streams(server.base, match, ["10.0.0.1", "10.0.0.2", None]) == [200, 200, 200]
        assert _streams(server.base, match, ["10.0.0.1", "10.0.0.1"]) == [200, 429]
        assert _streams(server.base, match, ["10.0.0.1", "6.6.6.6, 10.0.0.1"]) == [200, 429]


def test_a_bad_trusted_proxy_is_refused(tmp_path):
    done = cli(f"sqlite:///{tmp_path / 'k.db'}", "serve", "--trusted-proxy", "proxy.example")
    assert done.returncode == 2 and "'proxy.example' is not an IP address or network" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def _address(peer: str, *forwarded: str, trusted: tuple[str, ...] = ()) -> str:
    from litestar import Request

    from kartludo.service.limits import Limits, client_address

    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "client": (peer, 5000),
             "headers": [(b"x-forwarded-for", v.encode()) for v in forwarded], "app": None}
    return client_address(Request(scope), Limits(trusted_proxies=trusted))  # type: ignore[arg-type]


def test_client_address_through_a_chain_of_proxies():
    # no proxy trusted: the peer, always
    assert _address("127.0.0.1", "10.0.0.1") == "127.0.0.1"
    assert _address("10.1.1.1", "10.0.0.1", trusted=("127.0.0.1",)) == "10.1.1.1"
    # a trusted proxy: the last hop that is no trusted proxy itself
    assert _address("10.1.1.1", "9.9.9.9, 10.0.0.1", trusted=("10.1.1.0/24",)) == "10.0.0.1"
    assert _address("10.1.1.1", "9.9.9.9, 10.0.0.1, 10.1.1.7", trusted=("10.1.1.0/24",)) == "10.0.0.1"
    assert _address("10.1.1.1", "9.9.9.9", "10.0.0.1", trusted=("10.1.1.0/24",)) == "10.0.0.1"  # two headers
    assert _address("::1", "2001:db8::5", trusted=("::1",)) == "2001:db8::5"
    # no header, only proxies, or a hop that is no address: the last proxy
    assert _address("10.1.1.1", trusted=("10.1.1.0/24",)) == "10.1.1.1"
    assert _address("10.1.1.1", "10.1.1.9", trusted=("10.1.1.0/24",)) == "10.1.1.9"
    assert _address("10.1.1.1", "unknown", trusted=("10.1.1.0/24",)) == "10.1.1.1"
