"""The PostgreSQL hot path: one pipelined round trip per append.

The events table's statement trigger (migration 0001) takes an advisory lock
before any insert, so positions are drawn in commit order and a reader following
the global order never skips an event that commits late.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import psycopg

from kartludo.store.eventstore import _COLUMNS

_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_COMMAND = "INSERT INTO commands (stream_id, command_id, first_version, last_version) VALUES (%s, %s, %s, %s)"


@functools.lru_cache(maxsize=256)
def _pyformat(sql: str) -> str:
    """``:name`` placeholders (the store's portable form) as psycopg's ``%(name)s``."""
    return re.sub(r"(?<!:):([a-z_]+)", r"%(\1)s", sql)


class PostgresDriver:
    IntegrityError = psycopg.errors.IntegrityError
    OperationalError = psycopg.OperationalError

    def adopt(self, conn: Any) -> None:
        """Autocommit: a read is one statement with its own fresh snapshot (no old
        snapshot kept, no ROLLBACK round trip); writes open explicit transactions."""
        conn.autocommit = True

    def append(self, conn: Any, rows: list[tuple[Any, ...]], command: tuple[Any, ...]) -> int:
        # BEGIN, the inserts and COMMIT go in one pipelined round trip: the append lock
        # (taken by the first insert) is held for the server's work only, never for a
        # round trip to this process.
        with conn.cursor() as cur, conn.pipeline():
            with conn.transaction():
                cur.executemany(_INSERT, rows)
                cur.execute(_INSERT_COMMAND, command)
                # sequence values are drawn under the append lock: contiguous per batch
                cur.execute("SELECT lastval()")
            return cur.fetchone()[0]

    def insert_rows(self, conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
        """Insert prepared rows (an import) in one transaction."""
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(_INSERT, rows)
            cur.executemany(_INSERT_COMMAND, commands)

    def query(self, conn: Any, sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
        with conn.cursor() as cur:
            cur.execute(_pyformat(sql), params)
            return cur.fetchall()
