"""Shared fixtures: one store suite, run on SQLite and on PostgreSQL.

PostgreSQL tests use ``KARTLUDO_TEST_PG_URL`` (default: the local ``test``
database). Without a reachable server they skip with the reason shown; with
``KARTLUDO_REQUIRE_PG=1`` (set by ``.ci/run``) a missing server fails them instead.
Each PostgreSQL test gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import quote

import pytest

PG_URL = os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("KARTLUDO_REQUIRE_PG") == "1"
_pg_problem: list[str] = []


def _pg_reachable() -> str | None:
    """None when PostgreSQL answers, else why not (checked once per session)."""
    if _pg_problem:
        return _pg_problem[0] or None
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        _pg_problem.append("")
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        _pg_problem.append(f"PostgreSQL not reachable at {PG_URL}: {str(exc).strip().splitlines()[0]}")
    return _pg_problem[0] or None


def require_pg() -> None:
    problem = _pg_reachable()
    if problem:
        if REQUIRE_PG:
            pytest.fail(problem + " (KARTLUDO_REQUIRE_PG=1)")
        pytest.skip(problem)


@pytest.fixture(autouse=True)
def _own_config_home(tmp_path_factory, monkeypatch):
    """Seal keys (``store.keys``) live under ``$XDG_CONFIG_HOME``: each test gets its own
    empty one, so no test reads or writes the real home's key."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("KARTLUDO_KEY", raising=False)


def _schema_url():
    """A fresh, empty PostgreSQL schema as a URL (search_path set by the URL), dropped after."""
    require_pg()
    import psycopg

    schema = "kt_" + uuid.uuid4().hex[:12]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def pg_url():
    """A fresh, empty PostgreSQL schema as a URL (search_path set by the URL)."""
    yield from _schema_url()


@pytest.fixture
def other_pg_url():
    """A second schema of the same database as ``pg_url``: another store beside it."""
    yield from _schema_url()


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'kartludo.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    """The same test on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'kartludo.db'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def k(db_url):
    """Run a ``kartludo`` command line on the test database (schema upgraded):
    ``k("state", m, "--json")`` returns the output and checks the exit code
    (``code=1`` for a refusal) and that no traceback leaked."""
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db_url, "db", "upgrade"]).exit_code == 0

    def run(*args, code=0):
        result = runner.invoke(cli, ["--db", db_url, *args])
        assert result.exit_code == code, (args, result.output, result.exception)
        assert "Traceback" not in result.output
        return result.output

    return run


@pytest.fixture
def store(db_url):
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(db_url))
    s = EventStore.open(db_url)
    yield s
    s.close()


_pg_tests_passed: list[str] = []
#: the fault suite's counts (tests/faults: each test reports its own as ``fault_counts``)
_fault_counts: dict[str, int] = {}
_FAULT_COUNTS = {"faults": "faults injected", "acknowledged": "commands acknowledged", "lost": "lost",
                 "duplicated": "duplicated", "5xx": "5xx seen"}


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and "postgres" in report.keywords:
        _pg_tests_passed.append(report.nodeid)
    if report.when == "teardown":  # (also from xdist workers: their reports carry user_properties)
        for name, value in report.user_properties:
            if name == "fault_counts":
                for key, n in value.items():
                    _fault_counts[key] = _fault_counts.get(key, 0) + n


def pytest_terminal_summary(terminalreporter):
    """The fault suite's counts, summed over the run (printed whenever a fault test ran)."""
    if _fault_counts:
        terminalreporter.section("faults")
        terminalreporter.write_line(", ".join(f"{label}: {_fault_counts.get(key, 0)}"
                                              for key, label in _FAULT_COUNTS.items()))


def pytest_sessionfinish(session, exitstatus):
    """With KARTLUDO_REQUIRE_PG=1 a run in which no PostgreSQL test passed fails."""
    if REQUIRE_PG and exitstatus == 0 and session.testscollected and not _pg_tests_passed:
        print("\nKARTLUDO_REQUIRE_PG=1 but no PostgreSQL test ran and passed")
        session.exitstatus = 1
