"""``kartludo match new --clock``, ``state``'s clocks, ``clock sweep|add|pause|resume``
and a series' clock, through the command line (issue 40). Time is moved by replacing
the store's clock source (``store.envelope.now_us`` reads ``time.time_ns``): no sleeps."""

from __future__ import annotations

import json
import time as real_time
from types import SimpleNamespace

import pytest

from kartludo.store import envelope


@pytest.fixture
def later(monkeypatch):
    """``later(seconds)``: from now on, every store in this process records that much later."""
    start = real_time.time_ns()

    def move(seconds: float) -> None:
        monkeypatch.setattr(envelope, "time", SimpleNamespace(time_ns=lambda: start + round(seconds * 1e9)))

    move(0)
    return move


def _new(k, *args):
    return k("match", "new", "hakamo", "--players", "ann,bob,cy,dan", "--seed", "9", *args).strip()


def test_bad_clocks_and_commands_are_refused_by_name_and_write_nothing(k):
    assert "--clock base '5x' is not a duration" in k("match", "new", "hakamo", "--players", "a,b,c,d",
                                                      "--clock", "5x", code=1)
    assert "--move-limit '0s' must be more than 0" in k("match", "new", "hakamo", "--players", "a,b,c,d",
                                                        "--move-limit", "0s", code=1)
    assert "no matches found" in k("match", "list")
    plain = _new(k)
    timed = _new(k, "--clock", "5m+10s")
    assert "'td1' is no TD" in k("clock", "pause", timed, "--by", "td1", "--reason", "x", code=1)
    k("token", "new", "--role", "td", "--label", "td1")
    assert f"match {plain} has no clock" in k("clock", "add", plain, "--seat", "ann", "--time", "60s", "--by",
                                              "td1", "--reason", "x", code=1)
    assert f"match {plain} has no clock" in k("clock", "show", plain, code=1)
    assert "are not paused" in k("clock", "resume", timed, "--by", "td1", "--reason", "x", code=1)
    assert "'zed' does not play" in k("clock", "add", timed, "--seat", "zed", "--time", "60s", "--by", "td1",
                                      "--reason", "x", code=1)
    assert "--time '1y' is not a duration" in k("clock", "add", timed, "--seat", "ann", "--time", "1y", "--by",
                                                "td1", "--reason", "x", code=1)
    assert "Missing option '--reason'" in k("clock", "pause", timed, "--by", "td1", code=2)
    table = [line for line in k("events", "export").splitlines() if '"stream_id":"table-' in line]
    assert len(table) == 1 and '"type":"table.clock-set"' in table[0]  # the clock's setting alone


def test_state_sweep_audit_and_replay_show_the_clocks(k, later):
    _flag_fall_story(k, later)


def _flag_fall_story(k, later) -> str:
    """A match on a 1m+5s clock: the first seat's time, a TD's 30 s and a pause, then its
    flag falls; every reader shows it. Returns the match id."""
    mid = _new(k, "--clock", "1m+5s")
    k("match", "deal", mid)
    k("token", "new", "--role", "td", "--label", "td1")
    later(20)
    state = json.loads(k("state", mid, "--json"))
    [first] = state["to_act"]
    assert state["clock"]["seats"][first] == {"remaining_ms": 40_000, "running": True, "flags": 0}
    assert "clock 1m+5s: " in k("state", mid) and f"{first} 0:40 ▶" in k("state", mid)
    later(25)
    assert "td1 gives" in k("clock", "add", mid, "--seat", first, "--time", "30s", "--by", "td1", "--reason",
                            "a phone call")
    later(30)
    assert "td1 pauses the clocks" in k("clock", "pause", mid, "--by", "td1", "--reason", "dispute")
    later(500)
    assert k("clock", "sweep") == "no flag fall is due\n"  # paused
    assert json.loads(k("clock", "show", mid, "--json"))["seats"][first]["remaining_ms"] == 60_000
    k("clock", "resume", mid, "--by", "td1", "--reason", "settled")
    later(559)
    assert k("clock", "sweep") == "no flag fall is due\n"
    later(561)
    out = k("clock", "sweep")
    assert out.startswith(f"{mid}/flag-v") and f"flag fall, {first}" in out
    assert k("clock", "sweep") == "no flag fall is due\n"
    listed = json.loads(k("audit", "list", "--match", mid, "--json"))
    assert [(r["type"], r["player"]) for r in listed] == [("match.flag-fall", first)]
    assert listed[0]["facts"]["turn_us"] == 90_000_000  # 60 s + the TD's 30 s, the pause not counted
    replay = k("replay", mid, "--as", first)
    assert "clock 1m+5s: " in replay and "flag fall: " in replay
    # the flagged seat's turn was played by the bot and earned its increment
    assert json.loads(k("clock", "show", mid, "--json"))["seats"][first]["remaining_ms"] == 5_000
    ruling = listed[0]["id"]
    shown = k("audit", "show", ruling)
    assert "hakamo §Clocks (RULING: flag fall)" in shown and "flag fell at" in shown.replace("_", " ")
    # appealed and overturned like every ruling: the seat gets back the 90 s that turn took
    k("audit", "appeal", ruling, "--by", first, "--reason", "the server's clock ran while the lights were out")
    k("token", "new", "--role", "td", "--label", "td2")
    k("audit", "decide", ruling, "--by", "td2", "--overturn", "--reason", "the log shows the outage")
    assert json.loads(k("clock", "show", mid, "--json"))["seats"][first] == {
        "remaining_ms": 95_000, "running": False, "flags": 0}
    # the log with a flag fall checks out: hash chains and a full re-fold, and today's engine
    # would record the bot's plays as they were (the flag fall is the clock's, not the engine's)
    assert "OK" in k("verify").upper()
    assert k("audit", "recheck", mid) == "1 match rechecked, 0 differences\n"
    return mid


