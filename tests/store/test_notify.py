"""PostgreSQL NOTIFYs leave the append's round trip: one thread per process sends
them (``store.postgres.Notifier``). Whatever path an append takes, a listener hears of
every stream written: soon, after ``close``, and when the process simply ends."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid

import psycopg
import pytest

from kartludo.events.uxinjo import Drew
from kartludo.store import EventStore
from kartludo.store.database import create_engine, upgrade
from kartludo.store.postgres import ANY_STREAM, Notifier
from kartludo.store.schema import NOTIFY_CHANNEL

pytestmark = pytest.mark.postgres

#: how long a test waits for a NOTIFY before it fails (the notifier sends within ms)
WAIT_S = 20.0


def _listener(pg_url: str) -> psycopg.Connection:
    conn = psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"), autocommit=True)
    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
    return conn


def _heard(conn: psycopg.Connection, wanted: set[str], wait: float = WAIT_S) -> set[str]:
    """The payloads of ``wanted`` heard within ``wait`` seconds (other tests share the
    channel: their payloads are ignored)."""
    heard: set[str] = set()
    deadline = time.monotonic() + wait
    while heard != wanted and time.monotonic() < deadline:
        for note in conn.notifies(timeout=0.2, stop_after=1):
            if note.payload in wanted:
                heard.add(note.payload)
    return heard


def _drew(n: int = 1) -> list[Drew]:
    return [Drew(seat=k % 3, card="R7") for k in range(n)]


@pytest.fixture
def db_url(pg_url):
    """Here the shared ``store`` fixture's database is PostgreSQL only."""
    return pg_url


def test_every_stream_appended_is_notified_by_every_kind_of_append(store, pg_url):
    tag = uuid.uuid4().hex[:8]
    one, many, a, b = (f"match-{tag}-{name}" for name in ("one", "cmds", "a", "b"))
    with _listener(pg_url) as listen:
        store.append(one, _drew(3), 0, actor="t")
        store.append_commands(many, [(_drew(2), "t", "c1"), (_drew(1), "t", None)], 0)
        store.append_together([(a, _drew(1), 0), (b, _drew(2), 0)], actor="t")
        assert _heard(listen, {one, many, a, b}) == {one, many, a, b}


def test_close_sends_what_is_due_and_stops_the_thread(pg_url):
    upgrade(create_engine(pg_url))
    store = EventStore.open(pg_url)
    stream = f"match-{uuid.uuid4().hex[:8]}"
    with _listener(pg_url) as listen:
        notifier = store._driver.notifier
        notifier.WINDOW_S = 30.0  # left alone, this NOTIFY would wait half a minute
        store.append(stream, _drew(), 0, actor="t")
        started = time.monotonic()
        store.close()
        assert time.monotonic() - started < notifier.WINDOW_S, "close waited for the window instead of sending"
        assert _heard(listen, {stream}, wait=1.0) == {stream}, "close returned before its NOTIFY was sent"
    assert notifier._thread is None


def test_a_process_that_appends_and_ends_still_wakes_the_listeners(pg_url):
    """A CLI command's process: it appends, never closes its store, and exits."""
    upgrade(create_engine(pg_url))
    stream = f"match-{uuid.uuid4().hex[:8]}"
    script = (
        "import sys\n"
        "from kartludo.events.uxinjo import Drew\n"
        "from kartludo.store import EventStore\n"
        "from kartludo.store.postgres import Notifier\n"
        "Notifier.WINDOW_S = 30.0\n"  # only the exit's flush can send it in time
        "store = EventStore.open(sys.argv[1])\n"
        "store.append(sys.argv[2], [Drew(seat=0, card='R7')], 0, actor='t')\n"
    )
    with _listener(pg_url) as listen:
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", script, pg_url, stream], check=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert time.monotonic() - started < 30.0, "the process waited for the window instead of sending at exit"
        assert _heard(listen, {stream}, wait=1.0) == {stream}


