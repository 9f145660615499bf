"""The event store contract, run on every backend (SQLite and PostgreSQL)."""

from __future__ import annotations

import io
import multiprocessing
import time

import msgspec
import pytest
import sqlalchemy as sa
import workers
from sample_events import Moved, Noted

from kartludo.events.base import UnknownEventType, encode
from kartludo.store import ConcurrencyConflict, EventStore, ImportRefused
from kartludo.store.database import SCHEMA_REVISION, create_engine, current_revision
from kartludo.store.integrity import verify
from kartludo.store.transfer import export_events, import_events

fork = multiprocessing.get_context("fork")


def notes(*ns: int) -> list[Noted]:
    return [Noted(n=n) for n in ns]


def test_append_then_read_stream(store):
    first = store.append("match-a", notes(1, 2), 0, command_id="c1", actor="ann")
    assert (first.first_version, first.last_version, first.duplicate) == (1, 2, False)
    second = store.append("match-a", notes(3), 2, actor="bob")
    assert second.positions[0] > first.positions[-1]
    records = store.read_stream("match-a")
    assert [r.version for r in records] == [1, 2, 3]
    assert [r.event for r in records] == notes(1, 2, 3)
    assert [r.position for r in records] == first.positions + second.positions
    assert records[0].actor == "ann" and records[0].command_id == "c1" and records[2].actor == "bob"
    assert records[0].type == "test.noted" and records[0].schema_version == 1
    assert records[1].prev_hash == records[0].hash and len(records[0].hash) == 32
    assert records[0].recorded_at.tzinfo is not None
    assert store.read_stream("match-a", from_version=2, to_version=2)[0].event == Noted(n=2)
    assert store.stream_version("match-a") == 3 and store.stream_version("nope") == 0
    # an append hands back its records exactly as they read back (a duplicate none: it wrote nothing)
    assert list(first.records) + list(second.records) == records
    again = store.append("match-a", notes(1, 2), 0, command_id="c1", actor="ann")
    assert again.duplicate and again.records == () and again.positions == first.positions


def test_recorded_at_keeps_microseconds(db_url):
    from kartludo.store.database import upgrade

    upgrade(create_engine(db_url))
    store = EventStore.open(db_url, clock=lambda: 1_796_000_000_123_456)
    store.append("s", notes(1), 0)
    rec = store.read_stream("s")[0]
    assert rec.recorded_at_us == 1_796_000_000_123_456
    assert rec.recorded_at.microsecond == 123_456 and rec.recorded_at.year == 2026
    store.close()


def test_stale_expected_version_is_a_conflict_naming_both_versions(store):
    store.append("match-a", notes(1, 2), 0)
    with pytest.raises(ConcurrencyConflict) as err:
        store.append("match-a", notes(9), 1)
    assert err.value.stream == "match-a" and (err.value.expected, err.value.actual) == (1, 2)
    assert "match-a" in str(err.value) and "1" in str(err.value) and "2" in str(err.value)
    with pytest.raises(ConcurrencyConflict):
        store.append("match-a", notes(9), 5)  # ahead of the stream
    with pytest.raises(ConcurrencyConflict):
        store.append("match-a", notes(9), 0)  # a second version 1
    assert [r.event.n for r in store.read_stream("match-a")] == [1, 2]


def _lose_the_newest(store, stream_id: str, keep: int) -> None:
    """What a failover to a standby that was behind does to a stream: its rows after
    ``keep`` are gone (with their command records), while a running store still holds
    their heads."""
    with create_engine(store.url).begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE stream_id = :s AND version > :v"), {"s": stream_id, "v": keep})
        conn.execute(sa.text("DELETE FROM commands WHERE stream_id = :s AND last_version > :v"),
                     {"s": stream_id, "v": keep})


