"""Standings arithmetic: places, placement points, ratings, ties, provisional flags."""

from __future__ import annotations

import json
from types import SimpleNamespace

from click.testing import CliRunner
from scenarios import stock_win_deal

from kartludo.app.league.standings import PROVISIONAL_BELOW, rank_players
from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.main import cli


def row(match, player, rank, score, n=3, position=0, mp=None, fouls=0):
    below = {1: n - 1, 2: n - 2, 3: n - 3}.get(rank, 0)
    return SimpleNamespace(match_id=match, player=player, rank=rank, score=score, players=n, position=position,
                           match_points=mp, fouls=fouls, higher_is_better=True,
                           placement_points=below - (rank - 1), seat=0)


def test_places_placement_points_and_ratings():
    rows = []
    for i in range(6):  # ann always first, bob second, cy third
        rows += [row(f"m{i}", "ann", 1, 4, position=i), row(f"m{i}", "bob", 2, 0, position=i),
                 row(f"m{i}", "cy", 3, -4, position=i)]
    table = {s.player: s for s in rank_players(rows, single_game=True)}
    assert [s.player for s in rank_players(rows, single_game=True)] == ["ann", "bob", "cy"]
    assert (table["ann"].matches, table["ann"].wins, table["ann"].places) == (6, 6, {"1": 6})
    assert (table["ann"].placement_points, table["bob"].placement_points, table["cy"].placement_points) == (12, 0, -12)
    assert table["ann"].score == 24 and table["cy"].score == -24
    assert table["ann"].rating > table["bob"].rating > table["cy"].rating
    assert not table["ann"].provisional and PROVISIONAL_BELOW <= 6


def test_ties_share_a_place_and_a_rating_and_few_matches_are_provisional():
    rows = [row("m1", "ann", 1, 2), row("m1", "bob", 1, 2), row("m1", "cy", 3, -4)]
    rows[0].placement_points = rows[1].placement_points = 1  # (1 below) - (0 above)
    rows[2].placement_points = -2
    table = {s.player: s for s in rank_players(rows, single_game=True)}
    assert table["ann"].rating == table["bob"].rating > table["cy"].rating
    assert table["ann"].wins == table["bob"].wins == 1 and table["ann"].provisional


def test_across_games_the_games_own_totals_are_not_added():
    rows = [row("m1", "ann", 1, 40), row("m1", "bob", 2, 0), row("m1", "cy", 3, 1)]
    assert all(s.score is None for s in rank_players(rows, single_game=False))


def test_standings_only_count_finished_matches(store, db_url):
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    stock_win_deal(svc, mid, 0)  # unfinished
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", db_url, "standings", "--game", "uxinjo", "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.output) == []
    for _ in range(2):  # each stock win moves both markers 2 towards ann: 2, 4, then finito 6
        stock_win_deal(svc, mid, 0)
    assert svc.load(mid).status == "finished"
    out = runner.invoke(cli, ["--db", db_url, "standings", "--game", "uxinjo", "--format", "json"])
    table = {s["player"]: s for s in json.loads(out.output)}
    assert table["ann"]["wins"] == 1 and table["ann"]["score"] == 6 and table["bob"]["score"] == -3
    assert table["ann"]["match_points"] == 6 and table["ann"]["placement_points"] == 2
    csv = runner.invoke(cli, ["--db", db_url, "standings", "--format", "csv"]).output.splitlines()
    assert csv[0].startswith("rank,player,matches,wins") and len(csv) == 4
    text = runner.invoke(cli, ["--db", db_url, "standings"]).output
    assert "ann" in text and "provisional" in text
