"""The command line's shared conventions, as a TD meets them: one output option
(`--format table|json|csv`, `--json` its alias), headers on every table, a line
saying so when nothing is found, filters, id prefixes, and standings whose columns
explain themselves. Presentation only, so SQLite is enough (the backends' reads are
covered by the store suite)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from kartludo.cli.main import cli
from kartludo.engine.registry import game_names


@pytest.fixture
def kk(sqlite_url):
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", sqlite_url, "db", "upgrade"]).exit_code == 0

    def run(*args, code=0):
        result = runner.invoke(cli, ["--db", sqlite_url, *args])
        assert result.exit_code == code, (args, result.output, result.exception)
        assert "Traceback" not in result.output
        return result.output

    run.url = sqlite_url
    return run


@pytest.fixture
def league(kk):
    """Two finished matches of Svoi Kozyri and of Uxinjo, one Uxinjo match unfinished."""
    kk("simulate", "svoi-kozyri", "--matches", "2", "--seed", "3")
    kk("simulate", "uxinjo", "--matches", "2", "--seed", "3")
    kk("match", "new", "uxinjo", "--players", "ann,bob,zed")
    return kk


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_svoi_kozyri_standings_count_losses_lower_is_better(league, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # a wide terminal: the whole table (test_cli_narrow: a fitted one)
    text = league("standings", "--game", "svoi-kozyri")
    header = text.splitlines()[1].split()
    assert header[:2] == ["rank", "player"] and "losses" in header and "score" not in header
    assert "placement_points" in header and "fouls" in header
    assert "losses: deals lost" in text and "lower is better" in text
    assert "* provisional: fewer than 5 matches" in text
    rows = _csv(league("standings", "--game", "svoi-kozyri", "--format", "csv"))
    assert list(rows[0]) == header  # the same names in the table and the CSV
    data = json.loads(league("standings", "--game", "svoi-kozyri", "--json"))
    assert all(set(header) <= set(r) for r in data)  # … and in the JSON
    assert [r["player"] for r in data] == [r["player"] for r in rows]
    by_losses = _csv(league("standings", "--game", "svoi-kozyri", "--sort", "losses", "--format", "csv"))
    losses = [int(r["losses"]) for r in by_losses]
    assert losses == sorted(losses)  # fewest losses first
    ranks = [int(r["rank"]) for r in by_losses]
    assert ranks[0] == 1 and all(a <= b for a, b in zip(ranks, ranks[1:]))
    for a, b in zip(by_losses, by_losses[1:]):  # ties share a rank
        assert (a["rank"] == b["rank"]) == (a["losses"] == b["losses"] and a["rating"] == b["rating"])


def test_uxinjo_standings_name_their_match_points_and_all_games_no_total(league):
    header = league("standings", "--game", "uxinjo", "--format", "csv").splitlines()[0].split(",")
    assert "match_points" in header and "losses" not in header and "score" not in header
    assert "higher is better" in league("standings", "--game", "uxinjo")
    across = league("standings", "--format", "csv").splitlines()[0].split(",")
    assert not {"match_points", "losses", "points", "score"} & set(across)


def test_every_list_has_headers_and_says_when_nothing_is_found(kk):
    assert kk("match", "list").strip() == "no matches found"
    assert kk("audit", "list").strip() == "no rulings found"
    assert kk("series", "list").strip() == "no series found"
    assert "no finished matches yet" in kk("standings")
    assert json.loads(kk("match", "list", "--format", "json")) == []
    assert kk("match", "list", "--format", "csv").strip() == "match,game,status,deal,created_at,players,series"
    assert kk("audit", "list", "--format", "csv").startswith("id,status,game,deal,player,judged,rule")
    m = kk("match", "new", "uxinjo", "--players", "ann,bob,cy").strip()
    lines = kk("match", "list").splitlines()
    assert lines[0].split() == ["match", "game", "status", "deal", "created_at", "players", "series"]
    assert set(lines[1]) <= {"-", " "} and lines[2].startswith(m)
    s = kk("series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "90").strip()
    lines = kk("series", "list").splitlines()
    assert lines[0].split()[:3] == ["series", "game", "status"] and lines[2].startswith(s) and "running" in lines[2]


def test_json_is_an_alias_of_format_json_and_contradictions_are_refused(league):
    assert league("match", "list", "--json") == league("match", "list", "--format", "json")
    assert league("audit", "list", "--json") == league("audit", "list", "--format", "json")
    out = league("match", "list", "--json", "--format", "csv", code=2)
    assert "--json is --format json" in out
    assert "'xml' is not one of" in league("match", "list", "--format", "xml", code=2)


def test_match_list_filters(league):
    everything = json.loads(league("match", "list", "--json"))
    assert len(everything) == 5
    going = json.loads(league("match", "list", "--status", "in_progress", "--json"))
    assert [m["players"] for m in going] == [["ann", "bob", "zed"]]
    assert all(m["status"] == "finished" for m in json.loads(league("match", "list", "--status", "finished",
                                                                    "--json")))
    assert {m["game"] for m in json.loads(league("match", "list", "--game", "svoi-kozyri", "--json"))} == \
        {"svoi-kozyri"}
    zed = json.loads(league("match", "list", "--player", "zed", "--json"))
    assert [m["match"] for m in zed] == [going[0]["match"]]
    assert "no matches found (filters: --player nobody)" in league("match", "list", "--player", "nobody")
    assert "'done' is not one of" in league("match", "list", "--status", "done", code=2)
    assert "unknown game" in league("match", "list", "--game", "chess", code=1)


def test_series_list_filters(kk):
    s1 = kk("series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "90").strip()
    s2 = kk("series", "new", "--game", "svoi-kozyri", "--players", "dan,eve", "--minutes", "60",
            "--starts-at", "2999-01-01T00:00Z").strip()
    rows = json.loads(kk("series", "list", "--json"))
    assert [(r["series"], r["status"]) for r in rows] == [(s1, "running"), (s2, "upcoming")]
    assert [r["series"] for r in json.loads(kk("series", "list", "--player", "eve", "--json"))] == [s2]
    assert [r["series"] for r in json.loads(kk("series", "list", "--game", "uxinjo", "--json"))] == [s1]
    assert json.loads(kk("series", "list", "--status", "ended", "--json")) == []
    m = kk("match", "new", "uxinjo", "--series", s1[:4]).strip()
    assert [r["match"] for r in json.loads(kk("match", "list", "--series", s1[:4], "--json"))] == [m]
    header = kk("series", "show", s1, "--format", "csv").splitlines()[0]
    assert header == "player,matches,finished,match_points,fouls,foul_mp,total"


@pytest.mark.parametrize("args", [["match", "list"], ["standings"], ["audit", "list"], ["verify"], ["db", "status"],
                                  ["state", "abc"], ["series", "list"], ["events", "export"]])
def test_a_reading_command_refuses_a_missing_sqlite_file(tmp_path, args):
    url = f"sqlite:///{tmp_path / 'typo.db'}"
    result = CliRunner().invoke(cli, ["--db", url, *args])
    assert result.exit_code == 1, result.output
    assert f"no database file {tmp_path / 'typo.db'}" in result.output and "is the path right?" in result.output
    assert not (tmp_path / "typo.db").exists()


def test_a_writing_command_creates_the_file_and_says_so_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    first = runner.invoke(cli, ["--db", url, "match", "new", "uxinjo", "--players", "ann,bob,cy"])
    assert first.exit_code == 0 and len(first.stdout.strip()) == 12  # stdout: only the id
    assert first.stderr.count("created a new SQLite database") == 1
    again = runner.invoke(cli, ["--db", url, "match", "new", "uxinjo", "--players", "ann,bob,cy"])
    assert again.exit_code == 0 and "created" not in again.stderr
    url2 = f"sqlite:///{tmp_path / 'other.db'}"
    upgraded = runner.invoke(cli, ["--db", url2, "db", "upgrade"])
    assert upgraded.exit_code == 0 and upgraded.stderr.count("created a new SQLite database") == 1


def test_db_status_says_what_the_database_holds(league):
    text = league("db", "status")
    assert "(sqlite)" in text and "up to date" in text and "match" in text and "newest position" in text
    info = json.loads(league("db", "status", "--json"))
    assert info["backend"] == "sqlite" and info["up_to_date"] and info["events"] > 0
    assert info["streams"]["match"] == 5 and info["newest_position"] >= info["events"]
    assert {p["name"] for p in info["projections"]} >= {"matches", "audit"}
    [row] = _csv(league("db", "status", "--format", "csv"))
    assert row["events"] == str(info["events"]) and row["schema"] == info["schema"]


def test_demo_hints_name_the_program_as_run_and_fresh_starts_over(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KARTLUDO_DB", raising=False)
    monkeypatch.setattr("sys.argv", [".venv/bin/kartludo", "demo"])
    runner = CliRunner()
    out = runner.invoke(cli, ["demo", "--matches", "1"])
    assert out.exit_code == 0, out.output
    hints = out.output.split("next (each runs as printed):\n")[1].splitlines()
    assert hints[0].startswith("  .venv/bin/kartludo standings") and "--db" not in hints[0]
    refused = runner.invoke(cli, ["demo", "--matches", "1"])
    assert refused.exit_code == 1 and ".venv/bin/kartludo demo --fresh" in refused.output
    fresh = runner.invoke(cli, ["demo", "--matches", "1", "--fresh"])
    assert fresh.exit_code == 0 and "deleted kartludo.db" in fresh.output
    matches = json.loads(runner.invoke(cli, ["match", "list", "--json"]).output)
    assert len(matches) == len(game_names()) + 1  # a match per game, and the club night


def _two_sharing_a_prefix(make) -> tuple[str, str, str]:
    """Make ids until two share a first character; returns (prefix, id, id)."""
    seen: dict[str, str] = {}
    while True:
        new = make()
        if new[0] in seen:
            return new[0], seen[new[0]], new
        seen[new[0]] = new


def test_every_id_takes_a_unique_prefix_and_an_ambiguous_one_is_refused_naming_both(kk):
    from kartludo.app.league.series import create_series
    from kartludo.store import EventStore

    prefix, a, b = _two_sharing_a_prefix(lambda: kk("match", "new", "uxinjo", "--players", "ann,bob,cy").strip())
    kk("match", "deal", a[:6])
    stream = kk("events", "export", f"match-{a}")
    assert kk("events", "export", a[:5]) == stream == kk("events", "export", f"match-{a[:5]}")
    with EventStore.open(kk.url) as store:
        before = store.count_events()
        for args in [["events", "export", prefix], ["state", prefix], ["act", prefix, "--as", "ann", "draw"],
                     ["match", "deal", prefix], ["replay", prefix], ["audit", "list", "--match", prefix],
                     ["audit", "recheck", prefix], ["match", "check", prefix]]:
            out = kk(*args, code=1)
            assert "is ambiguous" in out and a in out and b in out, (args, out)
        assert store.count_events() == before
        # a match and a series sharing a prefix: events export names both
        # (a prefix of a that b does not share: random ids may share more than one character)
        shared = a[:max(3, next(i for i in range(1, len(a)) if a[:i] != b[:i]))]
        s = create_series(store, "uxinjo", ["ann", "bob", "cy"], 90, series_id=shared + "f0f0f0f")
        assert kk("events", "export", s).count("\n") == 1
        out = kk("events", "export", shared, code=1)
        assert "is ambiguous" in out and f"match-{a}" in out and f"series-{s}" in out
        assert "no stream, match or series 'zz'" in kk("events", "export", "zz", code=1)
        assert store.count_events() == before + 1


def test_rulings_take_prefixes_of_both_parts(league, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # a wide terminal: each ruling on one line (test_cli_narrow: 80)
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.store import EventStore

    with EventStore.open(league.url) as store:
        svc = MatchService(store)
        m = svc.create("uxinjo", ["ann", "bob", "cy"], seed=2026)
        svc.deal(m)
        player = svc.load(m).players[svc.load(m).game.to_act(svc.load(m).state)[0]]
        svc.act(m, player, "draw", ())
        svc.act(m, player, "munt", ())
    [ruling] = json.loads(league("audit", "list", "--match", m[:6], "--json"))
    short = f"{m[:5]}/{ruling['ruling_id'][:9]}"
    assert f"ruling {ruling['id']}" in league("audit", "show", short)
    assert [r["id"] for r in json.loads(league("audit", "list", "--status", "standing", "--game", "uxinjo",
                                               "--json"))] == [ruling["id"]]
    assert json.loads(league("audit", "list", "--status", "upheld", "--json")) == []
    assert json.loads(league("audit", "list", "--game", "hakamo", "--json")) == []
    lines = league("audit", "list").splitlines()
    assert lines[0].split() == ["id", "status", "game", "deal", "player", "judged", "rule"]
    assert lines[2].startswith(ruling["id"]) and lines[2].endswith(ruling["rule"])
    league("audit", "appeal", short, "--by", player, "--reason", "two trios")
    assert [r["id"] for r in json.loads(league("audit", "list", "--status", "appealed", "--json"))] == [ruling["id"]]
    assert "'lost' is not one of" in league("audit", "list", "--status", "lost", code=2)


def test_a_token_can_expire_and_the_refusal_says_so(kk):
    from types import SimpleNamespace

    from litestar.exceptions import NotAuthorizedException

    from kartludo.app.audit.rulings import td_labels
    from kartludo.app.tokens import TokenIndex
    from kartludo.service.auth import principal
    from kartludo.store import EventStore

    out = kk("token", "new", "--label", "mia", "--expires", "2h")
    secret = out.splitlines()[0]  # (the runner mixes in stderr's note)
    assert secret.startswith("kt_") and "note: the token expires at" in out
    forever = kk("token", "new", "--label", "noa").strip()
    assert "is not a duration" in kk("token", "new", "--expires", "-3d", code=2)
    now = [0]
    with EventStore.open(kk.url, clock=lambda: now[0]) as store:
        [issued] = [r.event for r in store.read_stream("tokens") if r.event.label == "mia"]
        now[0] = issued.expires_at_us - 1
        index = TokenIndex(store)
        assert index.resolve(secret) is not None and td_labels(store) == {"mia", "noa"}
        request = SimpleNamespace(headers={"authorization": f"Bearer {secret}"})
        assert principal(request, index).label == "mia"
        now[0] = issued.expires_at_us  # two hours on
        assert index.resolve(secret) is None and not index.is_live(index.find(secret).token_hash)
        assert index.resolve(forever) is not None and td_labels(store) == {"noa"}
        with pytest.raises(NotAuthorizedException) as refused:
            principal(request, index)
        assert "token expired at" in refused.value.detail
        bad = SimpleNamespace(headers={"authorization": "Bearer kt_nonsense"})
        with pytest.raises(NotAuthorizedException, match="unknown or revoked token"):
            principal(bad, index)


def test_sorting_by_a_total_the_game_does_not_have_is_refused(league):
    assert "in uxinjo it is 'match_points'" in league("standings", "--game", "uxinjo", "--sort", "losses", code=2)
    assert "give --game" in league("standings", "--sort", "score", code=2)
    rows = _csv(league("standings", "--game", "uxinjo", "--sort", "match_points", "--format", "csv"))
    assert [int(r["match_points"]) for r in rows] == sorted((int(r["match_points"]) for r in rows), reverse=True)
