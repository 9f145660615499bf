"""A series match closed at its deadline is finished, and an Uxinjo match then shows its
`mp` as the contract promises once finished (issue 15)."""

from __future__ import annotations

from scenarios import stock_win_deal

from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.base import ALL, PUBLIC

MINUTE = 60_000_000


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def test_a_match_closed_at_the_deadline_reports_its_mp(store):
    store.clock = clock = Clock(1_796_000_000_000_000)
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 5)
    mid = svc.create("uxinjo", None, series=sid, seed=4)
    stock_win_deal(svc, mid, 2)  # cy wins: +2 from each, the markers stand cy +2/+2
    running = svc.state_json(svc.load(mid), PUBLIC)
    assert running["status"] == "in_progress" and "mp" not in running
    clock.now += 6 * MINUTE
    svc.deal(mid)  # past the deadline: the match closes instead
    for viewer in (PUBLIC, ALL, 0):
        state = svc.state_json(svc.load(mid), viewer)
        assert state["status"] == "finished"
        assert state["mp"] == {"ann": -1, "bob": -1, "cy": 2}
        assert state["totals"] == {"ann": -2, "bob": -2, "cy": 4}


def test_a_match_closed_before_its_first_deal_reports_zero_mp(store, k):
    store.clock = clock = Clock(1_796_000_000_000_000)
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 5)
    mid = svc.create("uxinjo", None, series=sid, seed=4)
    clock.now += 6 * MINUTE
    svc.deal(mid)
    state = svc.state_json(svc.load(mid), PUBLIC)
    assert state["status"] == "finished" and state["mp"] == {"ann": 0, "bob": 0, "cy": 0}


def test_other_games_closed_at_the_deadline_gain_no_mp(store):
    store.clock = clock = Clock(1_796_000_000_000_000)
    svc = MatchService(store)
    sid = create_series(store, "laugavatnsmanni", ["ann", "bob", "cy"], 5)
    mid = svc.create("laugavatnsmanni", None, series=sid, seed=4)
    clock.now += 6 * MINUTE
    svc.deal(mid)
    state = svc.state_json(svc.load(mid), PUBLIC)
    assert state["status"] == "finished" and "mp" not in state
