"""Fixtures of the HTTP service tests: the app in-process (Litestar TestClient) and
served by uvicorn on loopback (for live streams and concurrent clients)."""

from __future__ import annotations

import socket
import threading
import time

import pytest


@pytest.fixture
def td_token(store):
    from kartludo.app.tokens import issue

    return issue(store, "td", label="mia")


@pytest.fixture
def client(store, db_url):
    from litestar.testing import TestClient

    from kartludo.service.app import create_app

    with TestClient(create_app(db_url, store=store), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def server(store, db_url):
    """The app served by uvicorn on a free loopback port; yields its base URL."""
    from serving import serve_in_thread

    from kartludo.service.app import create_app

    with serve_in_thread(create_app(db_url, store=store)) as url:
        yield url


class SSE:
    """Reads a Server-Sent Events stream in a thread; ``messages`` fills as they arrive."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        import httpx

        self.messages: list[dict] = []
        self.comments: list[str] = []
        self.ready = threading.Event()
        #: set when the server ended the stream (not when the test closed it)
        self.ended = threading.Event()
        self._stop = False
        self._client = httpx.Client(timeout=httpx.Timeout(30, read=60))
        self._thread = threading.Thread(target=self._run, args=(url, headers), daemon=True)
        self._thread.start()
        assert self.ready.wait(10), "SSE stream did not open"

    def _run(self, url: str, headers: dict[str, str]) -> None:
        import json

        try:
            with self._client.stream("GET", url, headers=headers) as resp:
                self._resp = resp
                self.status = resp.status_code
                self.ready.set()
                current: dict = {}
                for line in resp.iter_lines():
                    if self._stop:
                        return
                    if not line:
                        if "data" in current:
                            current["data"] = json.loads(current["data"])
                            self.messages.append(current)
                        current = {}
                    elif line.startswith(":"):
                        self.comments.append(line[1:].strip())
                    else:
                        key, _, value = line.partition(":")
                        current[key] = value.removeprefix(" ")
            if not self._stop:
                self.ended.set()
        except Exception:  # noqa: BLE001 - closed by the test
            self.ready.set()

    def wait_for(self, position: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(int(m["id"]) >= position for m in self.messages):
            assert time.monotonic() < deadline, f"no SSE message up to position {position}"
            time.sleep(0.005)

    def close(self) -> None:
        self._stop = True
        resp = getattr(self, "_resp", None)
        if resp is not None:  # shutting the socket down wakes the reader blocked in recv()
            sock = resp.extensions["network_stream"].get_extra_info("socket")
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(2)
        self._client.close()


@pytest.fixture
def open_sse():
    """Open SSE readers on any server (closed at the end of the test)."""
    opened: list[SSE] = []

    def open_stream(url: str, headers: dict[str, str] | None = None) -> SSE:
        reader = SSE(url, headers or {})
        opened.append(reader)
        return reader

    yield open_stream
    for reader in opened:
        reader.close()


@pytest.fixture
def sse(server, open_sse):
    """Open SSE readers (closed before the server stops)."""
    return open_sse
