"""The PostgreSQL hot path: one round trip, one message per append, appends to
different streams running concurrently.

A row's position is ``(transaction id << 16) + its index in the transaction``
(migration 0006): positions follow the order in which transactions took their ids,
and a transaction's rows are contiguous. Every transaction still running has an id
at least the snapshot's ``xmin``, so no row can ever commit below
``xmin << 16`` that a reader does not see now; narrower still, below the oldest
*appender* still running (``HORIZON``): that is the *horizon*, and a reader
following the global order reads only below it. This is the transaction-id
high-water mark of established PostgreSQL event stores (which order by
``(transaction_id, position)``), packed into the one integer the rest of kartludo
already uses as a global position. Nothing serialises appends; commits group.

Live streams are woken by ``NOTIFY``, sent *after* the commit and not by the appender:
a NOTIFY takes PostgreSQL's notification-queue lock (a lock on the whole cluster)
through the commit of its transaction, and its transaction takes an id and writes
a commit record. Inside the append it would serialise every append; after it, in
the same round trip, it serialised the appends' second transactions (measured with
pgbench, 2 cores: 6,000 appends/s at 16 clients, 3,500 at 64; without the NOTIFY
6,900 and 7,500). So one thread per process (``Notifier``) sends them: each of its
transactions notifies every stream written in the last ``Notifier.WINDOW_S``.

One command's append is one call of the stored function ``kartludo_append``
(migration 0011), whose plans the server keeps per session; a write of several
commands (a simulator's deal, a series and its new match) goes as one string of
statements, each parsed on every write (on 2 cores, the function cost 520 us of
server CPU an append, the statements 780).

The two statements of every command (the append, and the read of a stream's new
events) go through libpq itself (``psycopg.pq``), one call each: libpq's ``PQexec``
and ``PQexecPrepared`` hold no Python lock for the whole round trip, where psycopg's
cursor machinery costs 3-4x the client CPU and several releases of the GIL, each a
hand-off between threads. Values are quoted by libpq (``PQescapeLiteral``), rows
decoded by psycopg's own loaders; every other statement uses psycopg's cursors.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
import psycopg.errors
from psycopg import pq
from psycopg.adapt import Transformer
from psycopg.pq import TransactionStatus

from kartludo.store.envelope import _COLUMNS
from kartludo.store.schema import NOTIFY_CHANNEL, POSITION_ROW_BITS

#: a row's position: its transaction's id, shifted, plus the row's index in the transaction
PLACE = f"(pg_current_xact_id()::text::bigint << {POSITION_ROW_BITS}) + "
_INSERT_AT = f"INSERT INTO events (position, {_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_COMMAND = "INSERT INTO commands (stream_id, command_id, first_version, last_version) VALUES (%s, %s, %s, %s)"
_XID = "SELECT pg_current_xact_id()::text::bigint"
#: the shared advisory lock every transaction that writes events takes first, before
#: it has a transaction id: a reader finds the appenders still running by it. Keys
#: ``APPENDING`` to ``APPENDING + SPREAD - 1``, one per backend (its pid modulo
#: ``SPREAD``): one key for all would make every append queue on one partition of
#: PostgreSQL's lock table (64 clients appended a quarter slower). The lock's other
#: key is the store's schema (hashed): stores in other schemas of the same database
#: take other locks, so a long import into one never holds back the readers of another
#: (it held them for as long as it ran: their catch-ups gave up settling after
#: ``SETTLE_SECONDS`` and read nothing new). Migration 0012 puts it in the append function.
APPENDING = 7301002
SPREAD = 16
APPENDERS_LOCK = f"pg_advisory_xact_lock_shared(hashtext(current_schema()), {APPENDING} + pg_backend_pid() % {SPREAD})"
_APPENDING = f"SELECT {APPENDERS_LOCK}"
#: the transaction ids (low 32 bits) of the appenders running in this database and
#: schema that have one. ``backend_xid`` is the very field a snapshot reads
#: (``pg_locks`` shows a new id a moment later); an appender without one yet will take
#: an id above every snapshot taken before this read. (A lock of two keys shows the
#: first as ``classid``, the second as ``objid``, with ``objsubid`` 2.)
_APPENDERS = (
    "SELECT s.backend_xid::text::bigint FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    f" AND l.classid = hashtext(current_schema())::oid AND l.objid BETWEEN {APPENDING} AND {APPENDING + SPREAD - 1}"
    " AND l.objsubid = 2 AND l.granted AND s.backend_xid IS NOT NULL"
)
#: the first position a transaction still running could take: the oldest appender
#: the statement's snapshot sees running, else the snapshot's xmax. Not simply the
#: snapshot's xmin: that is the oldest transaction of the whole cluster, and one long
#: transaction anywhere (another database's batch job) would hold every reader back.
#: An appender takes ``APPENDING`` before its id, so one the snapshot sees running
#: either still holds the lock when ``pg_locks`` is read, after the snapshot, or has
#: ended by then (and a query run after this one sees its rows). A hot standby's
#: ``pg_locks`` does not hold the primary's locks: there the horizon is the xmin.
#: Ask it in a statement of its own, before the read (never inside the reading
#: statement: an appender its snapshot saw running may end before ``pg_locks`` is
#: read, and that snapshot would not show the appender's rows), and once per
#: transaction (PostgreSQL keeps ``pg_stat_activity`` as first read in one).
HORIZON = (
    "(SELECT CASE WHEN pg_snapshot_xmin(s) = pg_snapshot_xmax(s) THEN pg_snapshot_xmax(s)::text::bigint"
    " WHEN pg_is_in_recovery() THEN pg_snapshot_xmin(s)::text::bigint"
    " ELSE coalesce((SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) AS x"
    f" WHERE (x::text::bigint & 4294967295) IN ({_APPENDERS})), pg_snapshot_xmax(s)::text::bigint) END"
    f" << {POSITION_ROW_BITS} FROM (SELECT pg_current_snapshot() AS s) AS snap)"
)
#: NOTIFY payload of a write that names no single stream (an import)
ANY_STREAM = "*"
log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=256)
def _pyformat(sql: str) -> str:
    """``:name`` placeholders (the store's portable form) as psycopg's ``%(name)s``."""
    return re.sub(r"(?<!:):([a-z_][a-z0-9_]*)", r"%(\1)s", sql)


#: rows per INSERT statement of a write (keeps each statement's text a sane size)
_ROWS_PER_INSERT = 1000
_INSERT_EVENTS = f"INSERT INTO events (position, {_COLUMNS}) VALUES ".encode()
_INSERT_COMMANDS = b"INSERT INTO commands (stream_id, command_id, first_version, last_version) VALUES "
#: the transaction keeps its id in a session setting, which the statement after COMMIT
#: reads back: libpq's ``PQexec`` returns only the last statement's result
_KEEP_XID = b"set_config('kartludo.append_xid', pg_current_xact_id()::text, false)"
_KEPT_XID = b"SELECT current_setting('kartludo.append_xid')::bigint"
#: refuses a command whose first row does not follow its stream's head (migration 0013)
_FOLLOWS = b"SELECT kartludo_follows(%s, %d)"


def _literal(value: Any, escaping: pq.abc.Escaping, encoding: str) -> bytes:
    """``value`` as an SQL literal. Text is quoted by libpq; bytes go as a hex bytea
    literal (only hex digits inside the quotes)."""
    kind = type(value)
    if kind is int:
        return b"%d" % value
    if kind is str:
        return escaping.escape_literal(value.encode(encoding))
    if kind is bytes:
        hexed: str = value.hex()
        return b"E'\\\\x" + hexed.encode() + b"'::bytea"  # E'\\x…': whatever standard_conforming_strings
    raise TypeError(f"no SQL literal for {kind.__name__}")


def _literals(conn: Any) -> Callable[[Any], bytes]:
    """SQL literals for one write on ``conn``, each text quoted once (the rows of a
    write repeat their stream, type, actor and command id)."""
    escaping = pq.Escaping(conn.pgconn)
    encoding = conn.info.encoding
    quoted: dict[Any, bytes] = {}

    def literal(value: Any) -> bytes:
        kind = type(value)
        if kind is int:
            return b"%d" % value
        if kind is bytes:
            return _literal(value, escaping, encoding)
        text = quoted.get(value)
        if text is None:
            text = quoted[value] = _literal(value, escaping, encoding)
        return text

    return literal


def _append_sql(conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> bytes:
    """A write of several commands as one query string: BEGIN, the appender lock, the
    event rows (each at its index in the transaction), the command records, COMMIT,
    then the transaction id."""
    literal = _literals(conn)

    def values(row: Sequence[Any]) -> bytes:
        return b", ".join([literal(v) for v in row])

    place = b"(" + PLACE.encode()
    parts = [b"BEGIN", _APPENDING.encode()]
    for first in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[first:first + _ROWS_PER_INSERT]
        parts.append(_INSERT_EVENTS + b", ".join(
            [place + b"%d, " % (first + i) + values(row) + b")" for i, row in enumerate(chunk)]))
    if commands:
        parts.append(_INSERT_COMMANDS + b", ".join([b"(" + values(c) + b")" for c in commands])
                     + b" RETURNING " + _KEEP_XID)
        parts.extend(_FOLLOWS % (literal(c[0]), c[2]) for c in commands if c[2] > 1)
    else:
        parts.append(b"SELECT " + _KEEP_XID)
    parts.append(b"COMMIT")
    parts.append(_KEPT_XID)
    return b"; ".join(parts)


def _command_sql(conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> bytes | None:
    """One command's append as one call of ``kartludo_append`` (migration 0011), or
    None when the write is not one command's rows (they share its stream, command id,
    actor and time, and run from its first version on): that goes as statements."""
    if len(commands) != 1:
        return None
    stream, command_id, first, last = commands[0]
    head = rows[0]
    if last - first + 1 != len(rows) or head[1] != first:
        return None
    recorded_at, actor = head[5], head[6]
    for i, row in enumerate(rows):
        if (row[0] != stream or row[1] != first + i or row[5] != recorded_at or row[6] != actor
                or row[7] != command_id):
            return None
    literal = _literals(conn)

    def column(i: int) -> bytes:
        return b", ".join([literal(row[i]) for row in rows])

    return b"SELECT kartludo_append(%s, %d, %s, %s, %d, ARRAY[%s]::text[], ARRAY[%s]::integer[], " \
        b"ARRAY[%s]::bytea[], ARRAY[%s]::bytea[], ARRAY[%s]::bytea[])" % (
            literal(stream), first, literal(command_id), literal(actor), recorded_at,
            column(2), column(3), column(4), column(8), column(9))


def _run(conn: Any, result: pq.abc.PGresult, want: pq.ExecStatus) -> pq.abc.PGresult:
    """``result`` if it has status ``want``; else the error psycopg would raise."""
    if result.status == want:
        return result
    if conn.pgconn.status != pq.ConnStatus.OK:
        raise psycopg.OperationalError(f"the connection to PostgreSQL broke: "
                                       f"{conn.pgconn.error_message.decode(errors='replace').strip()}")
    raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)


@functools.lru_cache(maxsize=64)
def _numbered(sql: str) -> tuple[bytes, bytes, tuple[str, ...]]:
    """A ``:name`` statement as a prepared statement's name, its text with ``$n``
    placeholders, and the parameter names in ``$n`` order."""
    names: list[str] = []

    def number(m: re.Match[str]) -> str:
        if m.group(1) not in names:
            names.append(m.group(1))
        return f"${names.index(m.group(1)) + 1}"

    text = re.sub(r"(?<!:):([a-z_][a-z0-9_]*)", number, sql)
    name = b"kartludo_" + hashlib.sha1(text.encode()).hexdigest()[:16].encode()
    return name, text.encode(), tuple(names)


#: SQLSTATE invalid_sql_statement_name: "prepared statement … does not exist"
_NOT_PREPARED = b"26000"


def _param(value: Any) -> bytes:
    """A parameter in text form (the server types it from the statement)."""
    if type(value) is int:
        return b"%d" % value
    if type(value) is str:
        return value.encode()
    raise TypeError(f"a prepared query takes int and str parameters, not {type(value).__name__}")


class Notifier:
    """This process's NOTIFYs: appends post the streams they wrote (no round trip, no
    wait), and one thread sends them, each of its transactions notifying every stream
    posted in the last ``WINDOW_S``; a listener may be woken that much later. The
    thread holds a connection of its own, opened when something is posted and closed
    after ``LINGER_S`` with nothing to send (a CLI command's store keeps no thread).
    ``flush`` sends what is posted at once and waits: ``close`` and the interpreter's
    exit call it, so a process that appends and ends still wakes the listeners."""

    #: how long a NOTIFY may wait for the appends that follow it
    WINDOW_S = 0.002
    #: how long the thread stays with nothing to send before it closes its connection
    LINGER_S = 2.0
    #: more streams than this in one window are notified as ``ANY_STREAM``
    MOST_NAMED = 500
    #: how long a NOTIFY that failed waits before it is tried again
    RETRY_S = 1.0

    def __init__(self, connect: Callable[[], Any]) -> None:
        #: a new connection of the store's engine, autocommit (``PostgresDriver``)
        self._connect = connect
        self._reset()

    def _reset(self) -> None:
        """Fresh state: at first, and in a forked child (no thread came with it)."""
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._sent_all = threading.Condition(self._lock)
        #: the streams posted and not yet sent (None: some write named none)
        self._pending: set[str] | None = set()
        #: a send is due: the thread will take what is pending (posters need not wake it)
        self._due = False
        self._urgent = False
        self._closed = False
        self._posted = 0  # posts so far
        self._sent = 0  # posts sent so far
        self._thread: threading.Thread | None = None

    def post(self, streams: Sequence[str] | None) -> None:
        """Notify ``streams`` (None: any stream) soon."""
        if self._pid != os.getpid():
            self._reset()
        with self._lock:
            if streams is None or self._pending is None or len(self._pending) + len(streams) > self.MOST_NAMED:
                self._pending = None
            else:
                self._pending.update(streams)
            self._posted += 1
            if self._thread is None:
                self._closed = False
                self._thread = threading.Thread(target=self._loop, name="kartludo-notify", daemon=True)
                self._thread.start()
                _live_notifiers.add(self)
            if not self._due:
                self._due = True
                self._wake.notify()

    def flush(self, timeout: float = 5.0) -> bool:
        """Send everything posted so far now; True once it is sent (False: not within
        ``timeout`` seconds, the database unreachable)."""
        if self._pid != os.getpid():
            return True  # a forked child: what its parent posted is the parent's to send
        with self._lock:
            target = self._posted
            if self._sent >= target:
                return True
            self._urgent = True
            self._wake.notify()
            return self._sent_all.wait_for(lambda: self._sent >= target, timeout)

    def close(self) -> None:
        """Flush, then stop the thread (it closes its connection)."""
        self.flush()
        with self._lock:
            self._closed = True
            self._wake.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self.LINGER_S + 1)

    def _take(self) -> tuple[list[str] | None, int] | None:
        """The next batch and how many posts it covers; None when the thread should end."""
        with self._lock:
            while not self._due:
                if self._closed or not self._wake.wait(self.LINGER_S) and not self._due:
                    self._thread = None  # idle: end; the next post starts another
                    return None
            if not self._urgent:
                self._wake.wait_for(lambda: self._urgent or self._closed, self.WINDOW_S)
            pending, upto = self._pending, self._posted
            self._pending, self._due, self._urgent = set(), False, False
            return (None if pending is None else sorted(pending)), upto

    @staticmethod
    def _send(conn: Any, streams: list[str]) -> None:
        """One transaction notifying ``streams``: one libpq call (psycopg's cursor
        costs the GIL several times as much)."""
        escaping = pq.Escaping(conn.pgconn)
        encoding = conn.info.encoding
        channel = _literal(NOTIFY_CHANNEL, escaping, encoding)
        sql = b"SELECT " + b", ".join(
            [b"pg_notify(" + channel + b", " + _literal(s, escaping, encoding) + b")" for s in streams])
        _run(conn, conn.pgconn.exec_(sql), pq.ExecStatus.TUPLES_OK)

    def _loop(self) -> None:
        """The thread: take a batch, send it, until ``_take`` says to end."""
        conn = None
        try:
            while (batch := self._take()) is not None:
                streams, upto = batch
                try:
                    if conn is None:
                        conn = self._connect()
                    self._send(conn, streams if streams is not None else [ANY_STREAM])
                except psycopg.Error as exc:
                    log.warning("NOTIFY failed (%s); trying again in %.0f s", exc, self.RETRY_S)
                    with contextlib.suppress(psycopg.Error):
                        if conn is not None:
                            conn.close()
                    conn = None
                    with self._lock:  # keep the batch: it goes with the next one
                        if self._pending is not None:
                            self._pending = None if streams is None else self._pending | set(streams)
                        self._due = True
                        if self._closed:
                            return
                        self._wake.wait(self.RETRY_S)
                    continue
                with self._lock:
                    self._sent = max(self._sent, upto)
                    self._sent_all.notify_all()
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None
            if conn is not None:
                with contextlib.suppress(psycopg.Error):
                    conn.close()


#: notifiers with a thread: flushed when the interpreter exits
_live_notifiers: weakref.WeakSet[Notifier] = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    for notifier in list(_live_notifiers):
        notifier.flush()


class PostgresDriver:
    IntegrityError = psycopg.errors.IntegrityError
    OperationalError = psycopg.OperationalError
    DatabaseError = psycopg.DatabaseError
    horizon_expr = HORIZON
    #: a cheaper horizon that may lag (the cluster's oldest transaction still running):
    #: safe wherever ``HORIZON`` is, enough when it is already past what a reader needs
    quick_horizon_expr = f"(pg_snapshot_xmin(pg_current_snapshot())::text::bigint << {POSITION_ROW_BITS})"

    def __init__(self, connect: Callable[[], Any]) -> None:
        """``connect``: a new psycopg connection, autocommit, of the store's engine."""
        #: per connection, the statements ``prepared_query`` has prepared on it (psycopg
        #: may deallocate them all meanwhile: a statement found missing is prepared again)
        self._prepared: weakref.WeakKeyDictionary[Any, set[bytes]] = weakref.WeakKeyDictionary()
        self.notifier = Notifier(connect)

    def close(self) -> None:
        """Send the NOTIFYs still due, and stop their thread."""
        self.notifier.close()

    def enter(self, conn: Any) -> None:
        """Autocommit while the store holds the connection: a read is one statement
        with its own fresh snapshot (no old snapshot kept, no ROLLBACK round trip);
        writes open explicit transactions."""
        conn.autocommit = True

    def reset(self, conn: Any) -> None:
        """Between two store calls: no transaction left open."""
        if conn.pgconn.transaction_status != TransactionStatus.IDLE:
            conn.rollback()

    def leave(self, conn: Any) -> None:
        """Back to the driver's default, as SQLAlchemy's own users of the pool expect."""
        self.reset(conn)
        conn.autocommit = False

    def write(
        self, conn: Any, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]], streams: list[str] | None
    ) -> list[int]:
        # One query string, one libpq call, one round trip: one command's rows as one
        # call of the append function, anything else as statements. On an error nothing
        # commits and nothing is notified (the server skips the rest of a string of
        # statements; the transaction left aborted is rolled back by ``reset``).
        sql = _command_sql(conn, rows, commands) or _append_sql(conn, rows, commands)
        result = _run(conn, conn.pgconn.exec_(sql), pq.ExecStatus.TUPLES_OK)
        self.notifier.post(streams)
        base = int(result.get_value(0, 0) or b"") << POSITION_ROW_BITS
        return [base + i for i in range(len(rows))]

    def prepared_query(self, conn: Any, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """A hot read (``:name`` placeholders, int and text values), prepared once per
        connection and run by one libpq call; rows as psycopg's loaders make them.
        Outside a transaction only (the store's own reads): there a statement found
        missing fails alone, and is prepared again."""
        name, text, names = _numbered(sql)
        pgconn = conn.pgconn
        prepared = self._prepared.get(conn)
        if prepared is None:
            prepared = self._prepared[conn] = set()
        values = [_param(params[n]) for n in names]
        result = None
        if name in prepared:
            result = pgconn.exec_prepared(name, values, result_format=pq.Format.BINARY)
            if result.error_field(pq.DiagnosticField.SQLSTATE) == _NOT_PREPARED:
                result = None  # psycopg dropped every prepared statement (it does on ROLLBACK)
        if result is None:
            _run(conn, pgconn.prepare(name, text), pq.ExecStatus.COMMAND_OK)
            prepared.add(name)
            result = pgconn.exec_prepared(name, values, result_format=pq.Format.BINARY)
        _run(conn, result, pq.ExecStatus.TUPLES_OK)
        if not result.ntuples:  # the usual catch-up read: nothing new, nothing to load
            return []
        loader = Transformer(conn)
        loader.set_pgresult(result)
        rows: list[tuple[Any, ...]] = loader.load_rows(0, result.ntuples, tuple)
        return rows

    def bulk(self, conn: Any, more: Callable[[], int]) -> _Bulk:
        return _Bulk(conn, more, self.notifier)

    def fresh_block(self, conn: Any) -> int:
        """The first position of a block no other transaction will use: a transaction
        id taken (and ended) only for this, shifted. The long transaction that writes
        there is still running, so the block stays above every reader's horizon
        until that transaction ends."""
        with conn.cursor() as cur:
            cur.execute(_XID)
            xid: int = cur.fetchone()[0]
            return xid << POSITION_ROW_BITS

    def query_with_horizon(self, conn: Any, sql: str, params: dict[str, Any]) -> tuple[int, list[Sequence[Any]]]:
        # two statements, two snapshots, the horizon's first: every row below it was
        # committed before the second snapshot was taken, so the query sees it
        with conn.cursor() as first, conn.cursor() as cur:
            with conn.pipeline():
                first.execute(f"SELECT {HORIZON}")
                cur.execute(_pyformat(sql), params)
            return int(first.fetchone()[0]), cur.fetchall()

    def query(self, conn: Any, sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
        with conn.cursor() as cur:
            cur.execute(_pyformat(sql), params)
            rows: list[Sequence[Any]] = cur.fetchall()
            return rows

    def execute(self, conn: Any, sql: str, params: dict[str, Any]) -> None:
        with conn.cursor() as cur:
            cur.execute(_pyformat(sql), params)

    def executemany(self, conn: Any, sql: str, rows: list[dict[str, Any]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(_pyformat(sql), rows)

    def insert_chain(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO chain (position, n, stream_id, version, hash) VALUES (%s, %s, %s, %s, %s)",
                            rows)

    def begin_exclusive(self, conn: Any, lock: int | None) -> None:
        """A transaction holding an advisory lock (when ``lock`` is given): one writer
        of that kind at a time, appends to ``events`` not held up."""
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            if lock is not None:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))


class _Bulk:
    """One transaction fed in batches (an import). Its first 2**16 rows take positions
    from its own transaction id; each further block from ``more``."""

    #: rows placed per block of positions (at most 2**16; smaller in tests)
    block = 1 << POSITION_ROW_BITS

    def __init__(self, conn: Any, more: Callable[[], int], notifier: Notifier) -> None:
        self.conn = conn
        self.more = more
        self.notifier = notifier
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute(_APPENDING)
            cur.execute(_XID)
            self.next = cur.fetchone()[0] << POSITION_ROW_BITS
        self.left = self.block

    def write(self, rows: list[tuple[Any, ...]], commands: list[tuple[Any, ...]]) -> None:
        placed = []
        for row in rows:
            if not self.left:
                self.next, self.left = self.more(), self.block
            placed.append((self.next, *row))
            self.next += 1
            self.left -= 1
        with self.conn.cursor() as cur:
            cur.executemany(_INSERT_AT, placed)
            if commands:
                cur.executemany(_INSERT_COMMAND, commands)
                follows = [(c[0], c[2]) for c in commands if c[2] > 1]
                if follows:
                    cur.executemany("SELECT kartludo_follows(%s, %s)", follows)

    def commit(self) -> None:
        with self.conn.cursor() as cur:
            cur.execute("COMMIT")
        self.notifier.post(None)  # any stream: an import names none

    def rollback(self) -> None:
        if self.conn.pgconn.transaction_status != TransactionStatus.IDLE:
            self.conn.rollback()