@pytest.mark.parametrize("how", ["append", "append_commands"])
def test_an_append_after_a_head_the_database_lost_is_a_conflict_writing_nothing(store, how):
    """Issue 42: after a failover that lost a stream's newest events, a service still
    holding the stream as it was appended version 7 after 5. Every append path checks,
    inside its transaction, that its first row follows the stream's stored head."""
    store.append("match-a", notes(1, 2, 3), 0)
    store.append("match-a", notes(4), 3)  # the store now knows the head (match-a, 4)
    _lose_the_newest(store, "match-a", 3)
    head = store.head_position()

    def write(after: int, n: int) -> None:
        if how == "append":
            store.append("match-a", notes(n), after)
        else:
            store.append_commands("match-a", [(notes(n), "ann", None), (notes(n + 1), "bob", None)], after)

    with pytest.raises(ConcurrencyConflict) as info:
        write(4, 5)
    assert (info.value.expected, info.value.actual) == (4, 3)
    assert store.head_position() == head and store.stream_version("match-a") == 3
    write(3, 40)  # after the head the database has, the stream goes on
    assert [r.version for r in store.read_stream("match-a")][:4] == [1, 2, 3, 4]
    assert verify(store).ok


def test_an_append_after_a_head_rewritten_by_another_history_is_a_conflict(store):
    store.append("match-b", notes(1, 2), 0)
    store.append("match-b", notes(3), 2)  # cached head (match-b, 3)
    _lose_the_newest(store, "match-b", 2)
    other = EventStore.open(store.url)
    try:
        other.append("match-b", notes(33), 2)  # version 3 again, another payload and hash
    finally:
        other.close()
    with pytest.raises(ConcurrencyConflict):
        store.append("match-b", notes(4), 3)  # would chain to the lost version 3's hash
    store.read_stream("match-b")  # reading learns the stored head
    store.append("match-b", notes(4), 3)
    assert [r.event for r in store.read_stream("match-b")] == notes(1, 2, 33, 4)
    assert verify(store).ok


def test_repeated_command_id_returns_original_positions_and_writes_nothing(store):
    original = store.append("match-a", notes(1, 2), 0, command_id="cmd-1")
    again = store.append("match-a", notes(1, 2), 0, command_id="cmd-1")
    assert again.duplicate and again.positions == original.positions
    store.append("match-a", notes(3), 2, command_id="cmd-2")
    late = store.append("match-a", notes(1, 2), 3, command_id="cmd-1")  # retried after others moved on
    assert late.duplicate and late.positions == original.positions
    assert store.count_events() == 3
    # the same command id on another stream is another command
    assert not store.append("match-b", notes(1), 0, command_id="cmd-1").duplicate


def test_multi_stream_append_is_applied_once_per_command_id(store):
    batches = [("series-s", notes(1), 0), ("match-c", notes(1, 2), 0)]
    first = store.append_together(batches, command_id="create-1")
    assert [a.duplicate for a in first] == [False, False]
    # one transaction: contiguous positions in batch order (1, 2, 3 on an empty SQLite
    # store; on PostgreSQL they start at the transaction's id << 16)
    start = first[0].positions[0]
    assert [a.positions for a in first] == [[start], [start + 1, start + 2]]
    assert [r.position for r in store.iter_all(0)] == [start, start + 1, start + 2]
    # each stream's records handed back as they read back
    assert [list(a.records) for a in first] == [store.read_stream("series-s"), store.read_stream("match-c")]
    if store.backend == "sqlite":
        assert start == 1
    again = store.append_together(batches, command_id="create-1")
    assert [a.duplicate for a in again] == [True, True]
    assert [a.positions for a in again] == [[start], [start + 1, start + 2]] and store.count_events() == 3
    with pytest.raises(ConcurrencyConflict):  # another command on a stream that moved on
        store.append_together(batches, command_id="create-2")
    assert store.count_events() == 3


#: text a driver that binds values into the statement's text must quote and escape
AWKWARD = "o'brien\"; DROP TABLE events; -- \\x00 %s %(n)s $$ $q$ ☃ \u200b\t\n'"


