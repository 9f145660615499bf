"""Tables fit the terminal (issue 44): `standings` was 104-115 columns wide and `audit
list` 152-220. Off a terminal a table fits 80 columns (COLUMNS when set; a terminal's
own width on one): the standings leave out the provisional column (the rating's * says
it), long headers break after '_' and a ruling's rule goes under its row, cut to one
line. CSV and JSON never change with the width."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from scenarios import win_match

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import issue
from kartludo.cli.main import cli
from kartludo.store import EventStore

LONG = ["alexandrina", "bartholomew", "cyrillus"]


@pytest.fixture
def league(sqlite_url, monkeypatch):
    """Finished Svoi Kozyri matches, Uxinjo matches of random bots (their fouls are
    rulings, one appealed and upheld), and a finished Uxinjo match of long names."""
    monkeypatch.delenv("COLUMNS", raising=False)
    runner = CliRunner()

    def run(*args: str, columns: int | None = None) -> str:
        env = {"COLUMNS": str(columns)} if columns else {}
        result = runner.invoke(cli, ["--db", sqlite_url, *args], env=env)
        assert result.exit_code == 0, (args, result.output, result.exception)
        return result.output

    run("db", "upgrade")
    run("simulate", "svoi-kozyri", "--matches", "3", "--seed", "2")
    run("simulate", "uxinjo", "--matches", "3", "--seed", "2", "--bots", "random", "--max-deals", "4")
    with EventStore.open(sqlite_url) as store:
        svc = MatchService(store)
        win_match(svc, svc.create("uxinjo", LONG, seed=3), 0)
        issue(store, "td", label="td-mia")
    rulings = json.loads(run("audit", "list", "--json"))
    assert len(rulings) >= 5, "the random bots foul: rulings to list"
    first = rulings[0]
    run("audit", "appeal", first["id"], "--by", first["player"], "--reason", "I had two sets, I think")
    run("audit", "decide", first["id"], "--by", "td-mia", "--uphold", "--reason", "no two combinations")
    return run


def _width(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.mark.parametrize("args", [["standings"], ["standings", "--game", "svoi-kozyri"],
                                  ["standings", "--game", "uxinjo", "--sort", "wins"], ["audit", "list"],
                                  ["audit", "list", "--status", "upheld"], ["match", "list"]])
def test_tables_fit_80_columns_off_a_terminal(league, args):
    wide = league(*args, columns=400)
    assert _width(wide) > 80, "this table is wider than 80 columns unless fitted: the test could not fail"
    text = league(*args)
    assert _width(text) <= 80, "\n" + "\n".join(line for line in text.splitlines() if len(line) > 80)
    assert not any(line != line.rstrip() for line in text.splitlines()), "no trailing spaces"


def test_what_a_fitted_table_shows(league):
    standings = league("standings")
    rows = list(csv.DictReader(io.StringIO(league("standings", "--format", "csv"))))
    for r in rows:  # every player, with the rating marked * when provisional
        rating = f"{float(r['rating']):.2f}{'*' if r['provisional'] == 'true' else ''}"
        assert any(r["player"] in line and rating in line for line in standings.splitlines()), r
    header = standings.splitlines()[1:4]
    assert "placement_" in header[0] and header[1].split()[:2] == ["rank", "player"]
    assert "points" in header[1].split() and set(header[2]) <= {"-", " "}
    assert "provisional" not in header[1] and "* provisional: fewer than 5 matches" in standings
    assert {r["player"] for r in rows} >= set(LONG)
    # on a wide terminal nothing is left out: the table's header is the CSV's
    assert league("standings", columns=400).splitlines()[1].split() == list(rows[0])

    audit = league("audit", "list").splitlines()
    records = json.loads(league("audit", "list", "--json"))
    assert audit[0].split() == ["id", "status", "game", "deal", "player", "judged"]
    for r in records:  # its row, then its rule under it (cut to the width)
        [at] = [i for i, line in enumerate(audit) if line.startswith(r["id"] + " ")]
        assert r["status"] in audit[at].split() and r["player"] in audit[at].split()
        rule = audit[at + 1]
        assert rule.startswith("  rule: ") and len(rule) <= 80
        assert rule == f"  rule: {r['rule']}" or (rule.endswith("…") and r["rule"].startswith(rule[8:-1]))
    assert "(rule cut to the width: --format csv or json has it whole)" in "\n".join(audit)
    assert any(line.split()[1:2] == ["upheld"] for line in audit)


@pytest.mark.parametrize("args", [["standings"], ["standings", "--game", "svoi-kozyri"], ["audit", "list"],
                                  ["match", "list"]])
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_do_not_depend_on_the_width(league, args, fmt):
    narrow, wide = league(*args, "--format", fmt, columns=30), league(*args, "--format", fmt, columns=400)
    assert narrow == wide == league(*args, "--format", fmt)
    if args == ["audit", "list"]:
        records = json.loads(league(*args, "--json"))
        rows = list(csv.DictReader(io.StringIO(league(*args, "--format", "csv"))))
        assert [r["rule"] for r in rows] == [r["rule"] for r in records]  # whole, never cut
        assert max(len(r["rule"]) for r in records) > 80
