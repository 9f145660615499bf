"""Batched catch-up writes exactly what one event at a time writes, on any log.

The projections take a batch of events at once and write each table with a few
statements (the last write of a row in the batch is the one that stands); this checks
that it makes no difference against applying every event alone, over random logs:
matches of every game played by random and heuristic bots, series, rulings with
appeals and decisions, and projections that start at different checkpoints.
"""

from __future__ import annotations

import random
import threading

from every_game import Erratic, games, heuristic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.app.audit.rulings import appeal, decide
from kartludo.app.audit.trail import list_rulings
from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import CLUB, play_match
from kartludo.engine.registry import game_names, get_game
from kartludo.projections import all_projections
from kartludo.projections.runner import MatchFolder, catch_up, dump, reset
from kartludo.store import EventStore

#: (game, bot, deals) per match of a random log: erratic bots foul (rulings for the audit trail)
MATCHES = st.lists(st.tuples(st.sampled_from(sorted(game_names())), st.sampled_from(["erratic", "heuristic"]),
                             st.integers(1, 4)), min_size=1, max_size=5)


def _random_log(store: EventStore, plan: list[tuple[str, str, int]], seed: int) -> None:
    rng = random.Random(seed)
    svc = MatchService(store)
    for i, (game, bot, deals) in enumerate(plan):
        players = rng.sample(CLUB, get_game(game).player_counts[0])
        series = None
        if rng.random() < 0.3:
            series = create_series(store, game, players, 60, actor="td")
        play_match(svc, game, players, [Erratic(game) if bot == "erratic" else heuristic(game)], rng,
                   max_deals=deals, max_commands=400, series=series)
        for r in list_rulings(store):
            if r.status == "standing" and rng.random() < 0.5:
                appeal(store, r, r.player, "not a foul")
                if rng.random() < 0.7:
                    decide(store, r, f"td{i}", rng.choice(["uphold", "overturn"]), "looked again")


def _dumps(store: EventStore) -> dict:
    return {p.name: dump(store, p) for p in all_projections()}


def _one_at_a_time(store: EventStore) -> dict:
    """Every projection rebuilt one event at a time (its tables), then emptied again."""
    projections = all_projections()
    for p in projections:
        reset(store, p)
    folder = MatchFolder(store)
    while catch_up(store, projections, batch=1, max_batches=1, folder=folder):
        pass
    out = _dumps(store)
    for p in projections:
        reset(store, p)
    return out


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(plan=MATCHES, seed=st.integers(0, 10**6), batch=st.integers(2, 300), behind=st.integers(0, 3))
def test_batched_catch_up_equals_one_event_at_a_time(tmp_path_factory, plan, seed, batch, behind):
    path = tmp_path_factory.mktemp("log") / "log.db"
    store = EventStore.open(f"sqlite:///{path}")
    try:
        _random_log(store, plan, seed)
        projections = all_projections()
        one_at_a_time = _one_at_a_time(store)
        assert one_at_a_time["matches"]["proj_matches"]
        # rebuilt in batches, with some projections reset part way (so they start behind the others)
        catch_up(store, projections, batch=batch, max_batches=behind)
        for p in projections[:behind % len(projections)]:
            reset(store, p)
        catch_up(store, projections, batch=batch)
        assert _dumps(store) == one_at_a_time
    finally:
        store.close()


def test_rebuild_in_chunks_equals_one_event_at_a_time_on_every_backend(store):
    """The batched writes (prebuilt driver statements) on each backend: one event at a time
    against chunks of odd sizes, each by a fresh runner that refolds its matches from the
    store (a resumed catch-up), with appeals, decisions and series in the log."""
    plan = [(game, "erratic", 2) for game in games()] + [("uxinjo", "erratic", 4), ("uxinjo", "erratic", 3)]
    _random_log(store, plan, seed=7)
    projections = all_projections()
    one_at_a_time = _one_at_a_time(store)
    assert one_at_a_time["audit"]["proj_rulings"] and one_at_a_time["matches"]["proj_results"]
    sizes = iter([37, 1, 250, 3, 999] * 1000)
    while catch_up(store, projections, batch=next(sizes), max_batches=1):
        pass
    assert _dumps(store) == one_at_a_time


def test_catching_up_raises_the_young_gc_threshold_and_always_restores_it():
    """Threads catching up at once share the raised threshold; the last one out (by
    an exception too) puts back what was there before."""
    import gc
    import threading

    from kartludo.projections.runner import BATCH_GC_THRESHOLD, _fewer_collections

    before = gc.get_threshold()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with _fewer_collections():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    try:
        with _fewer_collections():
            raise RuntimeError("a projection failed")
    except RuntimeError:
        pass
    assert gc.get_threshold()[0] == max(before[0], BATCH_GC_THRESHOLD)  # the other thread still catches up
    release.set()
    thread.join(10)
    assert gc.get_threshold() == before