def test_values_arrive_exactly_as_appended(store):
    """Quotes, backslashes, placeholders, dollar quotes, newlines and non-ASCII text in
    every text column and payload arrive exactly as appended, as does every byte."""
    stream = "match-" + AWKWARD
    events = [Noted(n=-(2**62), text=AWKWARD), Noted(n=2**62, text=bytes(range(256)).decode("latin-1"))]
    appended = store.append(stream, events, 0, command_id=AWKWARD, actor=AWKWARD)
    records = store.read_stream(stream)
    assert [r.event for r in records] == events
    assert {(r.stream_id, r.actor, r.command_id) for r in records} == {(stream, AWKWARD, AWKWARD)}
    assert store.find_command(stream, AWKWARD).positions == appended.positions
    assert store.append(stream, events, 0, command_id=AWKWARD, actor=AWKWARD).duplicate
    assert verify(store).ok


def test_a_big_append_is_one_transaction_in_order(store):
    """More events than one INSERT carries (PostgreSQL splits them) still take
    contiguous positions in order; a conflict in a later INSERT writes none."""
    many = [(notes(i, i + 1), f"p{i % 7}", f"c{i}") for i in range(0, 2600, 2)]
    appended = store.append_commands("big", many, 0)
    positions = [p for a in appended for p in a.positions]
    assert positions == list(range(positions[0], positions[0] + 2600))
    assert [r.event.n for r in store.read_stream("big")] == list(range(2600))
    with pytest.raises(ConcurrencyConflict):  # "big" is at 2600: its row clashes after 1,500 good ones
        store.append_together([("fresh", notes(*range(1500)), 0), ("big", notes(1), 2599)])
    assert store.stream_version("fresh") == 0 and store.count_events() == 2600
    assert store.append("big", notes(9), 2600).positions[0] > positions[-1]


def test_read_all_is_global_order(store):
    store.append("a", notes(1), 0)
    store.append("b", notes(2, 3), 0)
    store.append("a", notes(4), 1)
    assert store.settle()  # PostgreSQL: wait for transactions older than these appends
    all_ = store.read_all(0, 100)
    assert [r.event.n for r in all_] == [1, 2, 3, 4]
    assert [r.position for r in all_] == sorted(r.position for r in all_)
    assert [r.event.n for r in store.read_all(all_[1].position, 2)] == [3, 4]
    assert [r.event.n for r in store.iter_all(0, batch=1)] == [1, 2, 3, 4]
    assert store.head_position() == all_[-1].position
    assert store.streams() == ["a", "b"] and store.streams("a") == ["a"]


def test_old_schema_version_is_upcast_on_read_never_rewritten(store):
    v1_payload = msgspec.msgpack.encode({"type": "test.moved", "seat": 2, "card": "R5"})
    store.append("match-a", [Moved(seat=1, cards=["G1", "G2"])], 0)
    # a row written by an older build: schema version 1, field `card`
    with store.engine.begin() as conn:
        row = conn.execute(sa.text("SELECT * FROM events WHERE stream_id = 'match-a'")).mappings().one()
    from kartludo.store.eventstore import chain_hash

    digest = chain_hash(row["hash"], "match-a", 2, "test.moved", 1, row["recorded_at_us"], "", "old", v1_payload)
    store.insert_rows(
        [("match-a", 2, "test.moved", 1, v1_payload, row["recorded_at_us"], "", "old", row["hash"], digest)],
        [("match-a", "old", 2, 2)],
    )
    records = store.read_stream("match-a")
    assert records[1].event == Moved(seat=2, cards=["R5"]) and records[1].schema_version == 1
    with store.engine.begin() as conn:
        stored = conn.execute(sa.text("SELECT payload FROM events WHERE version = 2")).scalar()
    assert bytes(stored) == v1_payload  # upcast on read only
    assert verify(store).ok


def test_unknown_type_and_bad_payload_are_clear_errors(store):
    store.append("s", notes(1), 0)
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE events SET type = 'test.vanished'"))
    with pytest.raises(UnknownEventType, match="test.vanished"):
        store.read_stream("s")
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE events SET type = 'test.noted', payload = :p"), {"p": b"\x01\x02"})
    with pytest.raises(ValueError, match="does not decode"):
        store.read_stream("s")


