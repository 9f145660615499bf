"""Serving an app on a free loopback port from a test (uvicorn in a thread, or
``kartludo serve`` in a process), and the bearer header the tests send.

A test waits for a server by its own signal (uvicorn's ``started``, a process's first
answer), not by a clock: a loaded two-core machine may take many seconds to start one.
``START_CAP`` only ends a start that hangs; a server that stops fails at once.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

#: seconds a server may take to start before a test gives up on it (a hung start)
START_CAP = 120.0


@contextlib.contextmanager
def serve_in_thread(app: Any, **options: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port (``options`` for
    ``uvicorn.Config``); yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1,
                            lifespan="on", **options)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_CAP
    while not srv.started:  # uvicorn's own signal: listening, the app's start-up done
        assert thread.is_alive(), "uvicorn stopped before it started (see the log above)"
        assert time.monotonic() < deadline, f"uvicorn did not start within {START_CAP:.0f} s"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(5)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_serving(proc: subprocess.Popen[bytes], url: str) -> Any:
    """Poll ``url`` (a cheap GET) until the server ``proc`` runs answers, and return that
    first answer (an ``httpx.Response``); fails at once with the process's output if it
    exits, or after ``START_CAP`` seconds of no answer."""
    import httpx

    deadline = time.monotonic() + START_CAP
    while True:
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            if proc.poll() is not None:
                output = proc.stdout.read().decode() if proc.stdout is not None else ""
                raise AssertionError(f"the server exited ({proc.returncode}) before it answered:\n{output}") from None
            assert time.monotonic() < deadline, f"the server did not answer {url} within {START_CAP:.0f} s"
            time.sleep(0.1)


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
