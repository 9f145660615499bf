"""The fault suite's fixtures: the counts each test reports (summed and printed at the
end of the run by ``tests/conftest.py``), and the project's own PostgreSQL primary and
standby (``tests/replica_cluster.py``), one per test session, never the shared one."""

from __future__ import annotations

import os
from collections import Counter
from types import SimpleNamespace

import pytest

REQUIRE_PG = os.environ.get("KARTLUDO_REQUIRE_PG") == "1"
#: what every fault test reports, in the order the summary prints it
COUNTS = ("faults", "acknowledged", "lost", "duplicated", "5xx")


def _unavailable(reason: str) -> None:
    if REQUIRE_PG:
        pytest.fail(reason + " (KARTLUDO_REQUIRE_PG=1)")
    pytest.skip(reason)


@pytest.fixture
def counts(request):
    """What this test injected and saw, added to the run's fault counts when it ends
    (``faults``, ``acknowledged``, ``lost``, ``duplicated``, ``5xx``)."""
    tally: Counter[str] = Counter()
    yield tally
    request.node.user_properties.append(("fault_counts", {k: int(tally[k]) for k in COUNTS}))


@pytest.fixture(scope="session")
def pg_pair():
    """The project's own primary and streaming hot standby (made once per session;
    the failover test, which promotes the standby, runs last on it)."""
    from replica_cluster import for_tests

    yield from for_tests(_unavailable)


@pytest.fixture
def td_token():
    """A TD token on the store at a URL."""
    def issue(url: str) -> str:
        from kartludo.app.tokens import issue as issue_token
        from kartludo.store import EventStore

        store = EventStore.open(url)
        try:
            return issue_token(store, "td", label="faults")
        finally:
            store.close()

    return issue


@pytest.fixture(scope="session")
def league(tmp_path_factory):
    """A SQLite league played once per session (12 Svoi Kozyri matches, some 7,000
    events) and its export: ``db`` (copy it before changing it), ``log``, ``events``
    (copies and imports of it)."""
    from faultlib import cli_here

    folder = tmp_path_factory.mktemp("league")
    db = folder / "league.db"
    url = f"sqlite:///{db}"
    cli_here(url, "simulate", "svoi-kozyri", "--matches", "12", "--seed", "7")
    log = folder / "league.jsonl"
    cli_here(url, "events", "export", "-o", str(log))
    cli_here(url, "verify", "--no-fold")  # checkpointed: the file alone holds it all
    return SimpleNamespace(db=db, log=log, events=sum(1 for _ in log.open("rb")))
