"""Opening a database by URL: engine settings per backend, and the schema check.

SQLite (a file, WAL) is the embedded default; PostgreSQL is chosen by URL.
Read commands check the schema revision with one query; Alembic is imported only
to upgrade.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from kartludo.store.errors import (
    BadSetting,
    DatabaseDamaged,
    DatabaseNotMigrated,
    DatabaseUnavailable,
    DiskFull,
    StoreBusy,
    StoreError,
)
from kartludo.store.schema import SCHEMA_REVISION

#: how long a SQLite writer waits for the file lock before giving up
SQLITE_BUSY_TIMEOUT_MS = 10_000
#: one bounded pool per process: connections kept open, each one store call that may run
#: at once (``EventStore``), by backend; ``$KARTLUDO_POOL_SIZE`` sets it for both. A
#: thread over the limit waits for a free call. On PostgreSQL the limit should cover the
#: process's threads: under the GIL the calls that hold a connection wait for the
#: interpreter behind the threads that do not (64 threads: 2,100-2,350 commands/s at 64
#: calls, 2,000-2,070 at 48, 1,600 at 24). 64, with the overflow and the notifier's own
#: connection, stays within PostgreSQL's default 100 connections. On SQLite more calls at
#: once only queue on the file's write lock. (Figures: ``bench/scaling.py``.)
POOL_SIZES = {"sqlite": 16, "postgresql": 64}
POOL_SIZE_ENV = "KARTLUDO_POOL_SIZE"
POOL_SIZE_MAX = 1000
#: how many more the pool may open under load, for the engine's other users (snapshot,
#: projection and chain writes): a process opens at most its pool size + this many
POOL_OVERFLOW = 16
#: how long a call waits for a free connection before StoreBusy
POOL_TIMEOUT_S = 30


def pool_size(backend: str) -> int:
    """The pool size ``$KARTLUDO_POOL_SIZE`` asks for, else the backend's."""
    text = os.environ.get(POOL_SIZE_ENV, "").strip()
    if not text:
        return POOL_SIZES[backend]
    size = int(text) if text.isdigit() else 0
    if not 1 <= size <= POOL_SIZE_MAX:
        raise BadSetting(f"{POOL_SIZE_ENV}={text!r}: give a number of connections from 1 to {POOL_SIZE_MAX}")
    return size


def _pool(backend: str) -> dict[str, Any]:
    # LIFO: the connection used last is used next, so the fewest stay busy and warm
    return {"pool_size": pool_size(backend), "max_overflow": POOL_OVERFLOW, "pool_timeout": POOL_TIMEOUT_S,
            "pool_use_lifo": True}


def steady_size(engine: Engine) -> int:
    """The connections the engine's pool keeps (the backend's setting for a pool that
    bounds nothing): the store's calls at once."""
    size = getattr(engine.pool, "size", None)
    return int(size()) if size is not None else pool_size(engine.url.get_backend_name())


def pool_limit(engine: Engine) -> int:
    """The most connections the engine's pool opens at once."""
    return steady_size(engine) + POOL_OVERFLOW


def normalise_url(url: str) -> sa.URL:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUnavailable(f"not a database URL: {url!r}") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername not in ("sqlite", "sqlite+pysqlite", "postgresql+psycopg"):
        raise DatabaseUnavailable(
            f"unsupported database {parsed.drivername!r}: use sqlite:///FILE or postgresql://…"
        )
    return parsed


def create_engine(url: str) -> Engine:
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    try:
        engine = sa.create_engine(parsed, **_pool("postgresql"))
    except NoSuchModuleError as exc:  # pragma: no cover - psycopg is a dependency
        raise DatabaseUnavailable(str(exc)) from None
    return engine


