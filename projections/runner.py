"""Following the global order into read models.

Each projection reads the log after its own checkpoint and writes its rows and the
new checkpoint in one transaction, so a crash never double counts: the next run
resumes from the last committed checkpoint. Match events reach a projection with
the match's state before and after them, folded through the game's engine.
"""

from __future__ import annotations

import abc
import contextlib
import gc
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ClassVar

import msgspec
import sqlalchemy as sa
from sqlalchemy import Table

from kartludo.engine import match as aggregate
from kartludo.engine.base import Game
from kartludo.engine.match import Match
from kartludo.events.match import MatchCreated
from kartludo.events.streams import MATCH_PREFIX
from kartludo.projections.schema import checkpoints
from kartludo.store import EventStore, Recorded

_json = msgspec.json.Encoder()


def dumps(value: Any) -> str:
    return _json.encode(value).decode()


class MatchStep(msgspec.Struct):
    """A match event in context: the game, the match's creation, and its state
    before and after the event."""

    match_id: str
    game: Game[Any]
    created: MatchCreated
    before: Any
    after: Any
    #: closed by the match (a series deadline), as of after the event
    closed: bool = False
    #: closed as of before the event
    was_closed: bool = False


#: one event in context, as a projection's batch receives it
Item = tuple[Recorded, "MatchStep | None"]


class Projection(abc.ABC):
    """A read model. It takes the events of a batch at once and writes them with a few
    ``executemany`` statements (building one SQLAlchemy statement per event cost more
    than folding it); its cost per event must not grow with the log before it."""

    name: ClassVar[str]
    tables: ClassVar[tuple[Table, ...]]
    #: a short line for `kartludo projections status`
    about: ClassVar[str] = ""

    @abc.abstractmethod
    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        """Fold a run of consecutive events into the tables, in order (``step`` is None
        outside match streams). The result must equal applying them one at a time."""

    def apply(self, conn: sa.Connection, rec: Recorded, step: MatchStep | None) -> None:
        """Fold one event (a batch of one)."""
        self.apply_batch(conn, [(rec, step)])


class MatchFolder:
    """Matches folded (through the match aggregate) as the global order goes by;
    refolds a match from the store when its cached fold is not right before the
    event (a resumed or parallel run)."""

    def __init__(self, store: EventStore, limit: int = 20_000) -> None:
        self.store = store
        self.limit = limit
        self._matches: dict[str, Match] = {}

    def step(self, rec: Recorded) -> MatchStep | None:
        sid = rec.stream_id
        if not sid.startswith(MATCH_PREFIX):
            return None
        match_id = sid[len(MATCH_PREFIX):]
        if rec.version == 1:
            created = aggregate.start(match_id, rec)
            self._put(match_id, created)
            return MatchStep(match_id, created.game, created.created, None, created.state)
        match = self._matches.get(match_id)
        if match is None or match.version != rec.version - 1:
            match = aggregate.fold(match_id, self.store.read_stream(sid, 1, rec.version - 1))
            self._put(match_id, match)
        before, was_closed = match.state, match.closed
        match.apply(rec.event, rec.version)
        return MatchStep(match_id, match.game, match.created, before, match.state, match.closed, was_closed)

    def _put(self, match_id: str, match: Match) -> None:
        if len(self._matches) >= self.limit:
            self._matches.clear()
        self._matches[match_id] = match

    def forget(self) -> None:
        self._matches.clear()


#: (table, dialect) -> its prebuilt INSERT of every column
_INSERTS: dict[tuple[str, str], str] = {}


