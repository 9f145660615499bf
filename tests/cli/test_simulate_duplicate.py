"""`kartludo simulate --duplicate` (issue 39): bots compared by duplicate on every game.
The figures it prints agree with the event's own travellers, a seed reproduces them,
and a request it cannot serve is refused before anything is written."""

from __future__ import annotations

import json

import every_game
import pytest

from kartludo.app.duplicate.boards import load_duplicate
from kartludo.app.duplicate.scores import traveller
from kartludo.app.duplicate.simulate import bot_of, edge_statistics
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.registry import get_game
from kartludo.store import EventStore


def run(k, game: str, *more: str) -> dict:
    return json.loads(k("simulate", game, "--duplicate", "--boards", "3", "--tables", "2", "--seed", "5",
                        "--bots", "heuristic,random", *more, "--format", "json"))


@pytest.mark.parametrize("game", every_game.games())
def test_bots_compared_by_duplicate(k, db_url, game):
    if "heuristic" not in get_game(game).bots():
        pytest.skip(f"{game} has no heuristic bot to compare")
    got = run(k, game)
    assert got["game"] == game and got["boards"] == 3 and got["tables"] == 2 and got["deals"] == 6
    rows = {r["bot"]: r for r in got["bots"]}
    assert set(rows) == {"heuristic", "random"}
    # two tables, each seat position played once by each bot: every board's matchpoints
    # at a position are 2 + 0 or 1 + 1, so the two bots' percentages sum to 100
    assert rows["heuristic"]["percentage"] + rows["random"]["percentage"] == pytest.approx(100.0, abs=0.02)
    store = EventStore.open(db_url)
    try:
        svc = MatchService(store)
        dup = load_duplicate(store, got["duplicate"])
        higher = 1 if not get_game(game).low_totals_win else -1
        edges = []
        for board in range(1, 4):
            t = traveller(svc, dup, board, td=False)  # every table has played it: anyone may read it
            assert t.complete and t.deck is not None and len(t.tables) == 2
            by_seat: dict[str, dict[str, int]] = {}
            for table in t.tables:
                for r in table.results:
                    by_seat.setdefault(r.seat, {})[bot_of(r.player)] = higher * r.score
            assert all(set(s) == {"heuristic", "random"} for s in by_seat.values()), "each bot at each seat"
            edges.append(sum(s["heuristic"] - s["random"] for s in by_seat.values()) / len(by_seat))
        mean, error, _ = edge_statistics(edges)
        assert got["edge"] == pytest.approx(mean, abs=1e-3) and got["edge_error"] == pytest.approx(error, abs=1e-3)
    finally:
        store.close()
    # the same seed plays the same event again
    again = run(k, game)
    assert (again["bots"], again["edge"]) == (got["bots"], got["edge"])
    assert again["duplicate"] != got["duplicate"]


def test_the_line_names_each_bot(k):
    out = k("simulate", "uxinjo", "--duplicate", "--boards", "2", "--seed", "1", "--bots", "heuristic,random")
    assert out.startswith("duplicate ") and "2 boards x 2 tables, 4 deals" in out
    assert "heuristic " in out and "random " in out and "heuristic - random per board" in out


@pytest.mark.parametrize(("args", "message", "code"), [
    (["uxinjo", "--boards", "3"], "--boards is for a duplicate comparison: add --duplicate", 2),
    (["all", "--duplicate"], "compares bots on one game", 2),
    (["uxinjo", "--duplicate", "--bots", "heuristic,nobody"], "no bot 'nobody'", 1),
    (["uxinjo", "--duplicate", "--players", "4"], "not 4", 1),
    (["uxinjo", "--duplicate", "--tables", "1"], "1 is not in the range", 2),
])
def test_a_comparison_it_cannot_run_is_refused(k, args, message, code):
    assert message in k("simulate", *args, code=code)
    assert json.loads(k("duplicate", "list", "--json")) == []
    assert json.loads(k("match", "list", "--json")) == []