def _sqlite_engine(url: sa.URL) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        folder = Path(database).expanduser().resolve().parent
        if not folder.is_dir():
            raise DatabaseUnavailable(f"cannot open {url.render_as_string()}: folder {folder} does not exist")
    engine = sa.create_engine(url, **_pool("sqlite"))

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Transactions are begun explicitly (BEGIN / BEGIN IMMEDIATE), not by pysqlite.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("kartludo_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def describe_url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def current_revision(engine: Engine) -> str | None:
    """The Alembic revision stamped in the database, or None when never migrated."""
    with connect(engine) as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def is_empty(engine: Engine) -> bool:
    with connect(engine) as conn:
        return not sa.inspect(conn).get_table_names()


def connect(engine: Engine) -> sa.Connection:
    try:
        return engine.connect()
    except DBAPIError as exc:
        found = as_store_error(exc, engine.url)
        if isinstance(found, (DiskFull, DatabaseDamaged)):
            raise found from None
        raise DatabaseUnavailable(f"cannot open {describe_url(engine)}: {first_line(exc.orig)}") from None


#: SQLite's result codes for a file whose pages do not hold together (Python 3.11+ names them)
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_DAMAGED_TEXT = ("malformed", "file is not a database")
#: free space below this, beside an I/O error, is named as the likely cause
_LOW_SPACE = 1 << 20


def as_store_error(exc: BaseException, url: sa.URL) -> StoreError | None:
    """What a driver's (or SQLAlchemy's) error means for the database at ``url``, as a
    store error with a message a user can act on; None for an error that is not the
    database failing (a constraint, a bug: the caller handles or raises it).

    SQLite: a damaged file (``DatabaseDamaged``); a full disk, or an I/O error with
    little space left (named with the space free); a lock held too long
    (``StoreBusy``); any other operational failure. PostgreSQL: a server down,
    restarting, or a connection cut (``DatabaseUnavailable``)."""
    orig = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    where = url.render_as_string(hide_password=True)
    text = first_line(orig)
    if isinstance(orig, sqlite3.DatabaseError) and not isinstance(orig, sqlite3.IntegrityError):
        name = getattr(orig, "sqlite_errorname", "")
        if name.startswith(_DAMAGED) or any(t in text for t in _DAMAGED_TEXT):
            return DatabaseDamaged(
                f"{where} is damaged ({text}): `kartludo verify` names the damaged pages; restore the file "
                "from a backup (or an export) before writing to it again")
        if not isinstance(orig, sqlite3.OperationalError):
            return None
        full = name.startswith("SQLITE_FULL") or "disk is full" in text
        if full or name.startswith("SQLITE_IOERR") or "disk I/O error" in text:
            free = _free_space(url)
            if full or (free is not None and free < _LOW_SPACE):
                shown = "" if free is None else f"; {free // 1024} KiB free on its file system"
                return DiskFull(f"{where}: the disk is full ({text}{shown}): nothing was written; "
                                "free some space and try again")
        if "locked" in text or "busy" in text:
            return StoreBusy(f"{where} stayed locked by another writer: {text}")
        return DatabaseUnavailable(f"{where}: {text}")
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(orig, psycopg.OperationalError):
        return DatabaseUnavailable(f"{where}: {text}")
    return None


def _free_space(url: sa.URL) -> int | None:
    """Bytes free on the file system holding a SQLite file (None: no file, or unknown)."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
        return None
    try:
        stat = os.statvfs(Path(database).expanduser().resolve().parent)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def first_line(exc: BaseException | None) -> str:
    text = str(exc or "").strip()
    return text.splitlines()[0] if text else type(exc).__name__


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Run the Alembic migrations to head; returns (revision before, revision after)."""
    from alembic import command
    from alembic.config import Config

    before = current_revision(engine)
    config = Config()
    config.set_main_option("script_location", "kartludo.store:migrations")
    with connect(engine) as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
        conn.commit()
    return before, current_revision(engine) or ""


def ensure_ready(engine: Engine, *, create: bool = True) -> None:
    """Check the schema; a brand-new empty SQLite file is migrated on the spot."""
    revision = current_revision(engine)
    if revision == SCHEMA_REVISION:
        return
    if revision is None and create and engine.url.get_backend_name() == "sqlite" and is_empty(engine):
        upgrade(engine)
        return
    where = describe_url(engine)
    if revision is None:
        raise DatabaseNotMigrated(f"{where} has no kartludo schema: run `kartludo db upgrade`")
    if revision < SCHEMA_REVISION:
        raise DatabaseNotMigrated(
            f"{where} is at schema {revision}, this kartludo needs {SCHEMA_REVISION}: run `kartludo db upgrade`"
        )
    raise DatabaseNotMigrated(
        f"{where} is at schema {revision}, newer than this kartludo ({SCHEMA_REVISION}): upgrade kartludo"
    )