def insert_rows(conn: sa.Connection, table: Table, rows: list[tuple[Any, ...]]) -> None:
    """Insert rows given as tuples in the table's column order: one statement built
    once per dialect, run with the driver's executemany, or on PostgreSQL as a COPY
    (SQLAlchemy building the parameters of each row cost more than the projection's
    own work)."""
    if not rows:
        return
    postgres = conn.dialect.name == "postgresql"
    key = (table.name, conn.dialect.name)
    sql = _INSERTS.get(key)
    if sql is None:
        prep = conn.dialect.identifier_preparer
        columns = ", ".join(prep.format_column(c) for c in table.columns)
        if postgres:
            sql = f"COPY {prep.format_table(table)} ({columns}) FROM STDIN"
        else:
            marks = ", ".join(["?" if conn.dialect.paramstyle == "qmark" else "%s"] * len(table.columns))
            sql = f"INSERT INTO {prep.format_table(table)} ({columns}) VALUES ({marks})"
        _INSERTS[key] = sql
    if postgres:
        # COPY, in the connection's transaction: one statement for the rows, where
        # executemany runs one per row (a rebuild spent more on that than on its folds)
        driver = conn.connection.driver_connection
        assert driver is not None  # a connection in use
        with driver.cursor() as cur, cur.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)
        return
    conn.exec_driver_sql(sql, rows)


def checkpoints_of(conn: sa.Connection, names: list[str], *, lock: bool = False) -> list[int]:
    """The projections' positions, in ``names`` order, each row created at 0 when
    missing; with ``lock``, held until the transaction ends (PostgreSQL row locks, taken
    in name order; SQLite's BEGIN IMMEDIATE already serialises writers). One read for
    all of them: a catch-up asks at every batch."""
    query = sa.select(checkpoints.c.name, checkpoints.c.position).where(checkpoints.c.name.in_(names))
    if lock and conn.dialect.name == "postgresql":
        query = query.order_by(checkpoints.c.name).with_for_update()
    found = dict(conn.execute(query).all())
    missing = [name for name in dict.fromkeys(names) if name not in found]
    if missing:
        # two runners may create the rows at once: the second insert does nothing
        create: Any
        if conn.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            create = pg_insert(checkpoints)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            create = sqlite_insert(checkpoints)
        conn.execute(create.values([{"name": n, "position": 0} for n in missing]).on_conflict_do_nothing())
        found = dict(conn.execute(query).all())
    return [int(found[name]) for name in names]


def advance(conn: sa.Connection, names: list[str], position: int) -> None:
    """Move the named checkpoints to ``position``, never back (one that is ahead of it
    stays where it is)."""
    conn.execute(sa.update(checkpoints)
                 .where(checkpoints.c.name.in_(names), checkpoints.c.position < position)
                 .values(position=position))