def test_verify_accepts_an_untouched_log(store):
    for i in range(5):
        store.append(f"match-{i}", notes(1, 2, 3), 0)
        store.append(f"match-{i}", notes(4), 3)
    report = verify(store)
    assert report.ok and report.streams == 5 and report.events == 20


@pytest.mark.parametrize(
    "tamper, reason",
    [
        ("UPDATE events SET payload = :p WHERE stream_id = 'match-b' AND version = 2", "hash does not match"),
        ("UPDATE events SET hash = :h WHERE stream_id = 'match-b' AND version = 2", "hash does not match"),
        ("UPDATE events SET actor = 'mallory' WHERE stream_id = 'match-b' AND version = 2", "hash does not match"),
        ("DELETE FROM events WHERE stream_id = 'match-b' AND version = 2", "version 3 where 2"),
        ("UPDATE events SET version = version + 10 WHERE stream_id = 'match-b' AND version = 2", "version 3 where 2"),
    ],
)
def test_verify_names_the_first_altered_event(store, tamper, reason):
    store.append("match-a", notes(1, 2, 3), 0)
    store.append("match-b", notes(1, 2, 3), 0)
    with store.engine.begin() as conn:
        conn.execute(sa.text(tamper), {"p": encode(Noted(n=99)), "h": bytes(32)})
    report = verify(store)
    assert not report.ok
    problem = report.problems[0]
    assert problem.stream_id == "match-b" and reason in problem.reason
    assert problem.version in (2, 3) and problem.position > 0


def test_verify_finds_swapped_global_order(store):
    store.append("match-a", notes(1), 0)
    store.append("match-a", notes(2), 1)
    with store.engine.begin() as conn:
        p1, p2 = [r[0] for r in conn.execute(sa.text("SELECT position FROM events ORDER BY position"))]
        conn.execute(sa.text("UPDATE events SET position = :t WHERE position = :a"), {"t": p2 + 100, "a": p1})
        conn.execute(sa.text("UPDATE events SET position = :t WHERE position = :a"), {"t": p1, "a": p2})
    problem = verify(store).problems[0]
    assert problem.version == 2 and "order altered" in problem.reason


def test_export_import_export_is_identical(store, tmp_path):
    store.append("match-a", notes(1, 2), 0, actor="ann", command_id="x")
    store.append("league", [Moved(seat=0, cards=["R1"])], 0)
    store.append("match-a", notes(3), 2, actor="bob")
    first = io.BytesIO()
    assert export_events(store, first) == 4
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    summary = import_events(target, first.getvalue().splitlines(), unsigned=True)
    assert (summary.imported, summary.already_present, summary.streams) == (4, 0, 2)
    second = io.BytesIO()
    export_events(target, second)
    assert second.getvalue() == first.getvalue()
    assert verify(target).ok
    assert [r.event for r in target.read_stream("match-a")] == [r.event for r in store.read_stream("match-a")]
    # importing the same file again is harmless
    again = import_events(target, first.getvalue().splitlines(), unsigned=True)
    assert (again.imported, again.already_present) == (0, 4)
    one = io.BytesIO()
    assert export_events(store, one, "league") == 1
    target.close()


