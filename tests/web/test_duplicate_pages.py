"""Duplicate play in the browser (issue 39): the event's page (/ui/duplicate/ID) shows the
progress grid, boards × tables (with a TD token who is to act at each board in play and a
link to its TD page; without one, statuses only), and the standings, refreshing by
itself; a player's table page says which board it is, shows the board's traveller once
every table has played it (and that it waits for them until then), and moves on to the
player's next board with the same token. Screenshots at 1280x800 and on a phone."""

from __future__ import annotations

import random
import re

import every_game

from kartludo.app.duplicate.boards import after_command, load_duplicate
from kartludo.app.matches.pipeline import MatchService

GAME = "uxinjo"
TABLES = [["ann", "bob", "cy"], ["dee", "eve", "fay"], ["gus", "hal", "ida"]]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def create(site, boards: int = 2) -> dict:
    return site.api("POST", "/duplicates", site.td_token, json={
        "game": GAME, "tables": TABLES, "boards": boards, "seed": 8, "label": "club night",
        "options": every_game.short_options(GAME)})


def play_board(store, dup: str, table: int, seed: int = 1) -> str:
    """Table ``table`` plays its board in play to its end (the library: another writer)."""
    svc = MatchService(store)
    rng = random.Random(seed)
    bot = every_game.heuristic(GAME)
    _, mid = load_duplicate(store, dup).latest(table)
    for _ in range(5000):
        match = svc.load(mid)
        if match.over:
            return mid
        game = match.game
        seat = game.to_act(match.state)[0]
        svc.execute(mid, svc.play(bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)),
                    actor=match.players[seat])
        after_command(svc, mid)
    raise AssertionError("a board did not end")


def no_placeholder(text: str) -> None:
    assert not re.search(r"\b(undefined|null|NaN|\[object Object\])\b", text), text


def test_the_event_page_shows_the_grid_and_the_standings(site, page, shots):
    dup = create(site)["duplicate"]
    play_board(site.store, dup, 1)
    play_board(site.store, dup, 2)
    # table 1 and 2 have played board 1 and play board 2; table 3 plays board 1
    page.set_viewport_size(DESKTOP)
    page.goto(f"{site.url}/ui/duplicate/{dup}#token={site.td_token}")
    page.wait_for_selector("#grid")
    assert "TD view" in page.inner_text("#role")
    status = {(int(c["table"]), int(c["board"])): c["status"] for c in page.eval_on_selector_all(
        "#grid td[data-status]", "es => es.map(e => ({...e.dataset}))")}
    assert status == {(1, 1): "played", (1, 2): "playing", (2, 1): "played", (2, 2): "playing",
                      (3, 1): "playing", (3, 2): "waiting"}
    progress = site.api("GET", f"/duplicates/{dup}", site.td_token)
    playing = progress["tables"][2]["boards"][0]
    cell = page.locator("#grid td[data-table='3'][data-board='1']")
    assert f"to act: {', '.join(playing['to_act'])}" in cell.inner_text()
    assert cell.locator(f"a[href='/ui/td/{playing['match']}']").count() == 1
    assert "club night" in page.inner_text("h1") and "2 of 6 played" in page.inner_text("#summary")
    # a TD reads every started board's traveller at once
    page.click("#travellers details[data-board='1'] summary")
    page.wait_for_selector("#traveller-1")
    assert page.locator("#traveller-1 tbody tr").count() == 2 * 3  # tables 1 and 2, three seats each
    no_placeholder(page.inner_text("main"))
    page.screenshot(path=shots / "event-td-desktop.png", full_page=True)
    # table 3 plays board 1: the page follows (it polls), the standings count the board
    play_board(site.store, dup, 3)
    page.wait_for_selector("#grid td[data-table='3'][data-board='1'][data-status='played']", timeout=15_000)
    page.wait_for_function("document.querySelector('#standings caption').textContent.includes('1 of 2 boards')",
                           timeout=15_000)
    assert page.locator("#standings tbody tr").count() == 9
    standings = site.api("GET", f"/duplicates/{dup}/standings")
    assert page.inner_text("#standings tbody tr:first-child th") == standings["rows"][0]["player"]
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "event-td-phone.png", full_page=True)
    # without a token: statuses only, no one to act, no TD page
    page.evaluate("sessionStorage.clear()")
    page.goto(f"{site.url}/ui/duplicate/{dup}")
    page.wait_for_selector("#grid")
    assert page.locator("#open-td").count() == 1
    assert "to act" not in page.inner_text("#grid") and page.locator("#grid a[href^='/ui/td/']").count() == 0
    assert [d.get_attribute("data-board") for d in page.locator("#travellers details").all()] == ["1"]
    no_placeholder(page.inner_text("main"))
    page.screenshot(path=shots / "event-public-phone.png", full_page=True)
    # a board's TD page says which board it was, its best score at that table (no "match" won)
    played = progress["tables"][0]["boards"][0]["match"]
    page.goto(f"{site.url}/ui/td/{played}#token={site.td_token}")
    page.wait_for_function("(document.getElementById('status')?.textContent || '').includes('best score')")
    assert f"board 1 of 2 (duplicate {dup})" in page.inner_text("#status")
    assert "wins the match" not in page.inner_text("main")


