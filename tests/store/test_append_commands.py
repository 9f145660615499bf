"""``append_commands``: several commands' events for one stream in one transaction,
stored exactly as appending them one by one would store them (both backends)."""

from __future__ import annotations

import itertools
import os
import uuid
from urllib.parse import quote

import pytest
from sample_events import Moved, Noted

from kartludo.store import ConcurrencyConflict, EventStore
from kartludo.store.database import create_engine, upgrade
from kartludo.store.integrity import verify


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def twin_urls(request, tmp_path):
    """Two fresh, empty databases of the same backend."""
    if request.param == "sqlite":
        yield [f"sqlite:///{tmp_path / f'{name}.db'}" for name in ("one", "two")]
        return
    first = request.getfixturevalue("pg_url")  # skips (or fails) without PostgreSQL
    import psycopg

    server = os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
    schema = "kt_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in server else "?"
    yield [first, f"{server}{sep}options={quote(f'-csearch_path={schema}')}"]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _open(url: str, ticks: itertools.count[int]) -> EventStore:
    upgrade(create_engine(url))
    return EventStore.open(url, clock=lambda: next(ticks))


COMMANDS = [
    ([Noted(n=1), Noted(n=2, text="two")], "ann", "c1"),
    ([Moved(seat=1, cards=["R5"])], "bob", "c2"),
    ([Noted(n=3), Moved(seat=2, cards=["G1", "G2"]), Noted(n=4)], "", "c3"),
]
MORE = [([Noted(n=5)], "cy", "c4"), ([Noted(n=6)], "dan", "c5")]


def test_a_batch_stores_the_rows_of_one_append_per_command(twin_urls):
    # the same recorded times in both stores
    clocks = [itertools.count(1_796_000_000_000_000, 7) for _ in twin_urls]
    single, batched = (_open(url, ticks) for url, ticks in zip(twin_urls, clocks))
    try:
        single.append("other", [Noted(n=0)], 0, command_id="c0")
        batched.append("other", [Noted(n=0)], 0, command_id="c0")
        version = 0
        one_by_one = []
        for events, actor, command_id in COMMANDS:
            one_by_one.append(single.append("s", events, version, command_id=command_id, actor=actor))
            version += len(events)
        together = batched.append_commands("s", COMMANDS, 0)
        batched.close()
        batched = _open(twin_urls[1], clocks[1])  # the next batch reads the stream's head hash from the database
        for events, actor, command_id in MORE:
            one_by_one.append(single.append("s", events, version, command_id=command_id, actor=actor))
            version += len(events)
        together += batched.append_commands("s", MORE, 6)

        assert [(a.first_version, a.last_version, len(a.positions), a.duplicate) for a in together] == [
            (a.first_version, a.last_version, len(a.positions), a.duplicate) for a in one_by_one]
        rows_single, rows_batched = single.stream_rows("s"), batched.stream_rows("s")
        assert len(rows_batched) == 8
        # every column but the global position (PostgreSQL's come from the transaction)
        assert [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r[1:]) for r in rows_batched] == [
            tuple(bytes(v) if isinstance(v, memoryview) else v for v in r[1:]) for r in rows_single]
        if batched.backend == "sqlite":
            assert rows_batched == rows_single and together == one_by_one
        assert [r[0] for r in rows_batched] == [p for a in together for p in a.positions]
        assert [r for a in together for r in a.records] == batched.read_stream("s")  # as they read back
        assert batched.command_rows() == single.command_rows()
        assert verify(batched).ok
    finally:
        single.close()
        batched.close()


def test_a_batch_is_all_or_nothing_under_optimistic_concurrency(store):
    store.append("s", [Noted(n=1)], 0)
    with pytest.raises(ConcurrencyConflict):
        store.append_commands("s", COMMANDS, 0)
    with pytest.raises(ConcurrencyConflict):
        store.append_commands("s", COMMANDS, 2)
    assert store.stream_version("s") == 1
    first = store.append_commands("s", COMMANDS, 1)
    assert [(a.first_version, a.last_version) for a in first] == [(2, 3), (4, 4), (5, 7)]
    # a retried batch (the same command ids) writes nothing and answers with the first
    again = store.append_commands("s", COMMANDS, 1)
    assert [(a.first_version, a.last_version, a.positions, a.duplicate) for a in again] == [
        (a.first_version, a.last_version, a.positions, True) for a in first]
    # one command of the batch already written, another new: a conflict, nothing written
    with pytest.raises(ConcurrencyConflict):
        store.append_commands("s", [COMMANDS[0], MORE[0]], 1)
    assert store.stream_version("s") == 7
    with pytest.raises(ValueError):
        store.append_commands("s", [], 7)
    with pytest.raises(ValueError):
        store.append_commands("s", [([], "ann", None)], 7)
    assert store.stream_version("s") == 7
    # commands without an id get a fresh one each, as single appends do
    store.append_commands("s", [([Noted(n=9)], "ann", None), ([Noted(n=10), Noted(n=11)], "bob", None)], 7)
    ids = [r.command_id for r in store.read_stream("s", 8)]
    assert ids[1] == ids[2] != ids[0] and all(len(i) == 24 and int(i, 16) >= 0 for i in ids)
    assert verify(store).ok