def test_an_idle_notifier_ends_its_thread_and_the_next_append_starts_one(store, pg_url):
    notifier = store._driver.notifier
    notifier.LINGER_S = 0.2
    tag = uuid.uuid4().hex[:8]
    with _listener(pg_url) as listen:
        store.append(f"match-{tag}-1", _drew(), 0, actor="t")
        assert _heard(listen, {f"match-{tag}-1"}) == {f"match-{tag}-1"}
        deadline = time.monotonic() + WAIT_S
        while notifier._thread is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert notifier._thread is None, "the notifier's thread outlived its linger"
        store.append(f"match-{tag}-2", _drew(), 0, actor="t")
        assert _heard(listen, {f"match-{tag}-2"}) == {f"match-{tag}-2"}


def test_an_import_notifies_any_stream_through_the_notifier(store, pg_url, tmp_path):
    """A bulk import names no stream: it posts ``ANY_STREAM`` like any other write
    (one way to send a NOTIFY), and close() sends it."""
    import io

    from kartludo.store.transfer import export_events, import_events

    source = EventStore.open(f"sqlite:///{tmp_path / 'source.db'}")
    source.append(f"match-{uuid.uuid4().hex[:8]}", _drew(2), 0, actor="t")
    exported = io.BytesIO()
    export_events(source, exported)
    source.close()
    with _listener(pg_url) as listen:
        store._driver.notifier.WINDOW_S = 30.0  # only close() can send it in time
        import_events(store, exported.getvalue().splitlines(), unsigned=True)
        store.close()
        assert _heard(listen, {ANY_STREAM}, wait=1.0) == {ANY_STREAM}


def test_appends_from_many_threads_are_all_notified(store, pg_url):
    tag = uuid.uuid4().hex[:8]
    streams = {f"match-{tag}-{i}-{n}" for i in range(8) for n in range(25)}

    def run(i: int) -> None:
        for n in range(25):
            store.append(f"match-{tag}-{i}-{n}", _drew(), 0, actor="t")

    with _listener(pg_url) as listen:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert _heard(listen, streams) == streams


def test_more_streams_than_it_names_in_one_window_notify_any_stream(pg_url):
    sent: list[list[str]] = []

    class Recording(Notifier):
        @staticmethod
        def _send(conn, streams):
            sent.append(list(streams))
            Notifier._send(conn, streams)

    with _listener(pg_url) as listen:
        notifier = Recording(lambda: psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"),
                                                     autocommit=True))
        notifier.WINDOW_S = 30.0
        names = [f"s-{i}" for i in range(Notifier.MOST_NAMED + 1)]
        notifier.post(names[:10])
        notifier.post(names[10:])
        assert notifier.flush()
        notifier.close()
        assert sent == [[ANY_STREAM]]
        assert _heard(listen, {ANY_STREAM}) == {ANY_STREAM}


def test_a_failed_notify_is_sent_again_once_the_database_answers(pg_url, caplog):
    attempts: list[int] = []
    with _listener(pg_url) as listen:

        def connect():
            attempts.append(1)
            if len(attempts) == 1:
                raise psycopg.OperationalError("the database is restarting")
            return psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"), autocommit=True)

        notifier = Notifier(connect)
        notifier.RETRY_S = 0.1
        stream = f"match-{uuid.uuid4().hex[:8]}"
        notifier.post([stream])
        assert notifier.flush(timeout=WAIT_S)
        notifier.close()
        assert len(attempts) == 2
        assert "NOTIFY failed (the database is restarting)" in caplog.text
        assert _heard(listen, {stream}) == {stream}


def test_a_store_used_and_closed_leaves_no_thread(pg_url):
    upgrade(create_engine(pg_url))
    threads = []
    for n in range(3):
        store = EventStore.open(pg_url)
        store.append(f"match-{uuid.uuid4().hex[:8]}-{n}", _drew(), 0, actor="t")
        threads.append(store._driver.notifier._thread)
        store.close()
        assert store._driver.notifier._thread is None
    assert all(t is not None and not t.is_alive() for t in threads)
