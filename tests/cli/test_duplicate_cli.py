"""`kartludo duplicate` (issue 39): an event of 3 tables x 4 boards of every game played
through the command line (each command an `act`), its progress, travellers and
standings in every format, the standings the same after the log is exported and
imported into another database, and refusals that write nothing."""

from __future__ import annotations

import csv
import io
import json
import random

import every_game
import pytest
from click.testing import CliRunner

from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.main import cli
from kartludo.store import EventStore

TABLES, BOARDS = 3, 4


def table_text(game: str) -> str:
    n = len(every_game.players(game, smallest=True))
    return ";".join(",".join(f"{chr(96 + t)}{s}" for s in range(n)) for t in range(1, TABLES + 1))


def board_in_play(k, dup: str) -> list[dict]:
    return [next((b for b in t["boards"] if b["status"] == "playing"), None)
            for t in json.loads(k("duplicate", "show", dup, "--json"))["tables"]]


@pytest.mark.parametrize("game", every_game.games())
def test_an_event_through_the_command_line(k, db_url, tmp_path, game):
    options = [a for key, value in every_game.short_options(game).items() for a in ("--option", f"{key}={value}")]
    dup = k("duplicate", "new", "--game", game, "--boards", str(BOARDS), "--tables", table_text(game),
            "--seed", "21", *options).strip()
    assert len(dup) == 10
    shown = json.loads(k("duplicate", "show", dup, "--json"))
    assert shown["played"] == 0 and shown["total"] == TABLES * BOARDS and len(shown["commitments"]) == BOARDS
    store = EventStore.open(db_url)
    rng = random.Random(game)
    # the tables differ a little (random play makes a Svoi Kozyri deal run long through act)
    bots = [every_game.heuristic(game), every_game.Erratic(game, share=0.05), every_game.Erratic(game, share=0.15)]
    try:
        for _ in range(50_000):
            playing = [(i, b) for i, b in enumerate(board_in_play(k, dup)) if b is not None]
            if not playing:
                break
            for table, board in playing:
                match = MatchService(store).load(board["match"])
                seat = match.game.to_act(match.state)[0]
                legal = match.game.legal_commands(match.state, seat)
                command = bots[table].choose(match.game, match.state, seat, legal, rng)
                k("act", board["match"], "--as", match.players[seat], *command.text().split())
    finally:
        store.close()
    shown = json.loads(k("duplicate", "show", dup, "--json"))
    assert shown["played"] == TABLES * BOARDS
    text = k("duplicate", "show", dup)
    assert f"{TABLES * BOARDS} of {TABLES * BOARDS} played" in text and "every board played" in text
    for board in range(1, BOARDS + 1):
        travel = json.loads(k("duplicate", "traveller", dup, "--board", str(board), "--json"))
        assert travel["complete"] and [t["table"] for t in travel["tables"]] == [1, 2, 3]
        rows = list(csv.DictReader(io.StringIO(k("duplicate", "traveller", dup, "--board", str(board),
                                                 "--format", "csv"))))
        assert len(rows) == TABLES * len(every_game.players(game, smallest=True))
        assert sum(int(r["matchpoints"]) for r in rows) == len(rows) * (TABLES - 1)
    standings = json.loads(k("duplicate", "standings", dup, "--json"))
    assert standings["boards_complete"] == BOARDS
    table = k("duplicate", "standings", dup)
    assert "percentage" in table.splitlines()[1] and all(len(line) <= 80 for line in table.splitlines())
    listed = json.loads(k("duplicate", "list", "--json"))
    assert [(d["duplicate"], d["complete"]) for d in listed] == [(dup, BOARDS)]
    # the log alone rebuilds the event: exported, imported elsewhere, the same standings
    out = tmp_path / "log.jsonl"
    k("events", "export", "-o", str(out))
    other = f"sqlite:///{tmp_path / 'other.db'}"
    runner = CliRunner()
    imported = runner.invoke(cli, ["--db", other, "events", "import", "--unsigned", str(out)])
    assert imported.exit_code == 0, imported.output
    again = runner.invoke(cli, ["--db", other, "duplicate", "standings", dup, "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.output) == standings


@pytest.mark.parametrize(("args", "message"), [
    (["--boards", "2", "--tables", "ann,bob,cy"], "2 to 64 tables"),
    (["--boards", "2", "--tables", "ann,bob,cy;ann,eve,fay"], "ann at more than one"),
    (["--boards", "2", "--tables", "ann,bob,cy;dee,eve"], "needs 3 players"),
    (["--boards", "0", "--tables", "ann,bob,cy;dee,eve,fay"], "0 is not in the range"),
    (["--boards", "2", "--tables", "ann,bob,cy;dee,eve,fay", "--option", "nope=1"], "nope"),
])
def test_a_bad_event_is_refused_naming_why(k, args, message):
    out = k("duplicate", "new", "--game", "uxinjo", *args, code=2 if "range" in message else 1)
    assert message in out
    assert json.loads(k("duplicate", "list", "--json")) == []
    assert json.loads(k("match", "list", "--json")) == []


def test_an_unknown_event_and_board(k):
    assert "no duplicate event" in k("duplicate", "show", "ffff", code=1)
    dup = k("duplicate", "new", "--game", "uxinjo", "--boards", "2", "--tables", "ann,bob,cy;dee,eve,fay").strip()
    assert "boards 1 to 2, not 3" in k("duplicate", "traveller", dup, "--board", "3", code=1)
    # a board in play: the command line (a TD's tool) shows it, among the tables that have played it
    assert "no table has played this board yet" in k("duplicate", "traveller", dup, "--board", "1")