#: the young generation's threshold while catching up: a batch holds its thousands of
#: rows, events and states alive at once, so at CPython's default (700) each batch pays
#: for many collections that find nothing to free (a third of a long match's rebuild)
BATCH_GC_THRESHOLD = 20_000
_gc_lock = threading.Lock()
_gc_users = 0
_gc_saved: tuple[int, ...] = ()


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The collector's young threshold raised while any thread catches up (the first
    in raises it, the last out restores it)."""
    global _gc_users, _gc_saved
    with _gc_lock:
        if _gc_users == 0:
            _gc_saved = gc.get_threshold()
            gc.set_threshold(max(_gc_saved[0], BATCH_GC_THRESHOLD), *_gc_saved[1:])
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0:
                gc.set_threshold(*_gc_saved)


def catch_up(
    store: EventStore,
    projection: Projection | list[Projection],
    *,
    batch: int = 2000,
    max_batches: int | None = None,
    folder: MatchFolder | None = None,
) -> int:
    """Apply every event after each projection's checkpoint; returns how many
    events were read. Several projections share one read and one fold of each
    event, and commit together with their checkpoints."""
    projections = projection if isinstance(projection, list) else [projection]
    folder = folder or MatchFolder(store)
    store.settle()  # what was committed before this call, so a reader sees its own writes
    if not _behind(store, projections):
        return 0
    with _fewer_collections():
        return _catch_up(store, projections, folder, batch, max_batches)


def _catch_up(store: EventStore, projections: list[Projection], folder: MatchFolder, batch: int,
              max_batches: int | None) -> int:
    read = 0
    batches = 0
    names = [p.name for p in projections]
    # on a database server the next batch is read while this one folds and writes (``_Ahead``)
    server = store.engine.dialect.name != "sqlite"
    with ThreadPoolExecutor(1, thread_name_prefix="kartludo-read-ahead") as reader:
        ahead: _Ahead | None = None
        while max_batches is None or batches < max_batches:
            with store.engine.connect() as raw:
                conn = raw.execution_options(kartludo_write=True)
                with conn.begin():
                    positions = checkpoints_of(conn, names, lock=True)
                    start = min(positions)
                    records = ahead.records(start) if ahead is not None else None
                    ahead = None
                    if not records:
                        # in this transaction: the store takes its horizon here first, and the
                        # checkpoints never move past an event that commits late
                        records = store.select_events(start, batch, conn=conn)
                        if not records:
                            return read
                    if server and len(records) == batch and (max_batches is None or batches + 1 < max_batches):
                        ahead = _Ahead(reader, store, records[-1].position, batch)
                    try:
                        items: list[Item] = [(rec, folder.step(rec)) for rec in records]
                        for p, position in zip(projections, positions):
                            # a projection ahead of the others (they were reset): only its new events
                            mine = items if position == start else [i for i in items if i[0].position > position]
                            if mine:
                                p.apply_batch(conn, mine)
                    except BaseException:
                        folder.forget()  # states may have run ahead of the rolled-back rows
                        raise
                    advance(conn, names, records[-1].position)
            read += len(records)
            batches += 1
    return read


class _Ahead:
    """The settled events after ``after``, read (and decoded) on another connection
    while the batch before them folds and writes: on PostgreSQL the server reads while
    this process works, where the batch's own read left the process idle. Not on
    SQLite: there the read is this process's own work, and two threads taking turns at
    it made a rebuild a sixth slower. The read is the store's follower read (below its
    horizon), so what it returns is a run of consecutive settled events right after
    ``after``, a prefix of what the batch's own select would return; it is used only if
    the checkpoints are still at ``after`` when the next batch begins."""

    def __init__(self, reader: ThreadPoolExecutor, store: EventStore, after: int, batch: int) -> None:
        self.after = after
        self.future: Future[list[Recorded]] = reader.submit(store.read_all, after, batch)

    def records(self, start: int) -> list[Recorded] | None:
        """The events read ahead if the batch starts where they do, else None (the
        caller reads for itself; it meets any error the read ahead met, too)."""
        try:
            records = self.future.result()
        except Exception:  # noqa: BLE001 - the batch's own read reports it
            return None
        return records if start == self.after else None


def _behind(store: EventStore, projections: list[Projection]) -> bool:
    """Whether a settled event follows some projection's checkpoint, asked without a
    write transaction or a lock: an idle league's reads then write nothing (no WAL for
    a read replica to replay before it may serve them)."""
    names = [p.name for p in projections]
    with store.engine.connect() as conn:
        found = dict(conn.execute(sa.select(checkpoints.c.name, checkpoints.c.position)
                                  .where(checkpoints.c.name.in_(names))).all())
    if len(found) < len(set(names)):
        return True  # a projection without its row yet: the write path creates it
    return bool(store.select_events(min(found.values()), 1))


def reset(store: EventStore, projection: Projection) -> None:
    """Empty the projection's tables and rewind its checkpoint, in one transaction."""
    with store.engine.connect() as raw:
        conn = raw.execution_options(kartludo_write=True)
        with conn.begin():
            checkpoints_of(conn, [projection.name], lock=True)
            for table in projection.tables:
                conn.execute(sa.delete(table))
            conn.execute(sa.update(checkpoints).where(checkpoints.c.name == projection.name).values(position=0))


def status(store: EventStore, projections: Iterable[Projection]) -> list[tuple[str, int, int]]:
    """(name, checkpoint, lag in events) per projection (positions are not dense on
    PostgreSQL, so the lag is counted)."""
    with store.engine.connect() as conn:
        rows = dict(conn.execute(sa.select(checkpoints.c.name, checkpoints.c.position)).all())
    return [(p.name, int(rows.get(p.name, 0)), store.count_events(after=int(rows.get(p.name, 0))))
            for p in projections]


def dump(store: EventStore, projection: Projection) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the projection's tables, sorted (for rebuild comparisons)."""
    out = {}
    with store.engine.connect() as conn:
        for table in projection.tables:
            rows = conn.execute(sa.select(table)).all()
            out[table.name] = sorted(tuple(r) for r in rows)
    return out
