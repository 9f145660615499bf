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

    def append(self, conn: Any, rows: list[tuple[Any, ...]], command: tuple[Any, ...]) -> int:
        try:
            with conn.cursor() as cur:
                with conn.pipeline():
                    cur.executemany(_INSERT, rows)
                    cur.execute(_INSERT_COMMAND, command)
                    # sequence values are drawn under the append lock: contiguous per batch
                    cur.execute("SELECT lastval()")
                last = cur.fetchone()[0]
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        return last

    def insert_rows(self, conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
        """Insert prepared rows (an import) in one transaction."""
        try:
            with conn.cursor() as cur:
                cur.executemany(_INSERT, rows)
                cur.executemany(_INSERT_COMMAND, commands)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def query(self, conn: Any, sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
        try:
            with conn.cursor() as cur:
                cur.execute(_pyformat(sql), params)
                return cur.fetchall()
        finally:
            conn.rollback()  # end the read transaction: never keep an old snapshot
