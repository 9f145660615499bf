"""Projection machinery on every backend: incremental = rebuilt, crash-safe
checkpoints, no double counting with concurrent runners."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time

import pytest
from every_game import Erratic

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import CLUB, play_match
from kartludo.engine.registry import game_names, get_game
from kartludo.projections import all_projections, get_projection, refresh
from kartludo.projections.runner import MatchFolder, catch_up, dump, reset, status

fork = multiprocessing.get_context("fork")


def league(store, matches=3, seed=5):
    """A small league in every game that has landed, refreshing projections as it goes,
    played by erratic bots (they foul, so the audit trail fills, and end their deals)."""
    svc = MatchService(store)
    for game in game_names():
        for i in range(matches):
            rng = random.Random(f"{seed}:{game}:{i}")
            players = rng.sample(CLUB, rng.choice(get_game(game).player_counts))
            play_match(svc, game, players, [Erratic(game)], rng, max_deals=3)
            refresh(store)


def dumps(store):
    return {p.name: dump(store, p) for p in all_projections()}


def test_rebuild_from_zero_equals_incremental(store):
    league(store)
    incremental = dumps(store)
    assert incremental["matches"]["proj_matches"] and incremental["matches"]["proj_results"]
    for p in all_projections():
        reset(store, p)
    assert all(not rows for table in dumps(store).values() for rows in table.values())
    refresh(store)
    assert dumps(store) == incremental
    assert all(lag == 0 for _, _, lag in status(store, all_projections()))


def test_rebuild_in_small_batches_equals_one_pass(store):
    league(store, matches=2)
    reference = dumps(store)
    projection = get_projection("matches")
    reset(store, projection)
    folder = MatchFolder(store)
    while catch_up(store, projection, batch=7, max_batches=1, folder=folder):
        pass
    assert dumps(store) == reference


def _slow_rebuild(url, name):
    from kartludo.store import EventStore

    store = EventStore.open(url, create=False)
    projection = get_projection(name)
    reset(store, projection)
    folder = MatchFolder(store)
    while catch_up(store, projection, batch=5, max_batches=1, folder=folder):
        time.sleep(0.02)


def test_a_rebuild_killed_mid_way_resumes_without_double_counting(store, db_url):
    league(store, matches=2)
    reference = dumps(store)
    head = store.head_position()
    positions = [r.position for r in store.iter_all(0)]
    halfway = positions[len(positions) // 2]  # positions are not dense on PostgreSQL
    proc = fork.Process(target=_slow_rebuild, args=(db_url, "matches"))
    proc.start()
    deadline = time.monotonic() + 60
    position = 0
    while time.monotonic() < deadline:
        position = dict((n, c) for n, c, _ in status(store, all_projections()))["matches"]
        if 0 < position < halfway and position != head:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    assert 0 < position < head, "the rebuild was not caught mid-way"
    lag = dict((n, lag) for n, _, lag in status(store, all_projections()))["matches"]
    assert lag > 0
    refresh(store)  # the next reader resumes from the committed checkpoint
    assert dumps(store) == reference


def _catch_up_all(url):
    from kartludo.store import EventStore

    store = EventStore.open(url, create=False)
    folder = MatchFolder(store)
    for p in all_projections():
        while catch_up(store, p, batch=40, max_batches=1, folder=folder):
            pass


def test_concurrent_runners_never_apply_an_event_twice(store, db_url):
    league(store, matches=2)
    reference = dumps(store)
    for p in all_projections():
        reset(store, p)
    procs = [fork.Process(target=_catch_up_all, args=(db_url,)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert dumps(store) == reference


def test_unknown_projection_is_named():
    with pytest.raises(LookupError, match="no projection 'nope' .projections: matches, series, audit"):
        get_projection("nope")
