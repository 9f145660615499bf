"""The project's own PostgreSQL primary and hot standby, for the replica tests and
``bench/replicas.py``.

Two new clusters (Debian's ``pg_createcluster``) on free loopback ports, the standby
made with ``pg_basebackup -R`` and streaming from the primary; both dropped
(``pg_dropcluster --stop``) at the end. The machine's shared cluster (5432) is never
touched: replication is allowed only in the new primary's own ``pg_hba.conf``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

TOOLS = ("pg_createcluster", "pg_ctlcluster", "pg_dropcluster", "pg_lsclusters")


@dataclass
class ReplicaCluster:
    version: str
    primary_name: str
    standby_name: str
    primary_port: int
    standby_port: int
    database: str = "test"

    def url(self, port: int, schema: str | None = None) -> str:
        url = f"postgresql://postgres@127.0.0.1:{port}/{self.database}"
        return url + (f"?options=-csearch_path%3D{schema}" if schema else "")

    def primary_url(self, schema: str | None = None) -> str:
        return self.url(self.primary_port, schema)

    def standby_url(self, schema: str | None = None) -> str:
        return self.url(self.standby_port, schema)

    def ctl(self, name: str, action: str, *options: str) -> None:
        _run("pg_ctlcluster", "--skip-systemctl-redirect", self.version, name, action, *options)

    def stop_standby(self) -> None:
        """Stop it now (``fast``: its open connections are cut, as in an outage)."""
        self.ctl(self.standby_name, "stop", "-m", "fast")

    def start_standby(self) -> None:
        self.ctl(self.standby_name, "start")
        _wait_ready(self.standby_port)

    def standby_sql(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.standby_url(), autocommit=True, connect_timeout=5) as conn:
            return conn.execute(sql).fetchall()

    def stop_primary(self, mode: str = "fast") -> None:
        """Stop the primary: ``fast`` (sessions cut, a clean shutdown) or ``immediate``
        (no shutdown checkpoint: the next start runs crash recovery)."""
        self.ctl(self.primary_name, "stop", "-m", mode)

    def start_primary(self) -> None:
        self.ctl(self.primary_name, "start")
        _wait_ready(self.primary_port)

    def promote_standby(self) -> None:
        """The standby becomes a primary (after replaying all the WAL it received)."""
        self.ctl(self.standby_name, "promote")
        deadline = time.monotonic() + 60
        while self.standby_sql("SELECT pg_is_in_recovery()")[0][0]:
            assert time.monotonic() < deadline, "the standby was not promoted"
            time.sleep(0.05)

    def primary_sql(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.primary_url(), autocommit=True, connect_timeout=5) as conn:
            cur = conn.execute(sql)
            return cur.fetchall() if cur.description else []

    def wait_replayed(self, timeout: float = 30.0) -> None:
        """Until the standby has replayed everything the primary has written now."""
        import psycopg

        with psycopg.connect(self.primary_url(), autocommit=True) as conn:
            target = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        deadline = time.monotonic() + timeout
        while not self.standby_sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")[0][0]:
            assert time.monotonic() < deadline, "the standby did not catch up"
            time.sleep(0.02)


def missing_tools() -> str | None:
    """Why replica clusters cannot be made here (None: they can)."""
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        return f"PostgreSQL cluster tools not installed ({', '.join(absent)}: Debian's postgresql-common)"
    if not _versions():
        return "no PostgreSQL server installed under /usr/lib/postgresql"
    if os.geteuid() != 0 and shutil.which("sudo") is None:
        return "making a cluster needs root (or sudo) to act as the postgres user"
    return None


def _versions() -> list[str]:
    root = Path("/usr/lib/postgresql")
    if not root.is_dir():
        return []
    return sorted((p.name for p in root.iterdir() if (p / "bin" / "postgres").exists()), key=float)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(*args: str, user: str | None = None) -> str:
    cmd = list(args)
    if user is not None:
        cmd = (["runuser", "-u", user, "--"] if os.geteuid() == 0 else ["sudo", "-u", user]) + cmd
    elif os.geteuid() != 0:
        cmd = ["sudo", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def _wait_ready(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(port)]).returncode != 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"PostgreSQL on port {port} did not start")
        time.sleep(0.2)


@contextlib.contextmanager
def replica_cluster() -> Iterator[ReplicaCluster]:
    """A primary and its streaming hot standby, made for the caller and dropped after."""
    version = _versions()[-1]
    tag = uuid.uuid4().hex[:8]
    cluster = ReplicaCluster(version, f"kt_primary_{tag}", f"kt_standby_{tag}", _free_port(), _free_port())
    made: list[str] = []
    try:
        settings = ["-o", "listen_addresses=localhost", "-o", "wal_level=replica", "-o", "max_wal_senders=5",
                    "-o", "hot_standby=on", "-o", "fsync=off", "-o", "synchronous_commit=on",
                    "-o", "full_page_writes=off", "-o", "shared_buffers=32MB", "-o", "max_connections=200",
                    "-o", "wal_receiver_status_interval=1s", "-o", "hot_standby_feedback=on"]
        _run("pg_createcluster", version, cluster.primary_name, "-p", str(cluster.primary_port), *settings,
             "--", "--auth=trust")
        made.append(cluster.primary_name)
        conf = Path(f"/etc/postgresql/{version}/{cluster.primary_name}")
        with open(conf / "pg_hba.conf", "a") as hba:  # this cluster's own file only
            hba.write("\n# kartludo replica tests: the standby streams over loopback\n"
                      "host replication postgres 127.0.0.1/32 trust\n")
        cluster.ctl(cluster.primary_name, "start")
        _wait_ready(cluster.primary_port)
        _run("psql", "-q", "-h", "127.0.0.1", "-p", str(cluster.primary_port), "-U", "postgres", "-c",
             f"CREATE DATABASE {cluster.database}", user="postgres")
        _run("pg_createcluster", version, cluster.standby_name, "-p", str(cluster.standby_port), *settings,
             "--", "--auth=trust")
        made.append(cluster.standby_name)
        data = Path(f"/var/lib/postgresql/{version}/{cluster.standby_name}")
        for child in data.iterdir():  # emptied, kept (the postgres user owns it, not its parent)
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        _run("pg_basebackup", "-h", "127.0.0.1", "-p", str(cluster.primary_port), "-U", "postgres", "-D",
             str(data), "-R", "-X", "stream", "-c", "fast", user="postgres")
        cluster.start_standby()
        cluster.wait_replayed()
        yield cluster
    finally:
        for name in reversed(made):
            try:
                _run("pg_dropcluster", "--stop", version, name)
            except RuntimeError:  # noqa: PERF203 - the other one is still dropped
                pass


def for_tests(unavailable: Callable[[str], None]) -> Iterator[ReplicaCluster]:
    """A pytest fixture's body: a primary and its standby, dropped after; without the
    tools (or when they fail) ``unavailable(reason)``, which skips or fails the test."""
    problem = missing_tools()
    if problem:
        unavailable(problem)
    try:
        cm = replica_cluster()
        cluster = cm.__enter__()
    except Exception as exc:  # noqa: BLE001 - any failure to build them is reported as such
        unavailable(f"could not make a primary and a hot standby: {exc}")
    try:
        yield cluster
    finally:
        cm.__exit__(None, None, None)


@contextlib.contextmanager
def fresh_schema(cluster: ReplicaCluster) -> Iterator[str]:
    """A new schema on the primary with kartludo's tables, replayed by the standby when
    it runs: its name; dropped after (if the primary is still there)."""
    import psycopg

    from kartludo.store.database import create_engine, upgrade

    schema = "kt_" + uuid.uuid4().hex[:12]
    with psycopg.connect(cluster.primary_url(), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    engine = create_engine(cluster.primary_url(schema))
    upgrade(engine)
    engine.dispose()
    with contextlib.suppress(psycopg.OperationalError, AssertionError):
        cluster.wait_replayed()
    try:
        yield schema
    finally:
        with contextlib.suppress(psycopg.OperationalError), \
                psycopg.connect(cluster.primary_url(), autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
