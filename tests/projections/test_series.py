"""Time-limited series (Uxinjo's §6.x rules) with an injected clock."""

from __future__ import annotations

import json

import every_game
import pytest
from click.testing import CliRunner
from every_game import games
from scenarios import foul_deal, stock_win_deal, win_match

from kartludo.app.errors import AppError
from kartludo.app.league.series import create_series, load_series, series_report
from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.main import cli
from kartludo.engine.base import BadCommand

MINUTE = 60_000_000
T0 = 1_796_000_000_000_000


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock(store):
    c = Clock(T0)
    store.clock = c
    return c


def test_seats_pass_left_per_match_ended_and_mp_count_fouls(store, clock):
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 60)
    first = svc.create("uxinjo", None, series=sid, seed=1)
    assert svc.load(first).players == ["ann", "bob", "cy"]
    foul_deal(svc, first, 0)          # ann fouls: penalty, and -2 MP in the series
    stock_win_deal(svc, first, 1)     # bob wins 3 from each
    clock.now += 10 * MINUTE
    report = series_report(store, sid)
    rows = {r.player: r for r in report.standings}
    # after one deal the running match stands at its markers: bob +2/+2 -> +1 MP per marker
    assert (rows["bob"].match_points, rows["ann"].match_points, rows["cy"].match_points) == (2, -1, -1)
    assert (rows["ann"].fouls, rows["ann"].foul_mp, rows["ann"].total) == (1, -2, -3)
    win_match(svc, first, 1)          # bob's markers reach finito: the match ends, its MP given
    second = svc.create("uxinjo", None, series=sid, seed=2)
    assert svc.load(second).players == ["bob", "cy", "ann"]  # the new Or is the old Su
    win_match(svc, second, 2)
    with pytest.raises(AppError, match="seats cy,ann,bob"):
        svc.create("uxinjo", ["ann", "bob", "cy"], series=sid)
    report = series_report(store, sid)
    rows = {r.player: r for r in report.standings}
    # bob's own finito in the first match (+3 per marker), ann's in the second
    assert (rows["bob"].match_points, rows["ann"].match_points, rows["cy"].match_points) == (3, 3, -6)
    assert (rows["ann"].fouls, rows["ann"].foul_mp, rows["ann"].total) == (1, -2, 1)
    assert [m["match"] for m in report.matches] == [first, second] and not report.ended
    assert [m["seats"] for m in report.matches] == [["ann", "bob", "cy"], ["bob", "cy", "ann"]]
    assert load_series(store, sid).match_ids == [first, second]


@pytest.mark.parametrize("game", games())
def test_a_series_next_match_waits_for_the_one_before_to_end(store, clock, game):
    """Series-order RULING (Uxinjo's §6.3, held for every game's series): no match is
    created while an earlier one of the series runs, and the refusal writes nothing."""
    import random

    from kartludo.app.matches.simulate import pick_bots, play_match

    players = every_game.players(game)
    svc = MatchService(store)
    sid = create_series(store, game, players, 600)
    first = svc.create(game, None, series=sid, seed=1)
    count = store.count_events()
    with pytest.raises(AppError, match=rf"^series {sid}: match {first} is still in progress \(not dealt yet\): "
                                       "its next match starts once it has ended$"):
        svc.create(game, None, series=sid, seed=2)
    assert store.count_events() == count
    svc.deal(first)
    count = store.count_events()
    with pytest.raises(AppError, match=rf"match {first} is still in progress \(deal 1\)"):
        svc.create(game, None, series=sid)
    assert store.count_events() == count and load_series(store, sid).match_ids == [first]
    play_match(svc, game, players, pick_bots(game, None), random.Random(1), match_id=first, max_deals=10_000)
    assert svc.load(first).over
    second = svc.create(game, None, series=sid, seed=2)
    assert svc.load(second).players == players[1:] + players[:1]