def test_a_flag_fall_and_the_clocks_survive_an_export_and_import(k, later, tmp_path):
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    mid = _flag_fall_story(k, later)
    log = tmp_path / "log.jsonl"
    k("events", "export", "-o", str(log))
    other = f"sqlite:///{tmp_path / 'other.db'}"
    runner = CliRunner()
    for args in (["db", "upgrade"], ["events", "import", str(log), "--unsigned"]):
        result = runner.invoke(cli, ["--db", other, *args])
        assert result.exit_code == 0, result.output
    shown = runner.invoke(cli, ["--db", other, "clock", "show", mid, "--json"])
    assert json.loads(shown.output) == json.loads(k("clock", "show", mid, "--json")) | {
        "as_of": json.loads(shown.output)["as_of"]}


def test_a_series_clock_times_every_match_of_it(k):
    sid = k("series", "new", "--game", "hakamo", "--players", "ann,bob,cy,dan", "--minutes", "60", "--clock",
            "3m+2s").strip()
    mid = k("match", "new", "hakamo", "--series", sid).strip()
    assert json.loads(k("clock", "show", mid, "--json"))["control"] == "3m+2s"
    assert "--clock base '3q' is not a duration" in k("series", "new", "--game", "hakamo", "--players",
                                                      "a,b,c,d", "--minutes", "60", "--clock", "3q", code=1)


def test_on_flag_bot_penalty_costs_the_seat_the_games_penalty_and_an_overturn_gives_it_back(k, later):
    assert "--on-flag bot-penalty says what a flag fall does: it needs a clock" in k(
        "match", "new", "hakamo", "--players", "a,b,c,d", "--on-flag", "bot-penalty", code=1)
    assert "Invalid value for '--on-flag'" in k("match", "new", "hakamo", "--players", "a,b,c,d", "--clock", "1m",
                                                "--on-flag", "concede", code=2)
    assert "no matches found" in k("match", "list")  # nothing written by either refusal
    mid = _new(k, "--clock", "1m", "--on-flag", "bot-penalty")
    k("match", "deal", mid)
    shown = json.loads(k("state", mid, "--json"))
    assert shown["clock"]["consequence"] == "bot-penalty"
    assert "clock 1m (on flag: bot-penalty): " in k("state", mid)
    [first] = shown["to_act"]
    later(61)
    assert f"flag fall, {first}" in k("clock", "sweep")
    totals = json.loads(k("state", mid, "--json"))["totals"]
    assert totals == {**dict.fromkeys(["ann", "bob", "cy", "dan"], 0), first: -7}
    [listed] = json.loads(k("audit", "list", "--match", mid, "--json"))
    assert listed["effect"]["penalty"] == {first: -7}
    assert f"time penalty: {first} -7 (points)" in k("audit", "show", listed["id"])
    k("audit", "appeal", listed["id"], "--by", first, "--reason", "the server stalled")
    k("token", "new", "--role", "td", "--label", "td2")
    k("audit", "decide", listed["id"], "--by", "td2", "--overturn", "--reason", "the log shows the stall")
    assert json.loads(k("state", mid, "--json"))["totals"][first] == 0
    assert k("audit", "recheck", mid) == "1 match rechecked, 0 differences\n"
    sid = k("series", "new", "--game", "hakamo", "--players", "ann,bob,cy,dan", "--minutes", "60", "--clock",
            "3m", "--on-flag", "bot-penalty").strip()
    in_series = k("match", "new", "hakamo", "--series", sid).strip()
    assert json.loads(k("clock", "show", in_series, "--json"))["consequence"] == "bot-penalty"