def test_a_players_table_page_shows_the_board_its_traveller_and_moves_on(site, page, shots):
    created = create(site)
    dup, tokens = created["duplicate"], created["tokens"]
    first = play_board(site.store, dup, 1)  # ann's table has played board 1, the others have not
    page.set_viewport_size(DESKTOP)
    # a player's one link: the event's page with the token opens the player's board in play
    page.goto(f"{site.url}/ui/duplicate/{dup}#token={tokens['ann']}")
    page.wait_for_url(re.compile(r"/ui/table/"))
    page.wait_for_selector("#board-line:not([hidden])")
    second = site.api("GET", f"/duplicates/{dup}/me", tokens["ann"])["match"]
    assert page.url.endswith(f"/ui/table/{second}") and second != first
    assert "Board 2 of 2" in page.inner_text("#board-line") and dup in page.inner_text("#board-line")
    # back to board 1: it has ended here, the other tables still play it
    page.goto(f"{site.url}/ui/table/{first}#token={tokens['ann']}")
    page.wait_for_selector("#traveller-waiting")
    assert "Board 1 of 2" in page.inner_text("#board-line")
    assert "still to be played at table 2, 3" in page.inner_text("#traveller-waiting")
    page.click("#stay")  # no moving on while the test watches
    assert page.inner_text("#next-board-go") == "Play board 2 →"
    page.screenshot(path=shots / "table-waiting-desktop.png", full_page=True)
    # the other tables play board 1: the traveller shows (the page asks again every few seconds)
    play_board(site.store, dup, 2, seed=2)
    play_board(site.store, dup, 3, seed=3)
    page.wait_for_selector("#traveller table", timeout=20_000)
    assert page.locator("#traveller tbody tr").count() == 9
    mine = page.locator("#traveller tbody tr.mine")
    assert mine.count() == 3 and "ann" in page.inner_text("#traveller tbody")
    traveller = site.api("GET", f"/duplicates/{dup}/boards/1", tokens["ann"])
    assert " ".join(traveller["deck"]) in page.inner_text("#traveller")
    no_placeholder(page.inner_text("main"))
    page.screenshot(path=shots / "table-traveller-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "table-traveller-phone.png", full_page=True)
    # on to the next board, with the same token
    page.click("#next-board-go")
    page.wait_for_url(f"**/ui/table/{second}")
    page.wait_for_selector("#board-line:not([hidden])")
    assert "Board 2 of 2" in page.inner_text("#board-line")
    state = site.api("GET", f"/matches/{second}/state", tokens["ann"])
    assert list(state["hands"]) == ["ann"]
    page.wait_for_function(f"document.querySelectorAll('#dock .dock-hand [data-card]').length === "
                           f"{len(state['hands']['ann'])}")
    no_placeholder(page.inner_text("main"))
    page.screenshot(path=shots / "table-board2-phone.png", full_page=True)


def test_a_player_token_is_no_seat_of_another_tables_board(site, page):
    created = create(site, boards=1)
    dup, tokens = created["duplicate"], created["tokens"]
    theirs = site.api("GET", f"/duplicates/{dup}/me", tokens["dee"])["match"]
    page.goto(f"{site.url}/ui/table/{theirs}#token={tokens['ann']}")
    page.wait_for_selector("p.error")
    assert "plays no seat" in page.inner_text("p.error")
    assert page.locator("#dock").count() == 0