def test_no_match_starts_after_the_deadline_and_a_running_match_ends_with_its_deal(store, clock):
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 30)
    mid = svc.create("uxinjo", None, series=sid, seed=3)
    stock_win_deal(svc, mid, 0)               # deal 1 ends before the deadline
    dealer = svc.load(mid).game.next_dealer(svc.load(mid).state)
    svc.deal(mid)                             # deal 2 starts before the deadline
    clock.now += 31 * MINUTE                  # the deadline passes during deal 2
    with pytest.raises(AppError, match="ended at .*no match starts after its deadline"):
        svc.create("uxinjo", None, series=sid)
    # deal 2 plays to its end; the deal-ending command closes the match
    match = svc.load(mid)
    game = match.game
    import random

    from kartludo.engine.bots import RandomBot

    rng = random.Random(1)
    while not match.closed:
        seat = game.to_act(match.state)[0]
        legal = [c for c in game.legal_commands(match.state, seat) if c.text() != "munt"] or \
            game.legal_commands(match.state, seat)
        svc.execute(mid, svc.play(RandomBot().choose(game, match.state, seat, legal, rng)), actor=match.players[seat])
        match = svc.load(mid)
    assert match.status == "finished" and game.deal_number(match.state) == 2
    assert store.read_stream(f"match-{mid}")[-1].type == "match.closed"
    with pytest.raises(AppError, match="closed"):
        svc.deal(mid)
    report = series_report(store, sid)
    assert report.ended and report.matches[0]["status"] == "finished"
    assert dealer == 1


def test_a_deal_asked_for_after_the_deadline_closes_the_match(store, clock):
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 5)
    mid = svc.create("uxinjo", None, series=sid, seed=4)
    stock_win_deal(svc, mid, 2)
    clock.now += 6 * MINUTE
    outcome = svc.deal(mid)
    assert [type(e).__name__ for e in outcome.events] == ["MatchClosed"]
    assert svc.load(mid).status == "finished"
    row = {r.player: r for r in series_report(store, sid).standings}
    assert row["cy"].match_points == 2 and row["cy"].finished == 1


def test_standings_read_recorded_times_not_the_readers_clock(store, clock, tmp_path):
    svc = MatchService(store)
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 5)
    mid = svc.create("uxinjo", None, series=sid, seed=5)
    stock_win_deal(svc, mid, 0)
    before = series_report(store, sid)
    clock.now += 500 * MINUTE  # reading much later changes nothing
    assert series_report(store, sid) == before


@pytest.mark.parametrize(
    "game, players, minutes, message",
    [
        ("uxinjo", ["ann", "bob", "ann"], 10, "duplicate player ann"),
        ("chess", ["ann", "bob", "cy"], 10, "unknown game 'chess'"),
        ("uxinjo", ["ann", "bob"], 10, "needs 3 players"),
        ("uxinjo", ["ann", "bob", "cy"], 0, "at least 1 minute"),
    ],
)
def test_bad_series_are_refused(store, game, players, minutes, message):
    with pytest.raises(BadCommand, match=message):
        create_series(store, game, players, minutes)
    assert store.count_events() == 0


def test_series_cli(store, db_url, clock):
    runner = CliRunner()

    def k(*args, code=0):
        result = runner.invoke(cli, ["--db", db_url, *args])
        assert result.exit_code == code, (args, result.output, result.exception)
        return result.output

    sid = k("series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "45",
            "--starts-at", "2026-11-29T10:00Z").strip()
    assert len(sid) == 10
    assert "ended at 2026-11-29 10:45:00 UTC" in k("match", "new", "uxinjo", "--series", sid, code=1)
    live = k("series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "45").strip()
    m = k("match", "new", "uxinjo", "--series", live[:4]).strip()
    assert json.loads(k("state", m, "--json"))["players"] == ["ann", "bob", "cy"]
    head = store.head_position()
    assert k("match", "new", "uxinjo", "--series", live, code=1) == (
        f"error: series {live}: match {m} is still in progress (not dealt yet): its next match starts once it "
        "has ended\n")
    assert store.head_position() == head
    assert "no series 'zzz'" in k("match", "new", "uxinjo", "--series", "zzz", code=1)
    assert "a uxinjo series, not hakamo" in k("match", "new", "hakamo", "--series", live, code=1)
    shown = json.loads(k("series", "show", live, "--format", "json"))
    assert shown["matches"][0]["match"] == m and shown["game"] == "uxinjo"
    assert "ann" in k("series", "show", live) and "ann" in k("standings", "--series", live, "--format", "csv")
