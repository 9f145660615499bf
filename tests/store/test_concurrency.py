"""Concurrent appends, gap-safe followers and the connection pool, on every backend
(the PostgreSQL-only tests hold a transaction open by hand)."""

from __future__ import annotations

import io
import multiprocessing
import re
import threading
import time
import uuid

import pytest
import sqlalchemy as sa
import workers
from sample_events import Noted

from kartludo.store import ConcurrencyConflict, EventStore, ImportRefused
from kartludo.store.eventstore import _COLUMNS
from kartludo.store.integrity import verify
from kartludo.store.postgres import PLACE
from kartludo.store.transfer import export_events, import_events

fork = multiprocessing.get_context("fork")


def notes(*ns: int) -> list[Noted]:
    return [Noted(n=n) for n in ns]


def all_positions(store: EventStore) -> list[int]:
    """Every stored position, settled or not (not a follower's read)."""
    with store.engine.connect() as conn:
        return [r[0] for r in conn.execute(sa.text("SELECT position FROM events ORDER BY position"))]


def test_a_follower_never_skips_an_event_while_processes_and_threads_append_to_many_streams(store, db_url):
    processes, threads, each = 3, 4, 40
    per_thread = sum(1 + i % 3 + (1 if i % 7 == 6 else 0) for i in range(each))
    expected = processes * threads * per_thread
    queue = fork.Queue()
    follower = fork.Process(target=workers.follow_until, args=(db_url, expected, 180.0, queue))
    follower.start()
    writers = [fork.Process(target=workers.append_threads, args=(db_url, w, threads, each)) for w in range(processes)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(timeout=180)
        assert p.exitcode == 0
    seen = queue.get(timeout=180)
    follower.join(timeout=30)
    table = all_positions(store)
    assert len(table) == expected
    assert seen == table  # every event, once, in global order: none skipped though many committed late
    assert [r.position for r in store.iter_all(0)] == table
    assert verify(store).ok


def test_threads_that_come_and_go_give_their_connections_back(store):
    """A worker thread that ends keeps no connection: hundreds of short-lived threads
    (as a server's thread pool churns) never exhaust the pool."""
    store.append("s", notes(1), 0)

    def work(i: int) -> None:
        store.read_stream("s")
        store.append(f"t{i}", notes(i), 0)

    for start in range(0, 300, 30):
        batch = [threading.Thread(target=work, args=(i,)) for i in range(start, start + 30)]
        for t in batch:
            t.start()
        for t in batch:
            t.join()
    assert store.connections_in_use() == 0
    assert store.engine.pool.checkedout() <= store._slot_count  # at most those the store keeps in hand
    assert store.count_events() == 301 and store.stream_version("t299") == 1


def _small_pool(monkeypatch, db_url, size: int, overflow: int = 0) -> EventStore:
    """A store whose pool keeps ``size`` connections, opens ``overflow`` more, and waits
    2 s for one."""
    from kartludo.store import database

    monkeypatch.setenv(database.POOL_SIZE_ENV, str(size))
    monkeypatch.setattr(database, "POOL_OVERFLOW", overflow)
    monkeypatch.setattr(database, "POOL_TIMEOUT_S", 2)
    database.upgrade(database.create_engine(db_url))
    return EventStore.open(db_url)


def test_the_pool_size_is_the_backends_unless_the_environment_sets_it(monkeypatch, db_url):
    """Each backend has its own pool size (PostgreSQL's covers a process's threads, SQLite's
    stays small); ``KARTLUDO_POOL_SIZE`` sets both: the pool's steady size, the store's
    calls at once, and the pool's limit with its overflow."""
    from kartludo.store import database

    monkeypatch.delenv(database.POOL_SIZE_ENV, raising=False)
    backend = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    database.upgrade(database.create_engine(db_url))
    for size in (None, 5):
        if size is not None:
            monkeypatch.setenv(database.POOL_SIZE_ENV, f" {size} ")
        store = EventStore.open(db_url)
        try:
            expected = size or database.POOL_SIZES[backend]
            assert store.engine.pool.size() == store._slot_count == expected
            assert database.pool_limit(store.engine) == expected + database.POOL_OVERFLOW
        finally:
            store.close()
    assert database.POOL_SIZES == {"sqlite": 16, "postgresql": 64}


@pytest.mark.parametrize("value", ["0", "-3", "abc", "1.5", "1001", "4 4"])
def test_a_pool_size_that_cannot_be_used_is_refused_naming_the_setting(monkeypatch, db_url, value):
    from kartludo.store import database
    from kartludo.store.errors import BadSetting

    monkeypatch.setenv(database.POOL_SIZE_ENV, value)
    message = f"KARTLUDO_POOL_SIZE='{value}': give a number of connections from 1 to 1000"
    with pytest.raises(BadSetting, match=f"^{re.escape(message)}$"):
        EventStore.open(db_url)


def test_a_connection_kept_in_hand_goes_back_when_the_pool_runs_out(monkeypatch, db_url):
    """The store keeps idle connections for its next calls, but never while someone may
    wait on the pool: once every connection is out, one in hand goes back to it."""
    store = _small_pool(monkeypatch, db_url, 2)
    try:
        store.append("s", notes(1), 0)
        assert len(store._idle) == 1  # kept in hand: the pool could still open another
        with store.engine.connect():  # the pool's last connection: the one in hand goes back
            assert store._idle == []
            t0 = time.monotonic()
            with store.engine.connect():  # served at once, not after the pool's timeout
                assert time.monotonic() - t0 < 1
            assert store.read_stream("s")[0].version == 1
    finally:
        store.close()


def test_more_threads_than_connections_all_get_served(monkeypatch, db_url):
    """Threads outnumbering the pool, mixing store calls with writes on the engine (as
    snapshots and projections do), all finish: none waits out the pool's timeout."""
    store = _small_pool(monkeypatch, db_url, 3)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for n in range(10):
                store.append(f"w{i}", notes(n), n)
                store.read_stream(f"w{i}")
                with store.engine.connect() as conn:
                    conn.execute(sa.text("SELECT 1"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert all(store.stream_version(f"w{i}") == 10 for i in range(12))
    finally:
        store.close()


def test_store_calls_run_at_most_the_pools_size_at_once_and_nest_in_a_thread(monkeypatch, db_url):
    """More threads than the pool's size: the rest wait for a slot, and a call made
    inside another (an exclusive block reading the store) takes no second slot."""
    store = _small_pool(monkeypatch, db_url, 2)
    most = 0
    running = threading.Event()

    def sample() -> None:
        nonlocal most
        while running.is_set():
            most = max(most, 2 - store._slots.qsize())
            time.sleep(0.0005)

    def work(i: int) -> None:
        for n in range(15):
            store.append(f"n{i}", notes(n), n)
            store.read_stream(f"n{i}")

    try:
        running.set()
        sampler = threading.Thread(target=sample)
        sampler.start()
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        running.clear()
        sampler.join()
        assert 1 <= most <= 2
    finally:
        store.close()
    one = _small_pool(monkeypatch, db_url, 1, overflow=1)  # one slot
    try:
        with one.exclusive(7301999):  # holds the slot; the read inside needs a second connection, not slot
            assert one.read_stream("n0")[-1].version == 15
        assert one._slots.qsize() == 1 and one.connections_in_use() == 0
    finally:
        one.close()


def test_close_closes_every_connection(db_url):
    """close() leaves nothing open, whichever threads used the store."""
    app = f"kt_close_{uuid.uuid4().hex[:8]}"
    url = f"{db_url}&application_name={app}" if db_url.startswith("postgresql") else db_url
    from kartludo.store.database import create_engine, upgrade

    engine = create_engine(url)
    upgrade(engine)
    engine.dispose()
    store = EventStore.open(url)
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        barrier.wait()
        store.append(f"s{i}", notes(i), 0)
        store.read_stream(f"s{i}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.connections_in_use() == 0
    store.close()
    assert store.engine.pool.checkedin() == 0 and store.engine.pool.checkedout() == 0
    if db_url.startswith("postgresql"):
        import psycopg

        deadline = time.monotonic() + 5  # a server process ends a moment after its client hung up
        with psycopg.connect(db_url, autocommit=True) as admin:
            while True:
                left = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                                     (app,)).fetchone()[0]
                if not left or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        assert left == 0


def test_import_is_one_transaction_however_many_batches(store, tmp_path, monkeypatch):
    """A file written in many batches is still all or nothing: a bad last line leaves
    the target empty; a good file arrives whole, in the source's order."""
    import kartludo.store.transfer as transfer

    monkeypatch.setattr(transfer, "BATCH", 7)
    monkeypatch.setattr(transfer, "_COMPARE", 5)
    for i in range(12):
        store.append(f"match-{i % 4}", notes(i, i + 1), (i // 4) * 2, command_id=f"c{i}")
    out = io.BytesIO()
    assert export_events(store, out) == 24
    lines = out.getvalue().splitlines()
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(ImportRefused, match="line 24: not an exported event"):
        import_events(target, [*lines[:-1], b"{broken"], unsigned=True)
    assert target.count_events() == 0
    summary = import_events(target, lines, unsigned=True)
    assert (summary.lines, summary.imported, summary.already_present, summary.streams) == (24, 24, 0, 4)
    again = io.BytesIO()
    export_events(target, again)
    assert again.getvalue() == out.getvalue()
    assert target.find_command("match-1", "c5").first_version == 3  # command records kept per stream
    # a second import compares every event in batches and writes nothing
    assert import_events(target, lines, unsigned=True).already_present == 24
    target.close()


def test_import_refuses_a_command_id_used_twice_on_a_stream(store, tmp_path):
    """Two runs of one command id on one stream cannot both be recorded: the import
    is refused as a whole (the duplicate is found only when written)."""
    store.append("match-a", notes(1), 0, command_id="x")
    store.append("match-a", notes(2), 1, command_id="y")
    rows, _ = store._rows("match-a", notes(3), 2, "x", "", store.clock())
    store.insert_rows(rows, [])  # a hand-made row: no store writes this
    out = io.BytesIO()
    export_events(store, out)
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(ImportRefused, match="already holds these command ids"):
        import_events(target, out.getvalue().splitlines(), unsigned=True)
    assert target.count_events() == 0
    target.close()


# --- PostgreSQL: a transaction held open by hand ------------------------------------------


#: one event placed as an append places it (PostgreSQL), for a hand-made transaction
_INSERT_ONE = f"INSERT INTO events (position, {_COLUMNS}) VALUES ({PLACE}%s{', %s' * 10})"


def _late_writer(store: EventStore, url: str, stream: str, *, via: str = "statements"):
    """A connection that has begun writing ``stream`` (so holds a transaction id older
    than any append after it) and has not committed: by statements, as a write of
    several commands goes, or by the append function, as one command's append goes."""
    import psycopg

    from kartludo.store.postgres import _APPENDING, _INSERT_COMMAND, _command_sql

    rows, _ = store._rows(stream, notes(7), 0, "late", "", store.clock())
    conn = psycopg.connect(url.replace("postgresql+psycopg", "postgresql"))
    if via == "function":
        sql = _command_sql(conn, rows, [(stream, "late", 1, 1)])
        assert sql is not None
        conn.execute(sql)  # psycopg's transaction stays open around it
    else:
        conn.execute(_APPENDING)  # as every append does, before it has a transaction id
        conn.execute(_INSERT_ONE, (0, *rows[0]))
        conn.execute(_INSERT_COMMAND, (stream, "late", 1, 1))
    position = conn.execute("SELECT pg_current_xact_id()::text::bigint << 16").fetchone()[0]
    return conn, position


@pytest.mark.postgres
@pytest.mark.parametrize("via", ["statements", "function"])
def test_followers_stop_below_a_transaction_still_running(pg_url, via):
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    store.append("a", notes(1), 0)
    late, late_position = _late_writer(store, pg_url, "late", via=via)
    after = [store.append(f"b{i}", notes(i), 0).positions[0] for i in range(3)]
    assert min(after) > late_position  # appends that began later sort later...
    assert store.horizon() <= late_position  # ...and wait behind the open transaction
    assert not store.settle(timeout=0.2)
    seen = store.read_all(0)
    assert all(r.position < late_position for r in seen)  # nothing past it, though b0-b2 committed
    late.commit()
    late.close()
    assert store.settle()
    rest = store.read_all(seen[-1].position if seen else 0)
    assert [r.stream_id for r in rest if r.stream_id != "a"] == ["late", "b0", "b1", "b2"]
    store.close()


@pytest.mark.postgres
def test_a_projection_reading_ahead_stops_below_a_transaction_still_running(pg_url):
    """A catch-up of many small batches (each next one read ahead on another
    connection) moves its checkpoint up to the open transaction and no further, though
    later appends committed; after the commit it goes on over every event, once."""
    from kartludo.projections.runner import Projection, catch_up
    from kartludo.projections.schema import checkpoints
    from kartludo.store.database import create_engine, upgrade

    class Seen(Projection):
        name = "seen"
        tables = ()
        positions: list[int] = []

        def apply_batch(self, conn, items):
            self.positions.extend(rec.position for rec, _ in items)

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    for i in range(12):
        store.append(f"a{i}", notes(i), 0)
    late, late_position = _late_writer(store, pg_url, "late")
    for i in range(12):
        store.append(f"b{i}", notes(i), 0)
    seen = Seen()
    assert catch_up(store, seen, batch=3) == 12
    assert all(p < late_position for p in seen.positions)
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(checkpoints.c.position).where(checkpoints.c.name == "seen")).scalar_one() \
            == max(seen.positions)
    late.commit()
    late.close()
    assert catch_up(store, seen, batch=3) == 13
    assert seen.positions == all_positions(store)
    store.close()


@pytest.mark.postgres
@pytest.mark.parametrize("via", ["statements", "function"])
def test_an_appender_in_another_schema_of_the_database_holds_no_reader_back(pg_url, other_pg_url, via):
    """Two stores in two schemas of one database: a transaction still writing into
    one (an import, say) is no reason for the other's readers to wait, though it is
    for its own store's."""
    from kartludo.store.database import create_engine, upgrade

    for url in (pg_url, other_pg_url):
        upgrade(create_engine(url))
    mine, theirs = EventStore.open(pg_url), EventStore.open(other_pg_url)
    late, _ = _late_writer(theirs, other_pg_url, "import", via=via)
    try:
        written = mine.append("a", notes(1, 2), 0).positions
        assert mine.settle(timeout=2)  # not held back by the other schema's writer
        assert [r.position for r in mine.read_all(0)] == written
        theirs.append("b", notes(3), 0)
        assert not theirs.settle(timeout=0.2)  # its own store's readers wait for it
    finally:
        late.rollback()
        late.close()
    assert theirs.settle()
    mine.close()
    theirs.close()


@pytest.mark.postgres
def test_one_commands_append_is_one_call_of_the_append_function_agreeing_with_the_store(pg_url, monkeypatch):
    """The function (migrations 0011, 0012) takes the appenders' lock before its transaction
    has an id and places rows as the store does; a write of several commands goes as
    statements. Both give each transaction's rows contiguous positions from its id."""
    import kartludo.store.postgres as postgres
    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.schema import POSITION_ROW_BITS

    engine = create_engine(pg_url)
    upgrade(engine)
    with engine.connect() as conn:
        body = conn.exec_driver_sql("SELECT pg_get_functiondef('kartludo_append'::regproc)").scalar()
    lock = postgres.APPENDERS_LOCK
    assert body.count("pg_advisory") == 1 and lock in body and f"(xid << {POSITION_ROW_BITS}) + r.i - 1" in body
    assert body.index(lock) < body.index("pg_current_xact_id()")
    sent: list[bytes] = []
    real = postgres._command_sql
    monkeypatch.setattr(postgres, "_command_sql", lambda *a: sent.append(s := real(*a)) or s)
    store = EventStore.open(pg_url)
    one = store.append("f", notes(1, 2, 3), 0, command_id="one", actor="ann")
    both = store.append_together([("g", notes(4), 0), ("h", notes(5, 6), 0)], actor="bob")
    store.append("f", notes(7), 3, command_id="one")  # a retry: the original, nothing written
    assert [s is not None for s in sent] == [True, False, True]
    assert sent[0].startswith(b"SELECT kartludo_append(")
    for positions in (one.positions, [p for a in both for p in a.positions]):
        base = positions[0] >> POSITION_ROW_BITS << POSITION_ROW_BITS
        assert positions == [base + i for i in range(len(positions))]
    records = store.read_stream("f")
    assert [(r.version, r.event, r.actor, r.command_id) for r in records] == [
        (v, Noted(n=v), "ann", "one") for v in (1, 2, 3)]
    assert [r.position for r in records] == one.positions
    assert store.find_command("f", "one").positions == one.positions
    assert verify(store).ok
    store.close()


@pytest.mark.postgres
def test_a_long_transaction_that_appends_nothing_holds_no_follower_back(pg_url):
    """Another session's long transaction (here: one that took a transaction id and
    sits idle, as a batch job elsewhere on the cluster would) is not an appender: the
    appends after it settle at once and followers read past it."""
    import psycopg

    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    store.append("a", notes(1), 0)
    other = psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"))
    other.execute("SELECT pg_current_xact_id()")  # holds the cluster's xmin from now on
    try:
        after = [store.append(f"c{i}", notes(i), 0).positions[-1] for i in range(3)]
        assert store.settle(timeout=2)
        assert store.horizon() > max(after)
        assert {"c0", "c1", "c2"} <= {r.stream_id for r in store.read_all(0)}
    finally:
        other.rollback()
        other.close()
        store.close()


@pytest.mark.postgres
def test_token_index_never_skips_a_revocation_that_commits_late(pg_url):
    """A token issued while an older transaction runs works at once; a revocation
    committed by that older transaction afterwards still revokes it."""
    import psycopg

    from kartludo.app.tokens import TokenIndex, hash_token, issue, new_secret
    from kartludo.events.tokens import TokenRevoked
    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.postgres import _APPENDING, _INSERT_COMMAND

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    index = TokenIndex(store)
    assert index.resolve(new_secret()) is None
    secret_holder: list[str] = []
    late = psycopg.connect(pg_url)
    late.execute(_APPENDING)  # an appender: the lock, then
    late.execute("SELECT pg_current_xact_id()")  # the older transaction takes its id first
    secret_holder.append(issue(store, "td", label="mia"))
    assert index.resolve(secret_holder[0]) is not None  # unsettled, yet usable at once
    rows, _ = store._rows("tokens-late", [TokenRevoked(token_hash=hash_token(secret_holder[0]))], 0, "rv", "",
                          store.clock())
    late.execute(_INSERT_ONE, (0, *rows[0]))
    late.execute(_INSERT_COMMAND, ("tokens-late", "rv", 1, 1))
    late.commit()
    late.close()
    assert index.resolve(secret_holder[0]) is None
    store.close()


@pytest.mark.postgres
def test_a_long_import_takes_more_blocks_of_positions(pg_url, tmp_path, monkeypatch):
    """Past one block of positions an import takes another transaction id's block: the
    import stays one transaction, in the file's order, and followers see it whole."""
    from kartludo.store import postgres

    source = EventStore.open(f"sqlite:///{tmp_path / 'source.db'}")
    for i in range(30):
        source.append(f"match-{i % 3}", notes(i, i + 1, i + 2), (i // 3) * 3)
    out = io.BytesIO()
    export_events(source, out)
    source.close()
    monkeypatch.setattr(postgres._Bulk, "block", 16)
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    store.append("before", notes(0), 0)
    assert import_events(store, out.getvalue().splitlines(), unsigned=True).imported == 90
    records = list(store.iter_all(0))
    assert [r.stream_id for r in records[1:4]] == ["match-0", "match-0", "match-0"] and len(records) == 91
    assert len({r.position >> 16 for r in records[1:]}) == 6  # 90 rows in blocks of 16
    again = io.BytesIO()
    export_events(store, again)
    assert again.getvalue().split(b"\n", 1)[1] == out.getvalue()
    assert verify(store).ok
    store.close()


def test_verify_compares_commands_a_page_at_a_time(store, monkeypatch):
    """The commands check pages both sides by key range: with pages of three, a forged
    row and a deleted one in later pages are still named, and a clean log passes."""
    for i in range(12):
        store.append(f"c{i:02}", notes(i, i + 1), 0, command_id=f"k{i}")
    limit = 3
    rows, derived = EventStore.command_rows, EventStore.commands_from_events
    monkeypatch.setattr(EventStore, "command_rows", lambda self, after=("", ""), n=limit: rows(self, after, n))
    monkeypatch.setattr(EventStore, "commands_from_events",
                        lambda self, after=("", ""), n=limit, upto=None: derived(self, after, n, upto=upto))
    report = verify(store, stop_at_first=False)
    assert report.ok and report.commands == 12
    with store.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM commands WHERE stream_id = 'c07'"))
        conn.execute(sa.text("INSERT INTO commands (stream_id, command_id, first_version, last_version) "
                             "VALUES ('c10', 'forged', 1, 1)"))
    problems = [(p.stream_id, p.reason) for p in verify(store, stop_at_first=False).problems]
    assert ("c10", "no event carries this command id (a forged or altered row)") in problems
    assert any(sid == "c07" and reason.startswith("missing for versions 1-2") for sid, reason in problems)
    assert len(problems) == 2


def test_a_connection_that_cannot_be_opened_fails_the_call_clearly(db_url, monkeypatch):
    """A new connection refused by the server (a standby just stopped) reaches the store
    as the driver's own error, unwrapped by the pool's checkout: the call fails with a
    ``DatabaseUnavailable`` naming the database (what a replica read falls back on),
    and the next call, the server back, works."""
    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.errors import DatabaseUnavailable

    upgrade(create_engine(db_url))
    store = EventStore.open(db_url)
    store._idle.clear()  # nothing in hand: the next call opens a connection
    real = store.engine.raw_connection

    def refused() -> None:
        raise store._driver.OperationalError("connection failed: Connection refused")

    monkeypatch.setattr(store.engine, "raw_connection", refused)
    with pytest.raises(DatabaseUnavailable, match=r"cannot open .*Connection refused"):
        store.read_stream("a")
    with pytest.raises(DatabaseUnavailable, match=r"cannot open .*Connection refused"):
        store.append("a", notes(1), 0)
    monkeypatch.setattr(store.engine, "raw_connection", real)
    assert store.append("a", notes(1), 0).last_version == 1
    assert [r.event.n for r in store.read_stream("a")] == [1]
    store.close()


@pytest.mark.postgres
def test_a_connection_killed_between_calls_fails_one_call_clearly_then_is_replaced(pg_url):
    """The append and the hot read talk to libpq directly: a server that dropped their
    connection is a ``DatabaseUnavailable`` naming it, the connection is not reused,
    and the next call works on a fresh one."""
    import psycopg

    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.errors import DatabaseUnavailable

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)

    def kill_idle() -> None:
        pids = [pooled.driver_connection.info.backend_pid for pooled in store._idle]
        assert pids
        with psycopg.connect(pg_url, autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))

    store.append("a", notes(1), 0)
    kill_idle()
    with pytest.raises(DatabaseUnavailable, match="connection|server|terminat"):
        store.append("a", notes(2), 1)
    assert store.append("a", notes(2), 1).last_version == 2
    kill_idle()
    with pytest.raises(DatabaseUnavailable, match="connection|server|terminat"):
        store.read_stream("a")
    assert [r.event.n for r in store.read_stream("a")] == [1, 2]
    store.close()


@pytest.mark.postgres
def test_the_hot_read_survives_psycopg_dropping_every_prepared_statement(pg_url):
    """psycopg answers a ROLLBACK with DEALLOCATE ALL once it has prepared statements
    of its own on the connection; the store's prepared read is then prepared again."""
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    store.append("a", notes(1), 0)
    for _ in range(3):
        assert [r.version for r in store.read_stream("a")] == [1]  # prepared by the store
        for _ in range(8):
            store.stream_version("a")  # psycopg prepares this one itself after a few runs
        with pytest.raises(ConcurrencyConflict):
            store.append("a", notes(2), 0)  # rolled back: psycopg deallocates everything
        assert [r.version for r in store.read_stream("a", from_version=1)] == [1]
    store.close()
