"""Headless Chromium (Debian's package) driven by Playwright for Python.

Without a browser these tests skip with the reason shown; with
``KARTLUDO_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser fails them instead.
Screenshots go under ``tests/web/output/`` (``KARTLUDO_SCREENSHOTS`` overrides it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REQUIRE_BROWSER = os.environ.get("KARTLUDO_REQUIRE_BROWSER") == "1"
CHROMIUM = os.environ.get("KARTLUDO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: flags for a root user on a machine with a closed network (no background connections)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _unavailable(problem: str) -> None:
    if REQUIRE_BROWSER:
        pytest.fail(problem + " (KARTLUDO_REQUIRE_BROWSER=1)")
    pytest.skip(problem)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    if not os.path.exists(CHROMIUM):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium chromium-driver)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    """A fresh page; JavaScript errors and failed console asserts fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    # a refused request is logged as "Failed to load resource": expected, the page shows it
    pg.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}")
          if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    pg.errors = errors
    yield pg
    context.close()
    assert not errors, "\n".join(errors)


@pytest.fixture
def shots(request) -> Path:
    """Where this test saves its screenshots."""
    base = Path(os.environ.get("KARTLUDO_SCREENSHOTS", Path(__file__).parent / "output"))
    out = base / request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
    out.mkdir(parents=True, exist_ok=True)
    return out


class Site:
    """The service on a fresh SQLite database, served on loopback."""

    def __init__(self, url: str, store, td_token: str) -> None:
        self.url = url
        self.store = store
        self.td_token = td_token

    def api(self, method: str, path: str, token: str | None = None, **kw):
        """A JSON API call (raises on an error status); returns the decoded body."""
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.request(method, self.url + path, headers=headers, timeout=30, **kw)
        r.raise_for_status()
        return r.json()


@pytest.fixture
def site(tmp_path):
    from serving import serve_in_thread

    from kartludo.app.tokens import issue
    from kartludo.service.app import create_app
    from kartludo.store import EventStore

    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = EventStore.open(url)
    td = issue(store, "td", label="td")
    with serve_in_thread(create_app(url, store=store)) as base:
        yield Site(base, store, td)
    store.close()