def test_inserted_rows_read_back_exactly_whatever_their_text(store):
    """``insert_rows`` (COPY on PostgreSQL, executemany elsewhere) keeps every value:
    text with tabs, newlines, backslashes, quotes and non-ASCII, NULL against the
    string "\\N", booleans and 64-bit integers."""
    import sqlalchemy as sa

    from kartludo.projections.runner import insert_rows
    from kartludo.projections.schema import matches, results

    texts = ["tab\there", "line\nbreak\r\n", "back\\slash \\N", "quote ' \" ;", "Þórður ŝajnas 牌", "\\N", ""]
    match_rows = [(f"m{i}", "uxinjo", "in_progress", i, text, None if i % 2 else text, 2**62 + i, -i,
                   None if i % 3 else 2**63 - 1) for i, text in enumerate(texts)]
    result_rows = [("m0", f"p{i}", "hakamo", i, 4, -2**31 + i, i, i % 2 == 0, None if i % 2 else -7, i, -i,
                    i % 2 == 1, None if i < 2 else "s\t1", 2**40 + i, 2**62) for i in range(4)]
    with store.engine.begin() as conn:
        insert_rows(conn, matches, match_rows)
        insert_rows(conn, results, result_rows)
    with store.engine.connect() as conn:
        got = [tuple(r) for r in conn.execute(sa.select(matches).order_by(matches.c.deal))]
        got_results = [tuple(r) for r in conn.execute(sa.select(results).order_by(results.c.seat))]
    assert got == match_rows
    assert got_results == result_rows


def _watch_read_ahead(monkeypatch) -> list[tuple[int, int, bool]]:
    """(batch start, where the read ahead began, whether it was used) per batch that
    had one."""
    from kartludo.projections import runner

    seen: list[tuple[int, int, bool]] = []
    records = runner._Ahead.records

    def watched(self, start):
        got = records(self, start)
        seen.append((start, self.after, got is not None))
        return got

    monkeypatch.setattr(runner._Ahead, "records", watched)
    return seen


def test_batches_read_ahead_while_the_one_before_writes_and_write_what_one_at_a_time_writes(store, monkeypatch):
    """On a database server a catch-up of many batches reads each next batch on another
    connection while the one before it folds and writes: the reads are used, and the
    tables are what one event at a time gives (SQLite reads each batch in its own turn)."""
    _random_log(store, [("uxinjo", "erratic", 3), ("hakamo", "heuristic", 1)], seed=11)
    expected = _one_at_a_time(store)
    seen = _watch_read_ahead(monkeypatch)
    read = catch_up(store, all_projections(), batch=13)
    assert read == store.count_events(after=0)
    if store.engine.dialect.name == "sqlite":
        assert seen == []
    else:
        assert len(seen) >= 3 and all(used and start == after for start, after, used in seen)
    assert _dumps(store) == expected


def test_a_read_ahead_is_dropped_when_another_runner_moved_the_checkpoints_meanwhile(store, monkeypatch):
    """Between two batches of one runner another runner catches up to the end: the
    first runner's read ahead (events the other has written since) is not applied
    again, and the tables are what one event at a time gives."""
    _random_log(store, [("uxinjo", "erratic", 2), ("laugavatnsmanni", "heuristic", 1)], seed=5)
    expected = _one_at_a_time(store)
    seen = _watch_read_ahead(monkeypatch)
    connect = store.engine.connect
    main = threading.current_thread()
    state = {"connects": 0, "rival": None}

    def connect_with_a_rival(*a, **kw):
        if threading.current_thread() is main and state["rival"] is None:
            state["connects"] += 1
            if state["connects"] == 3:  # _behind's, the first batch's, now the second batch's
                state["rival"] = 0
                state["rival"] = catch_up(store, all_projections(), batch=50)
                seen.clear()  # the rival's own reads ahead
        return connect(*a, **kw)

    monkeypatch.setattr(store.engine, "connect", connect_with_a_rival)
    first = catch_up(store, all_projections(), batch=10)
    monkeypatch.undo()
    assert first == 10 and state["rival"] == store.count_events(after=0) - 10
    if store.engine.dialect.name == "sqlite":
        assert seen == []  # no read ahead there: the second batch simply found nothing left
    else:
        [(start, after, used)] = seen  # the second batch's: it began at the rival's end, past the read ahead
        assert start > after and not used
    assert _dumps(store) == expected
