"""Snapshots of folded stream state: a derived cache beside the log, never events.

A row holds a stream's state as of ``version`` (and the hash of the event at that
version, so a snapshot of another history - an imported or rebuilt database - is never
taken for this one), under a ``code`` naming what folded it: a row of another code is
ignored. Rows may be dropped at any time, the whole table too: it is created again and
refilled on demand. Failing to write one is never an error.
"""

from __future__ import annotations

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


def save(store: EventStore, stream_id: str, code: str, version: int, event_hash: bytes, state: bytes) -> bool:
    """Write a snapshot (and forget all but the newest ``KEEP``); False when it could not."""
    for attempt in range(2):
        try:
            with store.engine.connect() as raw:
                conn = raw.execution_options(kartludo_write=True)
                with conn.begin():
                    mine = sa.and_(snapshots.c.stream_id == stream_id, snapshots.c.code == code)
                    conn.execute(sa.delete(snapshots).where(mine, snapshots.c.version == version))
                    conn.execute(sa.insert(snapshots).values(stream_id=stream_id, code=code, version=version,
                                                             event_hash=event_hash, state=state))
                    kept = _kept(stream_id, code)
                    stale = snapshots.c.version.not_in(sa.select(kept.c.version))
                    conn.execute(sa.delete(snapshots).where(mine, stale))
            return True
        except sa.exc.DBAPIError:
            if attempt or not rebuild_table(store):
                return False
    return False


def _kept(stream_id: str, code: str) -> sa.Subquery:
    return (sa.select(snapshots.c.version)
            .where(snapshots.c.stream_id == stream_id, snapshots.c.code == code)
            .order_by(snapshots.c.version.desc()).limit(KEEP).subquery())


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
