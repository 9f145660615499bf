"""The watch setting on the command line (issue 40): `match new --watch-delay …
--watch-hands` and `kartludo watch set|show`. Every bad input is refused naming the
problem, exits non-zero and writes nothing."""

from __future__ import annotations

import json

import every_game
import pytest
from every_game import games

from kartludo.store import EventStore


@pytest.fixture
def head(db_url):
    def position() -> int:
        with EventStore.open(db_url) as store:
            return store.head_position()

    return position


def test_match_new_records_the_watch_setting(k):
    game = games()[0]
    players = ",".join(every_game.players(game))
    m = k("match", "new", game, "--players", players, "--watch-delay", "2", "--watch-hands").strip()
    shown = json.loads(k("watch", "show", m, "--json"))
    assert shown == {"match": m, "delay": "2 moves", "moves": 2, "seconds": None, "hands": True, "by": "cli"}
    assert "delayed by 2 moves (every hand)" in k("watch", "show", m)
    live = k("match", "new", game, "--players", players).strip()
    assert json.loads(k("watch", "show", live, "--json"))["delay"] == "live"
    m2 = k("match", "new", game, "--players", players, "--watch-delay", "30s", "--auto-deal").strip()
    assert json.loads(k("watch", "show", m2, "--json"))["seconds"] == 30


@pytest.mark.parametrize(("args", "message"), [
    (["--watch-delay", "2x"], "watch delay '2x' is not a number of moves (2) or of seconds (30s)"),
    (["--watch-delay", "-1"], "watch delay '-1' is not a number"),
    (["--watch-delay", "1001"], "at most 1000 moves"),
    (["--watch-delay", "2d"], "watch delay '2d' is not a number"),
    (["--watch-hands"], "--watch-hands needs a watch delay"),
    (["--watch-delay", "0", "--watch-hands"], "--watch-hands needs a watch delay"),
])
def test_match_new_refuses_a_bad_watch_setting(k, head, args, message):
    game = games()[0]
    before = head()
    out = k("match", "new", game, "--players", ",".join(every_game.players(game)), *args, code=1)
    assert message in out and out.startswith("error: ")
    assert head() == before


def test_watch_set_by_a_td_only(k, head, db_url):
    from kartludo.app.tokens import issue

    with EventStore.open(db_url) as store:
        issue(store, "td", label="mia")
    game = games()[0]
    m = k("match", "new", game, "--players", ",".join(every_game.players(game))).strip()
    before = head()
    for args, message in [(["--delay", "2", "--by", "ann"], "'ann' is no TD: no live TD token is labelled 'ann'"),
                          (["--delay", "2x", "--by", "mia"], "watch delay '2x' is not a number"),
                          (["--delay", "0", "--hands", "--by", "mia"], "--watch-hands needs a watch delay"),
                          (["--delay", "3", "--by", "mia", "--reason", "a\x01b"], "control character")]:
        out = k("watch", "set", m, *args, code=1)
        assert message in out, out
    assert k("watch", "set", "nosuchmatch", "--delay", "2", "--by", "mia", code=1).startswith("error: ")
    assert head() == before
    assert k("watch", "set", m[:6], "--delay", "30s", "--hands", "--by", "mia").strip() == (
        f"match {m}: watchers see it delayed by 30 s (every hand)")
    assert k("watch", "set", m, "--delay", "0", "--by", "mia").strip() == (
        f"match {m}: watchers see it live (hands hidden while a deal runs)")
    assert json.loads(k("watch", "show", m, "--json"))["by"] == "mia"


def test_state_as_a_watcher_sees_the_delayed_table(k, db_url):
    """``state --watcher``: what the watchers see (the delayed table), while plain ``state``
    is the TD's public view, live."""
    from kartludo.app.matches.pipeline import MatchService

    m = k("match", "new", "svoi-kozyri", "--players", "ann,bob", "--seed", "3", "--watch-delay", "2").strip()
    k("match", "deal", m)
    with EventStore.open(db_url) as store:
        svc = MatchService(store)
        firsts = []
        for _ in range(3):
            match = svc.load(m)
            seat = match.game.to_act(match.state)[0]
            verb, *args = match.game.legal_commands(match.state, seat)[0].text().split()
            firsts.append(svc.act(m, match.players[seat], verb, args).first_version)
        live = svc.load(m).version
    watcher = json.loads(k("state", m, "--watcher", "--json"))
    assert watcher["version"] == firsts[1] - 1 and watcher["watch"]["moves"] == 2
    assert json.loads(k("state", m, "--json"))["version"] == live
    assert "as watchers see it (2 moves)" in k("state", m, "--watcher")
    assert "use one of --as PLAYER, --all or --watcher" in k("state", m, "--watcher", "--all", code=2)


def test_state_as_a_watcher_prints_the_hands_only_when_watchers_see_them(k, db_url):
    """With --watch-hands the text ``state --watcher`` prints every hand as the delayed
    view has it (the JSON's ``hands``); without, no hand is printed."""
    from kartludo.app.matches.pipeline import MatchService

    shown = {}
    for hands in (True, False):
        m = k("match", "new", "svoi-kozyri", "--players", "ann,bob", "--seed", "3", "--watch-delay", "1",
              *(["--watch-hands"] if hands else [])).strip()
        k("match", "deal", m)
        with EventStore.open(db_url) as store:
            svc = MatchService(store)
            for _ in range(2):
                match = svc.load(m)
                seat = match.game.to_act(match.state)[0]
                verb, *args = match.game.legal_commands(match.state, seat)[0].text().split()
                svc.act(m, match.players[seat], verb, args)
        data = json.loads(k("state", m, "--watcher", "--json"))
        shown[hands] = (data.get("hands"), k("state", m, "--watcher"))
    hands, text = shown[True]
    assert set(hands) == {"ann", "bob"}
    for name, cards in hands.items():
        assert f"hand of {name}: {' '.join(cards)}" in text
    assert "hand of" not in shown[False][1]
