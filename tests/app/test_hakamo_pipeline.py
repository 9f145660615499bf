"""Hakamo through the match pipeline: simulated matches stored and re-folded."""

from __future__ import annotations

import pytest

from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.matches.simulate import simulate
from kartludo.engine.base import IllegalCommand
from kartludo.events.hakamo import DealScored, MatchEnded
from kartludo.events.match import DealStarted


@pytest.fixture
def svc(store):
    return MatchService(store)


def test_simulated_matches_finish_and_refold_to_the_live_state(svc, store):
    summary = simulate(svc, ["hakamo"], 3, seed=2, bots=["heuristic", "random"], max_deals=100)
    assert summary.matches == 3 and summary.finished == 3
    for mid in summary.match_ids:
        live = svc.load(mid).state
        records = store.read_stream(stream_of(mid))
        assert fold_records(mid, records).state == live
        events = [r.event for r in records]
        assert sum(isinstance(e, DealScored) for e in events) == 8
        assert isinstance(events[-1], MatchEnded)
        assert svc.load(mid).game.result(live).scores == events[-1].totals


def test_deals_and_acts_through_the_service(svc, store):
    mid = svc.create("hakamo", ["ann", "bob", "cy", "dan"], seed=9)
    svc.deal(mid)
    deal = store.read_stream(stream_of(mid))[1].event
    assert isinstance(deal, DealStarted) and deal.dealer == 0 and deal.shuffle == "9:1"
    with pytest.raises(IllegalCommand):
        svc.act(mid, "bob", "pass")
    svc.act(mid, "ann", "bid", ["13"])
    m = svc.load(mid)
    assert svc.state_json(m, None)["to_act"] == ["bob"]
    assert fold_records(mid, store.read_stream(stream_of(mid))).state == m.state
