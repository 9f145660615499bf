"""The SQLite hot path: one ``BEGIN IMMEDIATE`` transaction per append.

``BEGIN IMMEDIATE`` takes the file's write lock up front, so concurrent processes
queue on the busy timeout instead of failing half-way through a transaction, and
rowids (the global positions) are handed out in commit order.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Sequence

from kartludo.store.eventstore import _COLUMNS

_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_INSERT_COMMAND = "INSERT INTO commands (stream_id, command_id, first_version, last_version) VALUES (?, ?, ?, ?)"


class SqliteDriver:
    IntegrityError = sqlite3.IntegrityError
    OperationalError = sqlite3.OperationalError

    def adopt(self, conn: Any) -> None:
        """Nothing to set: the engine's connect hook already made the connection ours."""

    def append(self, conn: Any, rows: list[tuple[Any, ...]], command: tuple[Any, ...]) -> int:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if len(rows) > 1:
                conn.executemany(_INSERT, rows[:-1])
            # rowids are max+1 under the write lock: the batch's positions end at the last row's
            last = conn.execute(_INSERT, rows[-1]).lastrowid
            conn.execute(_INSERT_COMMAND, command)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return last

    def insert_rows(self, conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
        """Insert prepared rows (an import) in one transaction."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(_INSERT, rows)
            conn.executemany(_INSERT_COMMAND, commands)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def query(self, conn: Any, sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
        return conn.execute(sql, params).fetchall()
