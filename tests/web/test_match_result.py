"""The end of a match (issue 44): once a match is over, its state (over the API, and
`kartludo state` on the command line) carries the result: the winners and the final
ranking by the game's own total, ties sharing a place; every seat's table, the TD page
and the replay's last step show it, and the status line says who won (never "match
over · match over"). A whole Svoi Kozyri match is played to its end by clicks."""

from __future__ import annotations

import random
import re

import every_game
import pytest
from every_game import games, heuristic, short_options

from kartludo.app.matches.pipeline import MatchService

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
#: a game's own options for this test, over its short ones (Option.short)
OPTIONS = {"laugavatnsmanni": {"max_deals": "3"}}


def play_to_the_end(store, mid: str, seed: int) -> None:
    """The heuristic bots play every deal of the match (the pipeline: another writer)."""
    svc = MatchService(store)
    rng = random.Random(seed)
    for _ in range(20_000):
        match = svc.load(mid)
        game = match.game
        if match.over:
            return
        if game.can_deal(match.state):
            svc.deal(mid)
            continue
        seat = game.to_act(match.state)[0]
        choice = heuristic(game.name).choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)
        svc.execute(mid, svc.play(choice), actor=match.players[seat])
    raise AssertionError("the match did not end")


def check_result(state: dict) -> dict:
    """The result's fields agree with each other and with the game's totals."""
    r = state["result"]
    ranking = r["ranking"]
    assert [row["player"] for row in ranking] and sorted(row["player"] for row in ranking) == sorted(state["players"])
    assert [row["rank"] for row in ranking] == sorted(row["rank"] for row in ranking), "best first"
    assert r["winners"] == [row["player"] for row in ranking if row["rank"] == 1] and r["winners"]
    better = max if r["higher_is_better"] else min
    best = better(row["score"] for row in ranking)
    assert all(row["score"] == best for row in ranking if row["rank"] == 1), "the winners have the best total"
    assert [row["score"] for row in ranking] == sorted((row["score"] for row in ranking), reverse=r["higher_is_better"])
    return r


@pytest.mark.parametrize("game", games())
def test_a_finished_match_shows_its_winner_and_final_ranking(site, browser, shots, game):
    players, options = every_game.players(game), short_options(game) | OPTIONS.get(game, {})
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": game, "players": players, "seed": 3, "options": options, "auto_deal": False})
    mid, tokens = created["match"], created["tokens"]
    running = site.api("GET", f"/matches/{mid}/state", site.td_token)
    assert "result" not in running or running["result"] is None, "no result while the match runs"
    play_to_the_end(site.store, mid, seed=3)
    public = site.api("GET", f"/matches/{mid}/state")
    r = check_result(public)
    assert site.api("GET", f"/matches/{mid}/state", tokens[players[0]])["result"] == r, "the same for every reader"
    winners = " and ".join(r["winners"])
    # the command line says the same, in one line after the table
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    said = CliRunner().invoke(cli, ["--db", str(site.store.url), "state", mid], catch_exceptions=False).output
    last = said.strip().splitlines()[-1]
    assert last.startswith(f"result: {winners} ") and all(f" {row['player']} (" in last for row in r["ranking"]), last
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for player in players[:2]:
            page.goto(f"{site.url}/ui/table/{mid}#token={tokens[player]}")
            page.wait_for_selector("#table .t-result")
            status = page.inner_text("#status")
            assert "match over · match over" not in status and status.count("match over") == 1, status
            assert winners in status and ("wins the match" in status or "share first place" in status), status
            assert page.title().startswith("Match over")
            shown = page.eval_on_selector_all("#table .t-ranking li",
                                              "ls => ls.map(l => [l.dataset.player, Number(l.dataset.rank)])")
            assert shown == [[row["player"], row["rank"]] for row in r["ranking"]]
            assert winners in page.inner_text("#winner")
            assert winners in page.inner_text("#dock")
            page.screenshot(path=shots / f"{game}-{player}-end.png")
        page.goto(f"{site.url}/ui/td/{mid}#token={site.td_token}")
        page.wait_for_selector("#table .t-result")
        assert winners in page.inner_text("#status") and "match over · match over" not in page.inner_text("#status")
        deal = public["deal"]
        page.goto(f"{site.url}/ui/replay/{mid}?deal={deal}&step=100000")
        page.wait_for_selector("#table section.t-table")
        page.keyboard.press("End")
        page.wait_for_selector("#table .t-result")
        assert not re.search(r"\b(undefined|null|NaN)\b", page.inner_text("#table"))
    finally:
        ctx.close()
    assert not errors, errors


def test_a_whole_svoi_kozyri_match_by_clicks_ends_with_the_result_on_every_seat(site, browser, shots):
    players = ["ann", "bob", "cy"]
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": "svoi-kozyri", "players": players, "seed": 9, "options": {"deals": "1"}})
    mid, tokens = created["match"], created["tokens"]
    errors: list[str] = []
    contexts, pages = [], {}
    try:
        for i, player in enumerate(players):
            ctx = browser.new_context(viewport=PHONE if i == 0 else DESKTOP)
            contexts.append(ctx)
            pg = ctx.new_page()
            pg.on("pageerror", lambda exc: errors.append(str(exc)))
            pg.goto(f"{site.url}/ui/table/{mid}#token={tokens[player]}")
            pages[player] = pg
        rng = random.Random(9)
        svc = MatchService(site.store)
        moves = 0
        for _ in range(1000):
            match = svc.load(mid)
            if match.over:
                break
            game, state = match.game, match.state
            seat = game.to_act(state)[0]
            player = players[seat]
            pg = pages[player]
            pg.wait_for_selector(f"#dock[data-version='{match.version}']")
            command = game.bots()["heuristic"].choose(game, state, seat, game.legal_commands(state, seat), rng).text()
            target = pg.locator(f"#dock [data-command='{command}']").first
            if command.startswith("play ") and player != players[0] and rng.random() < 0.3:  # desktop seats drag
                # a player drags onto the table they can see: with a long hand on the table the
                # page is taller than the window, and the dock stays at its bottom (sticky)
                centre = pg.locator("#drop .t-centre")
                centre.scroll_into_view_if_needed()
                target.drag_to(centre)
            else:
                target.click()
            pg.wait_for_function(f"Number(document.getElementById('dock').dataset.version) > {match.version}")
            moves += 1
        else:
            pytest.fail("the match did not end")
        r = check_result(site.api("GET", f"/matches/{mid}/state"))
        for player, pg in pages.items():
            pg.wait_for_selector("#table .t-result")
            assert " and ".join(r["winners"]) in pg.inner_text("#status")
            pg.screenshot(path=shots / f"end-{player}.png")
        assert moves > 10
    finally:
        for ctx in contexts:
            ctx.close()
    assert not errors, errors
