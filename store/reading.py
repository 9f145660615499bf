"""Reading the log: a stream, the global order, and raw rows for checking and copying it.

Global order: positions grow with the order in which appending transactions began to
write, not the order in which they commit. On SQLite one writer at a time makes the two the same.
On PostgreSQL appends to different streams run concurrently, so a reader following
the global order reads only *settled* positions: below the first position any
still-running transaction could take (``horizon``). What it reads is then final —
nothing can commit later at a smaller position.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from kartludo.events.base import CURRENT, Event, Origin, UndecodableEvent, UnknownEventType, decode
from kartludo.store.connections import Connections
from kartludo.store.envelope import _COLUMNS, Appended, Recorded

_SELECT = f"SELECT position, {_COLUMNS} FROM events"
#: an event type tag (``match.deal-started``), as ``select_events`` writes it into a statement
_TAG = re.compile(r"[a-z0-9][a-z0-9_.-]*")
#: how long ``settle`` waits by default for transactions still in flight
SETTLE_SECONDS = 5.0
#: ``horizon()`` where every committed row is settled (one writer at a time)
UNBOUNDED = (1 << 63) - 1
#: streams' first events kept for upcasting (cleared whole when full: rarely needed)
_ORIGINS_KEPT = 4096


def events_query(*, upto: bool = False, types: Sequence[str] = ()) -> str:
    """``select_events``'s statement: ``:p`` the position after, ``:n`` the limit, ``:u``
    the last position (``upto``). The ``types`` (store tags, checked) are written into it
    as literals, so a partial index on them serves it (SQLite uses one only for a
    condition that reads as the index's does)."""
    where = ["position > :p"]
    if upto:
        where.append("position <= :u")
    if types:
        bad = [t for t in types if not _TAG.fullmatch(t)]
        if bad:
            raise ValueError(f"not event types: {bad}")
        where.append(f"type IN ({', '.join(repr(t) for t in types)})")
    return f"{_SELECT} WHERE {' AND '.join(where)} ORDER BY position LIMIT :n"


class Reading(Connections):
    """Reads of the event log (``EventStore`` below its appending)."""

    #: the hash at (stream, version) of heads lately read or written, so that an append
    #: after one need not ask for it (``EventStore`` sets it up)
    _heads: dict[tuple[str, int], bytes]
    #: streams' first events, for upcasters that need them (``_origin``; ``EventStore`` sets it up)
    _origins: dict[str, Event]

    def read_stream(self, stream_id: str, from_version: int = 1, to_version: int | None = None) -> list[Recorded]:
        if to_version is None:
            sql = f"{_SELECT} WHERE stream_id = :s AND version >= :v ORDER BY version"
            rows = self._query(sql, prepared=True, s=stream_id, v=from_version)
        else:
            sql = f"{_SELECT} WHERE stream_id = :s AND version >= :v AND version <= :t ORDER BY version"
            rows = self._query(sql, prepared=True, s=stream_id, v=from_version, t=to_version)
        records = self._records(rows)
        if records:
            last = records[-1]
            self._remember(stream_id, last.version, last.hash)
        return records

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[Recorded]:
        """Settled events in global order after ``after_position``: a follower that
        resumes after the last position it read never skips an event that commits late."""
        return self.select_events(after_position, limit)

    def select_events(self, after: int = 0, limit: int = 1000, *, upto: int | None = None,
                      types: Sequence[str] = (), settled: bool = True, conn: Any = None) -> list[Recorded]:
        """The store's one read of the global order for its followers (as the
        ``eventsourcing`` library's recorders offer ``select_notifications``): the events
        after position ``after``, at most ``limit``, up to position ``upto`` (inclusive),
        of the ``types`` given (every type without), decoded.

        ``settled`` (the default): only positions below the horizon taken with the read,
        so a follower that resumes after the last position it read never skips an event
        that commits late. ``settled=False``: every committed row, for a follower that
        applies what it reads at once but moves its cursor only below ``horizon()``,
        asked before this read (the token index).

        ``conn``: a SQLAlchemy connection of the caller's, whose transaction the read
        runs in (a projection's: its checkpoints, the read and its rows in one); the
        horizon is taken there in a statement of its own first. The ``types`` are store
        tags, written into the statement as they are: a partial index on them (the
        token index's, ``schema.TOKEN_TYPES``) then serves the read."""
        sql = events_query(upto=upto is not None, types=types)
        params: dict[str, Any] = {"p": after, "n": limit} if upto is None else {"p": after, "n": limit, "u": upto}
        if conn is not None:
            horizon, rows = self._driver.query_with_horizon(conn.connection.driver_connection, sql, params)
        elif not settled:
            return self._records(self._query(sql, prepared=True, **params))
        else:
            horizon, rows = self.query_with_horizon(sql, **params)
        if settled and rows and rows[-1][0] >= horizon:  # (in position order: else all are below it)
            rows = [row for row in rows if row[0] < horizon]
        return self._records(rows)

    def newest_recorded_at(self) -> int:
        """The newest recorded time of any event (microseconds; 0 for an empty log): what
        a series' deadline is held against, so an imported or replayed log reads the same."""
        row = self._query_one("SELECT max(recorded_at_us) FROM events")
        return int(row[0] or 0) if row else 0

    def iter_all(self, after_position: int = 0, batch: int = 5000) -> Iterator[Recorded]:
        """Every event after ``after_position`` in global order, read in pages: first
        waits (``settle``) for what was committed before the call to be settled."""
        self.settle()
        position = after_position
        while True:
            records = self.read_all(position, batch)
            if not records:
                return
            yield from records
            position = records[-1].position

    @property
    def horizon_sql(self) -> str:
        """A statement whose one value is ``horizon()`` ("" where every committed event
        is settled), for a follower that reads in its own transaction: ask it first,
        in a statement of its own, then read below it."""
        expr: str = self._driver.horizon_expr
        return f"SELECT {expr}" if expr else ""

    def horizon(self) -> int:
        """Every position below this is settled: committed or never to be. A follower
        may read rows above it early (in a statement after this one), but must not
        move its cursor past them."""
        expr = self._driver.horizon_expr
        row = self._query_one(f"SELECT {expr}") if expr else None
        return int(row[0]) if row else UNBOUNDED

    def query_with_horizon(self, sql: str, **params: Any) -> tuple[int, list[Sequence[Any]]]:
        """Run a follower's own query (``position, <columns>`` rows, settled or not)
        with the horizon taken just before it: the follower may use every row, but
        move its cursor only over positions below the horizon."""
        try:
            with self._connection() as conn:
                found: tuple[int, list[Sequence[Any]]] = self._driver.query_with_horizon(conn, sql, params)
                return found
        except self._driver.DatabaseError as exc:
            raise self._operational(exc) from None

    def settle(self, timeout: float = SETTLE_SECONDS) -> bool:
        """Wait until every event committed before this call is settled (the
        transactions that began writing before it have ended); False when ``timeout``
        ran out first. A reader that must see its own writes calls this before reading.
        """
        expr = self._driver.horizon_expr
        if not expr:
            return True
        deadline = time.monotonic() + timeout
        pause = 0.001
        # the cheap horizon first: usually already past the head
        row = self._query_one(f"SELECT (SELECT max(position) FROM events), {self._driver.quick_horizon_expr}")
        head, horizon = (row[0] or 0, int(row[1])) if row else (0, UNBOUNDED)
        if horizon <= head:
            horizon = self.horizon()
        while horizon <= head:
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
            horizon = self.horizon()
        return True

    def records_from_rows(self, rows: Sequence[Sequence[Any]]) -> list[Recorded]:
        """Decode rows selected as ``position, <columns>`` (projections read this way
        inside their own transaction)."""
        return self._records(rows)

    def _records(self, rows: Sequence[Sequence[Any]]) -> list[Recorded]:
        out: list[Recorded] = []
        append = out.append
        current, record = CURRENT, Recorded  # (locals: a global lookup per row is ~15% of this loop)
        try:
            for pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in rows:
                known = current.get(tag)
                if known is not None and known[1] == sv:
                    event = known[0].decode(payload)
                else:  # an old schema version (upcast) or a type not imported yet
                    event = decode(tag, sv, payload, origin=self._origin(sid, ver, out))
                append(record(pos, sid, ver, tag, sv, rec, actor, cid, prev, digest, event))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            bad = rows[len(out)]
            raise UndecodableEvent(
                f"stream {bad[1]} version {bad[2]} (position {bad[0]}): payload of {bad[3]!r} does not decode: {exc}"
            ) from None
        except (UnknownEventType, UndecodableEvent) as exc:
            bad = rows[len(out)]
            raise type(exc)(f"stream {bad[1]} version {bad[2]} (position {bad[0]}): {exc}") from None
        return out

    def _origin(self, stream_id: str, version: int, read: list[Recorded]) -> Origin | None:
        """What an upcaster may ask of an old row: its stream's first event (a match's
        creation, for the players' names), from the rows just read or else the store.
        A stream's first event never changes, so each is looked up once per store."""
        if version == 1:
            return None

        def first() -> Event | None:
            found = self._origins.get(stream_id)
            if found is None:
                found = next((r.event for r in read if r.stream_id == stream_id and r.version == 1), None)
                if found is None:
                    rows = self.read_stream(stream_id, 1, 1)
                    found = rows[0].event if rows else None
                if found is not None:
                    if len(self._origins) >= _ORIGINS_KEPT:
                        self._origins.clear()
                    self._origins[stream_id] = found
            return found

        return first

    def stream_version(self, stream_id: str) -> int:
        row = self._query_one("SELECT max(version) FROM events WHERE stream_id = :s", s=stream_id)
        return int(row[0] or 0) if row else 0

    def head_position(self) -> int:
        row = self._query_one("SELECT max(position) FROM events")
        return int(row[0] or 0) if row else 0

    def find_command(self, stream_id: str, command_id: str) -> Appended | None:
        row = self._query_one(
            "SELECT first_version, last_version FROM commands WHERE stream_id = :s AND command_id = :c",
            s=stream_id,
            c=command_id,
        )
        if row is None:
            return None
        first, last = row
        positions = [
            r[0]
            for r in self._query(
                "SELECT position FROM events WHERE stream_id = :s AND version >= :a AND version <= :b ORDER BY version",
                s=stream_id,
                a=first,
                b=last,
            )
        ]
        return Appended(stream_id, first, last, positions, duplicate=True)

    def command_holding(self, stream_id: str, prefix: str) -> str | None:
        """The stored command id on ``stream_id`` that starts with ``prefix`` (a caller's
        key part: ``app.matches.creation.key_holder``), or None."""
        row = self._query_one(
            "SELECT command_id FROM commands WHERE stream_id = :s AND command_id >= :a AND command_id < :b "
            "ORDER BY command_id LIMIT 1",
            s=stream_id, a=prefix, b=prefix[:-1] + chr(ord(prefix[-1]) + 1),
        )
        return str(row[0]) if row else None

    def streams(self, prefix: str = "") -> list[str]:
        """Stream ids starting with ``prefix`` (an index range scan, not LIKE)."""
        if prefix:
            upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
            rows = self._query(
                "SELECT stream_id FROM events WHERE version = 1 AND stream_id >= :a AND stream_id < :b "
                "ORDER BY stream_id",
                a=prefix,
                b=upper,
            )
        else:
            rows = self._query("SELECT stream_id FROM events WHERE version = 1 ORDER BY stream_id")
        return [r[0] for r in rows]

    def count_events(self, after: int = 0) -> int:
        """How many events, or how many after position ``after``."""
        if after:
            row = self._query_one("SELECT count(*) FROM events WHERE position > :p", p=after)
        else:
            row = self._query_one("SELECT count(*) FROM events")
        return int(row[0]) if row else 0

    # --- raw rows, for checking and copying the log --------------------------
    def rows_by_stream(self, after: tuple[str, int] = ("", 0), limit: int = 20_000) -> list[Sequence[Any]]:
        """Rows (``position, <columns>``) in (stream, version) order after ``after``: a
        keyset page, one range of the (stream, version) index (``integrity.verify``)."""
        return self._query(
            f"{_SELECT} WHERE (stream_id, version) > (:s, :v) ORDER BY stream_id, version LIMIT :n",
            s=after[0], v=after[1], n=limit,
        )

    def rows_in_order(self, after_position: int = 0, limit: int = 5000, *, settled: bool = True) -> list[Sequence[Any]]:
        """Rows (``position, <columns>``) in global order after ``after_position``; only
        settled ones unless ``settled`` is False (a check that must see every row)."""
        horizon = self.horizon() if settled else UNBOUNDED
        where = " AND position < :h" if horizon != UNBOUNDED else ""
        return self._query(f"{_SELECT} WHERE position > :p{where} ORDER BY position LIMIT :n",
                           p=after_position, n=limit, h=horizon)

    def stream_rows(self, stream_id: str, after_version: int = 0, limit: int = 5000) -> list[Sequence[Any]]:
        """One stream's rows (``position, <columns>``) by version after ``after_version``."""
        return self._query(f"{_SELECT} WHERE stream_id = :s AND version > :v ORDER BY version LIMIT :n",
                           s=stream_id, v=after_version, n=limit)

    def stored_hashes(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        """The stored hash of each (stream, version) present among ``keys``."""
        if not keys:
            return {}
        values = ", ".join(f"(:s{i}, :v{i})" for i in range(len(keys)))
        params: dict[str, Any] = {}
        for i, (sid, version) in enumerate(keys):
            params[f"s{i}"], params[f"v{i}"] = sid, version
        rows = self._query(
            f"SELECT e.stream_id, e.version, e.hash FROM (VALUES {values}) AS k "
            "JOIN events e ON e.stream_id = k.column1 AND e.version = k.column2",
            **params,
        )
        return {(r[0], r[1]): bytes(r[2]) for r in rows}

    def command_rows(self, after: tuple[str, str] = ("", ""), limit: int = 20_000) -> list[Sequence[Any]]:
        """The ``commands`` table (stream, command id, first and last version), in key order."""
        return self._query(
            "SELECT stream_id, command_id, first_version, last_version FROM commands "
            "WHERE (stream_id, command_id) > (:s, :c) ORDER BY stream_id, command_id LIMIT :n",
            s=after[0], c=after[1], n=limit,
        )

    def commands_from_events(self, after: tuple[str, str] = ("", ""), limit: int = 20_000,
                             upto: tuple[str, str] | None = None) -> list[Sequence[Any]]:
        """What the ``commands`` table must hold, derived from the events: per (stream,
        command id) its first and last version and its number of events, in key order,
        after ``after`` (and up to ``upto``, included). The bare ``stream_id`` bounds
        let the (stream, version) index narrow the scan to the streams in range."""
        bound = " AND stream_id <= :us AND (stream_id, command_id) <= (:us, :uc)" if upto is not None else ""
        return self._query(
            "SELECT stream_id, command_id, min(version), max(version), count(*) FROM events "
            f"WHERE stream_id >= :s AND (stream_id, command_id) > (:s, :c){bound} GROUP BY stream_id, command_id "
            "ORDER BY stream_id, command_id LIMIT :n",
            s=after[0], c=after[1], n=limit, us=upto[0] if upto else None, uc=upto[1] if upto else None,
        )

    def select(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        """A read-only query with ``:name`` placeholders (the tables beside ``events``)."""
        return self._query(sql, **params)

    def probe(self, sql: str, **params: Any) -> list[Sequence[Any]]:
        """A read-only query asked on every request (the token index's "anything
        new?"): int and text values, run by the driver's shortest path (on PostgreSQL
        prepared once per connection, one libpq call), as a stream's read is."""
        return self._query(sql, prepared=True, **params)

    def _forget(self, stream_id: str, version: int) -> None:
        """Drop a head an append was refused after: the database may have lost it (a
        failover to a standby that was behind), so the hash cached for it may be another
        history's."""
        self._heads.pop((stream_id, version), None)

    def _remember(self, stream_id: str, version: int, digest: bytes) -> None:
        heads = self._heads
        if len(heads) >= 50_000:
            heads.clear()
        heads[(stream_id, version)] = digest
