"""Laugavatnsmanni through the match pipeline on every backend: simulated matches,
re-folded from the store, equal the live state and all finish."""

from __future__ import annotations

from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.matches.simulate import simulate
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI
from kartludo.events.laugavatnsmanni import DealScored, MatchEnded


def test_simulated_matches_refold_and_finish(store):
    svc = MatchService(store)
    summary = simulate(svc, ["laugavatnsmanni"], 3, seed=11, bots=["heuristic", "random"])
    assert summary.matches == 3 and summary.finished == 3
    for mid in summary.match_ids:
        live = svc.load(mid, refresh=False).state
        records = store.read_stream(stream_of(mid))
        assert fold_records(mid, records).state == live
        assert LAUGAVATNSMANNI.is_finished(live)
        events = [r.event for r in records]
        assert isinstance(events[-1], MatchEnded)
        assert sum(isinstance(e, DealScored) for e in events) == live.deal <= 18
        result = LAUGAVATNSMANNI.result(live)
        assert result.scores == dict(zip(live.players, live.totals))


def test_state_json_has_the_documented_fields(store):
    svc = MatchService(store)
    mid = svc.create("laugavatnsmanni", ["ann", "bob", "cy"], seed=4)
    svc.deal(mid)
    data = svc.state_json(svc.load(mid), 2)
    for key in ("match", "game", "status", "deal", "phase", "to_act", "players", "hands", "totals",
                "contract", "declarer", "used_contracts", "tricks", "manni_count", "great_call"):
        assert key in data, key
    assert data["to_act"] == ["bob"] and list(data["hands"]) == ["cy"] and len(data["hands"]["cy"]) == 16
    svc.act(mid, "bob", "contract", ["spades"])
    data = svc.state_json(svc.load(mid), None)
    assert data["contract"] == "spades" and data["phase"] == "great" and data["to_act"] == ["cy"]
    assert data["used_contracts"] == {"ann": [], "bob": ["spades"], "cy": []}
