"""Snapshots of folded stream state: a derived cache beside the log, never events.

A row holds a stream's state as of ``version`` (and the hash of the event at that
version, so a snapshot of another history - an imported or rebuilt database - is never
taken for this one), under a ``code`` naming what folded it: a row of another code is
ignored. Rows may be dropped at any time, the whole table too: it is created again and
refilled on demand. Failing to write one is never an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from kartludo.store.eventstore import EventStore
from kartludo.store.schema import snapshots

#: snapshots kept per stream and code (the newest; older ones are deleted)
KEEP = 4


class Snapshot:
    __slots__ = ("version", "event_hash", "state")

    def __init__(self, version: int, event_hash: bytes, state: bytes) -> None:
        self.version, self.event_hash, self.state = version, event_hash, state


def nearest(store: EventStore, stream_id: str, code: str, below: int | None = None) -> Snapshot | None:
    """The newest snapshot of ``stream_id`` under ``code`` (before version ``below``)."""
    sql = ("SELECT version, event_hash, state FROM snapshots WHERE stream_id = :s AND code = :c"
           + (" AND version < :b" if below is not None else "") + " ORDER BY version DESC LIMIT 1")
    try:
        row = store._query_one(sql, s=stream_id, c=code, b=below)
    except Exception:  # noqa: BLE001 - no table (dropped) or a busy database: fold from the start
        return None
    return None if row is None else Snapshot(int(row[0]), bytes(row[1]), bytes(row[2]))


#: a snapshot row written (again, at the same version: replaced)
_UPSERT = ("INSERT INTO snapshots (stream_id, code, version, event_hash, state) VALUES (:s, :c, :v, :h, :state) "
           "ON CONFLICT (stream_id, code, version) DO UPDATE SET event_hash = excluded.event_hash, "
           "state = excluded.state")
#: all but the newest ``KEEP`` snapshots of a stream and code
_TRIM = ("DELETE FROM snapshots WHERE stream_id = :s AND code = :c AND version NOT IN "
         "(SELECT version FROM snapshots WHERE stream_id = :s AND code = :c ORDER BY version DESC LIMIT :keep)")


def save(store: EventStore, stream_id: str, code: str, version: int, event_hash: bytes, state: bytes) -> bool:
    """Write a snapshot (and forget all but the newest ``KEEP``); False when it could
    not. Two statements in one transaction on the driver's own path: a command that
    leaves its match between deals pays for this, and SQLAlchemy's statements cost
    several times the write."""
    for attempt in range(2):
        try:
            with store.exclusive() as tx:
                tx.execute(_UPSERT, s=stream_id, c=code, v=version, h=event_hash, state=state)
                tx.execute(_TRIM, s=stream_id, c=code, keep=KEEP)
            return True
        except Exception:  # noqa: BLE001 - a dropped table (made again below), a busy or gone database
            if attempt or not rebuild_table(store):
                return False
    return False


def rebuild_table(store: EventStore) -> bool:
    """Create the table again when it was dropped; True when it exists now."""
    try:
        with store.engine.connect() as raw:
            conn = raw.execution_options(kartludo_write=True)
            with conn.begin():
                snapshots.create(conn, checkfirst=True)
        return True
    except sa.exc.DBAPIError:
        return False


def drop_all(store: EventStore) -> None:
    """Forget every snapshot (they are written again as matches are loaded)."""
    with store.engine.connect() as raw:
        conn = raw.execution_options(kartludo_write=True)
        with conn.begin():
            conn.execute(sa.delete(snapshots))


def head_hash(store: EventStore, stream_id: str, version: int) -> bytes | None:
    """The chain hash of ``stream_id``'s event at ``version`` (the store caches the heads
    it wrote), or None when there is none."""
    from kartludo.store.errors import ConcurrencyConflict

    try:
        return store._prev_hash(stream_id, version)
    except ConcurrencyConflict:
        return None


def all_rows(store: EventStore) -> list[Sequence[Any]]:
    """Every snapshot row (stream, code, version, event hash, state) in (stream,
    version) order: what ``verify`` checks against the events (``app.matches.snapshots.check``).
    Raises the store's error when there is no table (it may be dropped at any time)."""
    return store.select("SELECT stream_id, code, version, event_hash, state FROM snapshots "
                        "ORDER BY stream_id, version")
