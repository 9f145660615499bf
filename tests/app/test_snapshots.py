"""Snapshots of folded match state change no result: a load from the nearest snapshot
equals the full fold, in every game; a snapshot of other rules or another history is
ignored; a dropped table is created and filled again."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from every_game import Erratic, heuristic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.app.matches import snapshots
from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.matches.simulate import CLUB, pick_bots, play_match
from kartludo.engine.registry import game_names, get_game
from kartludo.store import EventStore
from kartludo.store import snapshots as table


@pytest.fixture(autouse=True)
def often(monkeypatch):
    """Snapshots every few events, so short matches have many."""
    monkeypatch.setattr(snapshots, "EVERY", 5)
    snapshots._latest.clear()
    yield
    snapshots._latest.clear()


def _play(store: EventStore, game: str, seed: int, deals: int = 4) -> str:
    rng = random.Random(seed)
    players = rng.sample(CLUB, rng.choice(get_game(game).player_counts))
    bot = rng.choice([Erratic(game), heuristic(game)])
    match_id, _, _ = play_match(MatchService(store), game, players, [bot], rng, max_deals=deals, max_commands=600)
    return match_id


def _full(store: EventStore, match_id: str):
    return fold_records(match_id, store.read_stream(stream_of(match_id)))


def _rows(store: EventStore) -> int:
    with store.engine.connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM snapshots")).scalar()


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(game=st.sampled_from(sorted(game_names())), seed=st.integers(0, 10**6), deals=st.integers(1, 5))
def test_a_load_from_a_snapshot_equals_the_full_fold(tmp_path_factory, game, seed, deals):
    store = EventStore.open(f"sqlite:///{tmp_path_factory.mktemp('s') / 'm.db'}")
    try:
        match_id = _play(store, game, seed, deals)
        full = _full(store, match_id)
        for _ in range(2):  # the first load may write a snapshot, the second starts from it
            snapshots._latest.clear()
            loaded = snapshots.load(store, match_id)
            assert (loaded.state, loaded.version, loaded.closed, loaded.disputes) == (
                full.state, full.version, full.closed, full.disputes)
        # every snapshot kept decodes to the state the fold had at its version
        with store.engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT version, state FROM snapshots")).all()
        records = store.read_stream(stream_of(match_id))
        for version, data in rows:
            at = fold_records(match_id, records[:version])
            assert snapshots.decode(full.game, full.created, bytes(data)) == (at.state, at.closed, at.disputes)
    finally:
        store.close()


def test_every_game_writes_and_uses_snapshots(store):
    for i, game in enumerate(sorted(game_names())):
        match_id = _play(store, game, i, deals=3)
        snapshots._latest.clear()
        loaded = snapshots.load(store, match_id)
        full = _full(store, match_id)
        assert (loaded.state, loaded.version) == (full.state, full.version)
        assert table.nearest(store, stream_of(match_id), snapshots.code_of(full.game, full.created)) is not None
        assert MatchService(store).load(match_id).state == full.state


def test_a_snapshot_of_other_rules_or_another_history_is_ignored(store):
    match_id = _play(store, "uxinjo", 3, deals=4)
    full = _full(store, match_id)
    stream = stream_of(match_id)
    code = snapshots.code_of(full.game, full.created)
    assert "uxinjo-" in code  # the ruleset is part of the key
    # newer snapshots that must not be used: another ruleset's, and one of another history
    bogus = snapshots.encode(fold_records(match_id, store.read_stream(stream)[:1]))
    last = store.read_stream(stream)[-1]
    table.save(store, stream, code.replace(full.game.ruleset, "uxinjo-0"), full.version, last.hash, bogus)
    table.save(store, stream, code, full.version, bytes(32), bogus)
    snapshots._latest.clear()
    loaded = snapshots.load(store, match_id)
    assert (loaded.state, loaded.version) == (full.state, full.version)
    assert table.nearest(store, stream, code.replace(full.game.ruleset, "uxinjo-0")) is not None  # kept, unused


def test_a_dropped_table_is_created_and_filled_again(store):
    match_id = _play(store, "hakamo", 1, deals=3)
    with store.engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE snapshots"))
    snapshots._latest.clear()
    full = _full(store, match_id)
    loaded = MatchService(store).load(match_id)  # folds from the start, writes a snapshot again
    assert (loaded.state, loaded.version) == (full.state, full.version)
    assert _rows(store) >= 1
    snapshots._latest.clear()
    assert snapshots.load(store, match_id).state == full.state


def test_an_overturn_after_a_snapshot_recomputes_from_the_snapshots_ledger(store):
    """Uxinjo keeps its ledger packed; an overturn of the first foul, decided on a match
    loaded from a snapshot, reads that ledger back and gives the full fold's markers."""
    from kartludo.engine import match as aggregate
    from kartludo.events.uxinjo import Foul

    svc = MatchService(store)
    rng = random.Random(7)
    match_id, _, _ = play_match(svc, "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", ["random"]), rng,
                                max_deals=12, max_commands=2000)
    records = store.read_stream(stream_of(match_id))
    fouls = [r.event for r in records if isinstance(r.event, Foul)]
    assert len(fouls) >= 2, "random bots foul: the match needs rulings to overturn"
    first = fouls[0].ruling_id
    snapshots._latest.clear()
    loaded = svc.load(match_id)  # writes a snapshot past the first foul
    snap = table.nearest(store, stream_of(match_id), snapshots.code_of(loaded.game, loaded.created))
    assert snap is not None and snap.version > next(r.version for r in records if isinstance(r.event, Foul))
    svc.execute(match_id, lambda m: aggregate.appeal(m, first, "ann", "no foul"), actor="ann")
    svc.execute(match_id, lambda m: aggregate.decide(m, first, "mia", "overturn", "miscounted"), actor="mia")
    snapshots._latest.clear()
    cold = MatchService(store).load(match_id)
    full = _full(store, match_id)
    assert cold.state == full.state
    assert first not in [rid for seat in full.state.penalties for rid in seat]
    assert cold.state.ledger.count == len(fouls) + sum(
        1 for r in records if type(r.event).__name__ in ("Settled", "DealDrawn"))


def test_the_table_keeps_the_newest_rows_of_a_stream_and_code_and_replaces_one_written_again(store):
    """The store's own contract, apart from folding: a row written again at its
    version replaces it; each (stream, code) keeps its newest ``KEEP`` rows, whatever
    another stream or code holds."""
    for version in range(1, table.KEEP + 3):
        assert table.save(store, "m-a", "c1", version, bytes([version]) * 32, b"a%d" % version)
    assert table.save(store, "m-a", "c2", 1, bytes(32), b"other code")
    assert table.save(store, "m-b", "c1", 1, bytes(32), b"other stream")
    newest = table.KEEP + 2
    assert table.save(store, "m-a", "c1", newest, bytes([99]) * 32, b"again")
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT stream_id, code, version FROM snapshots "
                                    "ORDER BY stream_id, code, version")).all()
    assert [tuple(r) for r in rows] == (
        [("m-a", "c1", v) for v in range(newest - table.KEEP + 1, newest + 1)]
        + [("m-a", "c2", 1), ("m-b", "c1", 1)])
    snap = table.nearest(store, "m-a", "c1")
    assert (snap.version, snap.event_hash, snap.state) == (newest, bytes([99]) * 32, b"again")
    assert table.nearest(store, "m-a", "c1", below=newest).state == b"a%d" % (newest - 1)
