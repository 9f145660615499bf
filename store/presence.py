"""Presence: how many watchers each match has, across every server process on the
database. Each process writes its own counts (its rows only, every ``REFRESH_S`` seconds
and whenever a count changes); a count is the sum of the rows seen within ``EXPIRY_S``,
so the rows of a process that died stop counting by themselves. Ephemeral bookkeeping,
never events: failing to write or read is never an error (the count is then unknown).
"""

from __future__ import annotations

from collections.abc import Mapping

from kartludo.store.eventstore import EventStore

#: how often a process rewrites its rows (seconds), and after how long a row counts for nothing
REFRESH_S = 5
EXPIRY_S = 15

_DELETE_OWN = "DELETE FROM presence WHERE process = :p"
_DELETE_STALE = "DELETE FROM presence WHERE seen_us < :old"
_INSERT = "INSERT INTO presence (process, match_id, count, seen_us) VALUES (:p, :m, :n, :t)"
_COUNT = "SELECT coalesce(sum(count), 0) FROM presence WHERE match_id = :m AND seen_us >= :since"


def publish(store: EventStore, process: str, counts: Mapping[str, int]) -> bool:
    """Replace ``process``'s rows with ``counts`` (match id -> open watcher streams; zeros
    left out), and drop every stale row; False when it could not."""
    now = store.clock()
    try:
        with store.exclusive() as tx:
            tx.execute(_DELETE_OWN, p=process)
            tx.execute(_DELETE_STALE, old=now - EXPIRY_S * 1_000_000)
            for match_id, n in counts.items():
                if n > 0:
                    tx.execute(_INSERT, p=process, m=match_id, n=n, t=now)
        return True
    except Exception:  # noqa: BLE001 - a busy, read-only or gone database: counted again next time
        return False


def count(store: EventStore, match_id: str) -> int | None:
    """The watchers of ``match_id`` on every process (None: not known now)."""
    try:
        row = store._query_one(_COUNT, m=match_id, since=store.clock() - EXPIRY_S * 1_000_000)
    except Exception:  # noqa: BLE001 - as above
        return None
    return int(row[0] or 0) if row else 0