def test_import_continues_a_stream_and_refuses_a_fork(store, tmp_path):
    store.append("match-a", notes(1, 2), 0)
    head = io.BytesIO()
    export_events(store, head)
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    import_events(target, head.getvalue().splitlines(), unsigned=True)
    store.append("match-a", notes(3), 2)
    full = io.BytesIO()
    export_events(store, full)
    assert import_events(target, full.getvalue().splitlines(), unsigned=True).imported == 1
    target.append("match-a", notes(40), 3)
    store.append("match-a", notes(4), 3)
    forked = io.BytesIO()
    export_events(store, forked)
    with pytest.raises(ImportRefused, match="differs"):
        import_events(target, forked.getvalue().splitlines(), unsigned=True)
    assert target.stream_version("match-a") == 4
    target.close()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda line: line.replace(b'"n":2', b'"n":7'), "hash does not match"),
        (lambda line: line.replace(b'"version":2', b'"version":3'), "hash does not match"),
        (lambda line: line.replace(b'"type":"test.noted"', b'"type":"test.gone"'), "unknown event type"),
        (lambda line: b"{not json", "not an exported event"),
    ],
)
def test_import_refuses_a_bad_file_and_writes_nothing(store, tmp_path, edit, message):
    store.append("match-a", notes(1, 2, 3), 0)
    out = io.BytesIO()
    export_events(store, out)
    lines = out.getvalue().splitlines()
    lines[1] = edit(lines[1])
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(ImportRefused, match=message):
        import_events(target, lines, unsigned=True)
    assert target.count_events() == 0
    target.close()


def test_import_refuses_a_gap_in_versions(store, tmp_path):
    store.append("match-a", notes(1, 2, 3), 0)
    out = io.BytesIO()
    export_events(store, out)
    lines = out.getvalue().splitlines()
    del lines[1]
    target = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(ImportRefused, match="version 3 where 2"):
        import_events(target, lines, unsigned=True)
    assert target.count_events() == 0
    target.close()


def test_four_processes_append_to_one_stream(store, db_url):
    """Optimistic concurrency across OS processes: every version written once,
    losers get ConcurrencyConflict and succeed on retry."""
    writers, each = 5, 12
    queue, barrier = fork.Queue(), fork.Barrier(writers)
    procs = [
        fork.Process(target=workers.append_with_retries, args=(db_url, "match-hot", w, each, barrier, queue))
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    records = store.read_stream("match-hot")
    assert [r.version for r in records] == list(range(1, writers * each + 1))
    assert sorted(r.event.n for r in records) == sorted(w * 1000 + i for w in range(writers) for i in range(each))
    for w in range(writers):  # each writer's own events stay in its own order
        mine = [r.event.n for r in records if r.actor == f"w{w}"]
        assert mine == sorted(mine) and len(mine) == each
    assert sum(c for _, c in results) > 0, "no writer ever lost a race: the test did not exercise conflicts"
    assert verify(store).ok


def test_follower_never_skips_an_event_that_commits_late(store, db_url):
    writers, each = 4, 60
    queue = fork.Queue()
    follower = fork.Process(target=workers.follow, args=(db_url, 4.0, queue))
    follower.start()
    time.sleep(0.3)
    procs = [fork.Process(target=workers.append_streams, args=(db_url, w, each)) for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    seen = queue.get(timeout=120)
    follower.join(timeout=30)
    table = [r.position for r in store.iter_all(0)]
    assert len(table) == writers * each * 2
    assert seen == table


def test_schema_revision_matches_alembic_head(db_url):
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "kartludo.store:migrations")
    assert ScriptDirectory.from_config(config).get_current_head() == SCHEMA_REVISION
    engine = create_engine(db_url)
    from kartludo.store.database import upgrade

    assert upgrade(engine) == (None, SCHEMA_REVISION)
    assert current_revision(engine) == SCHEMA_REVISION
    assert upgrade(engine) == (SCHEMA_REVISION, SCHEMA_REVISION)  # idempotent


def test_token_lookups_probe_the_token_index(tmp_path):
    """Resolving a bearer token asks for token events after a position: the plan must
    use the partial index, not walk every event since (migration 0004). Checked on
    SQLite, whose plan does not depend on table statistics as PostgreSQL's does."""
    from kartludo.app.tokens import TokenIndex
    from kartludo.store.database import upgrade
    from kartludo.store.reading import events_query

    engine = create_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    upgrade(engine)
    sql = events_query(types=TokenIndex.TYPES).replace(":p", "0").replace(":n", "1")
    with engine.connect() as conn:
        plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql).fetchall()
    engine.dispose()
    assert any("USING INDEX ix_events_token_position" in row[-1] for row in plan), plan
