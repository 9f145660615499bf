"""The match aggregate owns the match's own facts: one fold step (``Match.apply``) for
every reader, its appeals and decisions checked against the folded match, and
snapshots that carry those facts (an older snapshot format is ignored, never misread)."""

from __future__ import annotations

import pytest
from scenarios import foul_then_void_win, stock_win_deal

from kartludo.app.audit.rulings import appeal, decide
from kartludo.app.audit.trail import resolve_ruling
from kartludo.app.errors import AppError, NotAllowed
from kartludo.app.league.series import create_series
from kartludo.app.matches import snapshots
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine import match as aggregate
from kartludo.events.match import MatchClosed, RulingAppealed, RulingDecided
from kartludo.store import snapshots as table

RULING = "uxinjo-d1-Or"


def test_a_closure_is_the_matchs_and_the_engine_never_folds_it(store):
    clock = [1_796_000_000_000_000]
    store.clock = lambda: clock[0]
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 5)
    mid = svc.create("uxinjo", None, series=sid, seed=4)
    stock_win_deal(svc, mid, 2)
    clock[0] += 6 * 60_000_000
    closed = svc.deal(mid)
    assert [type(e) for e in closed.events] == [MatchClosed]
    records = store.read_stream(stream_of(mid))
    match = aggregate.fold(mid, records)
    before = aggregate.fold(mid, records[:-1])
    assert match.closed and not before.closed and match.over and match.status == "finished"
    assert match.state == before.state  # the game state is as the last deal left it
    assert aggregate.step(match.game, before.state, records[-1].event) == before.state
    assert aggregate.describe(match.game, before.state, records[-1].event, 0, match.players).startswith(
        "match closed after deal 1: series")
    with pytest.raises(AppError, match="is closed: no more deals"):
        svc.deal(mid)
    with pytest.raises(AppError, match="closed: no more deals"):
        aggregate.close(match, "again")
    assert len(store.read_stream(stream_of(mid))) == len(records)


def test_appeals_and_decisions_are_decided_on_the_folded_match(store):
    svc = MatchService(store)
    mid = foul_then_void_win(svc)
    record = resolve_ruling(store, f"{mid}/{RULING}")
    match = svc.load(mid)
    assert match.disputes == {}
    with pytest.raises(AppError, match="has no appeal to decide"):
        aggregate.decide(match, RULING, "mia", "uphold", "x")
    events = aggregate.appeal(match, RULING, "ann", "no foul")
    assert events == [RulingAppealed(ruling_id=RULING, by="ann", reason="no foul")]
    appeal(store, record, "ann", "no foul")
    match = svc.load(mid)
    assert match.disputes[RULING] == aggregate.Dispute("ann")
    with pytest.raises(AppError, match=r" Ann already appealed ruling .*: each person appeals once"):
        aggregate.appeal(match, RULING, " Ann", "again")
    # another player's appeal is recorded beside the first, not refused (the RULING on appeals)
    appeal(store, record, "bob", "me too")
    match = svc.load(mid)
    assert match.disputes[RULING] == aggregate.Dispute("ann", also_by=("bob",))
    assert match.disputes[RULING].appellants == ("ann", "bob")
    for appellant in ("ANN", "Bob"):
        with pytest.raises(NotAllowed, match=f"{appellant} made this appeal"):
            aggregate.decide(match, RULING, appellant, "uphold", "x")
    decide(store, record, "mia", "overturn", "miscounted")
    match = svc.load(mid)
    assert match.disputes[RULING] == aggregate.Dispute("ann", "overturn", "mia", ("bob",))
    with pytest.raises(AppError, match=r"already decided \(overturn\) by mia"):
        aggregate.appeal(match, RULING, "bob", "again")
    last = store.read_stream(stream_of(mid))[-1].event
    assert isinstance(last, RulingDecided)
    # a fresh fold and a cold load (from whatever snapshot) agree on every fact
    full = aggregate.fold(mid, store.read_stream(stream_of(mid)))
    cold = MatchService(store).load(mid)
    assert (cold.state, cold.closed, cold.disputes, cold.version) == (
        full.state, full.closed, full.disputes, full.version)


def test_a_snapshot_carries_the_disputes_and_an_older_format_is_ignored(store, monkeypatch):
    svc = MatchService(store)
    mid = foul_then_void_win(svc)
    appeal(store, resolve_ruling(store, f"{mid}/{RULING}"), "ann", "no foul")
    full = aggregate.fold(mid, store.read_stream(stream_of(mid)))
    state, closed, disputes = snapshots.decode(full.game, full.created, snapshots.encode(full))
    assert (state, closed, disputes) == (full.state, full.closed, full.disputes)
    code = snapshots.code_of(full.game, full.created)
    assert f"/{snapshots.FORMAT}/" in code and snapshots.FORMAT >= 2
    # a snapshot stored by the format before (state and closed only) sits under another code
    import msgspec

    old_code = code.replace(f"/{snapshots.FORMAT}/", "/1/")
    last = store.read_stream(stream_of(mid))[-1]
    table.save(store, stream_of(mid), old_code, full.version, last.hash,
               msgspec.msgpack.encode((full.state, full.closed)))
    snapshots._latest.clear()
    loaded = snapshots.load(store, mid)
    assert (loaded.state, loaded.disputes, loaded.version) == (full.state, full.disputes, full.version)
