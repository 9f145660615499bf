"""The Rulings page's filters and a player's own appeal, the series pages, and the
standings on a phone (issue 44):

- /ui/audit filters by status, player and game (and match), as ``audit list`` does, and
  keeps them in the URL;
- a player of the match appeals a ruling on its page with their seat token; another
  player's earlier appeal does not block the penalised player's own (each person
  appeals once; every appeal is recorded, one decision answers them all);
- /ui/series lists every series as ``series list`` does, each linking to its page;
- on a phone the standings show the rating beside the player, every column on request.
"""

from __future__ import annotations

import random

import httpx
from scenarios import foul_deal, foul_then_void_win

from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService

PHONE = {"width": 390, "height": 844}


def rows(page, table: str = "#rulings") -> list[str]:
    return page.eval_on_selector_all(f"{table} tbody tr", "rs => rs.map(r => r.dataset.ruling || r.dataset.series)")


def test_rulings_filter_by_status_player_and_game(site, page, shots):
    svc = MatchService(site.store)
    first = foul_then_void_win(svc)  # ann fouls in deal 1
    second = foul_then_void_win(svc, players=["dan", "eve", "fay"])  # dan fouls
    listed = site.api("GET", "/audit")
    by_player = {r["player"]: r for r in listed}
    assert {"ann", "dan"} <= set(by_player)
    appealed = by_player["dan"]
    site.api("POST", f"/audit/{second}/{appealed['ruling_id']}/appeal", site.td_token, json={"reason": "check it"})
    page.goto(f"{site.url}/ui/audit")
    page.wait_for_selector("#rulings")
    assert len(rows(page)) == len(listed)
    page.select_option("#filter-status", "appealed")
    page.wait_for_function("document.querySelectorAll('#rulings tbody tr').length === 1")
    assert rows(page) == [appealed["id"]] and "status=appealed" in page.url
    page.select_option("#filter-status", "")
    page.wait_for_function(f"document.querySelectorAll('#rulings tbody tr').length === {len(listed)}")
    page.select_option("#filter-player", "ann")
    page.wait_for_function("new URLSearchParams(location.search).get('player') === 'ann'")
    page.wait_for_function(f"document.querySelectorAll('#rulings tbody tr').length === "
                           f"{sum(r['player'] == 'ann' for r in listed)}")
    assert rows(page) and all(r.startswith(first) for r in rows(page))
    page.screenshot(path=shots / "rulings-ann.png", full_page=True)
    page.select_option("#filter-game", "hakamo")
    page.wait_for_selector("#no-rulings")
    assert "No ruling matches these filters" in page.inner_text("#no-rulings")
    # the URL keeps the filters: a reload (or a shared link) shows the same
    page.goto(f"{site.url}/ui/audit?status=appealed&game=uxinjo")
    page.wait_for_selector("#rulings")
    assert rows(page) == [appealed["id"]]
    assert page.eval_on_selector("#filter-status", "s => s.value") == "appealed"
    # an appealable ruling links to its appeal form
    assert page.locator(f"tr[data-ruling='{appealed['id']}'] a[href$='#appeal']").count() == 1


def test_a_player_appeals_on_the_ruling_page_and_another_players_appeal_does_not_block_it(site, browser, shots):
    players = ["ann", "bob", "cy"]
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": "uxinjo", "players": players, "seed": 1, "auto_deal": False})
    mid, tokens = created["match"], created["tokens"]
    foul_deal(MatchService(site.store), mid, 0)  # ann's munt is a foul
    ruling = next(r for r in site.api("GET", "/audit", params={"match": mid}) if r["player"] == "ann")
    url = f"{site.url}/ui/audit/{mid}/{ruling['ruling_id']}"
    contexts = []
    errors: list[str] = []

    def open_as(player: str | None, viewport=None):
        ctx = browser.new_context(viewport=viewport or {"width": 1280, "height": 800})
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.goto(url + (f"#token={tokens[player]}" if player else "#appeal"))
        pg.wait_for_selector("#appeal")
        return pg

    def appeal(pg, reason: str) -> None:
        pg.fill("#appeal-reason", reason)
        pg.click("#appeal-send")

    try:
        # bob (not the penalised player) appeals first
        bob = open_as("bob")
        assert "Appealing as bob" in bob.inner_text("#appeal-form")
        appeal(bob, "the hand held two sets")
        bob.wait_for_selector("#notice")
        assert "appealed" in bob.inner_text("#ruling-status")
        assert "by bob" in bob.inner_text("#history")
        # the penalised player's own appeal is still accepted, and recorded beside bob's
        ann = open_as("ann", PHONE)
        assert "Appealing as ann" in ann.inner_text("#appeal-form")
        appeal(ann, "I had R1 R2 R3 and a trio")
        ann.wait_for_selector("#notice")
        history = ann.inner_text("#history")
        assert "by bob" in history and "by ann" in history and "I had R1 R2 R3 and a trio" in history
        ann.screenshot(path=shots / "appeal-phone.png", full_page=True)
        assert ann.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the form fits a phone"
        # each person appeals once
        appeal(ann, "again")
        ann.wait_for_selector("#appeal-message [role=alert]")
        assert "already appealed" in ann.inner_text("#appeal-message")
        # a reader without a token is asked for their seat token
        stranger = open_as(None, PHONE)
        assert stranger.locator("#appeal-token").count() == 1
        stranger.fill("#appeal-token", tokens["cy"])
        appeal(stranger, "me too")
        stranger.wait_for_selector("#notice")
        assert "by cy" in stranger.inner_text("#history")
        # one decision answers every appeal; then the appeal is closed
        decided = httpx.post(f"{site.url}/audit/{mid}/{ruling['ruling_id']}/decide",
                             headers={"Authorization": f"Bearer {site.td_token}"},
                             json={"decision": "uphold", "reason": "one set only"})
        assert decided.status_code == 201, decided.text
        bob.reload()
        bob.wait_for_selector("#appeal-closed")
        assert "Decided (upheld)" in bob.inner_text("#appeal-closed")
    finally:
        for ctx in contexts:
            ctx.close()
    assert not errors, errors


def test_the_series_list_and_a_series_page(site, page, shots):
    svc = MatchService(site.store)
    first = create_series(site.store, "uxinjo", ["ann", "bob", "cy"], 600, actor="td")
    other = create_series(site.store, "svoi-kozyri", ["dan", "eve"], 90, actor="td")
    foul_then_void_win(svc, series=first)
    page.goto(f"{site.url}/ui/series")
    page.wait_for_selector("#series")
    assert sorted(rows(page, "#series")) == sorted([first, other])
    text = page.inner_text(f"#series tr[data-series='{first}']")
    assert "Uxinjo" in text and "running" in text and "ann, bob, cy" in text
    page.screenshot(path=shots / "series-list.png", full_page=True)
    page.select_option("#filter-game", "svoi-kozyri")
    page.wait_for_function("document.querySelectorAll('#series tbody tr').length === 1")
    assert rows(page, "#series") == [other]
    page.select_option("#filter-game", "")
    page.select_option("#filter-player", "ann")
    page.wait_for_function("document.querySelectorAll('#series tbody tr').length === 1")
    page.click(f"#series a[href='/ui/series/{first}']")
    page.wait_for_selector("#series-standings")
    assert page.locator("#series-matches li").count() == 1
    assert {r["series"] for r in site.api("GET", "/series")} == {first, other}
    # on a phone the lists are one block per row, each value named: nothing off-screen
    ctx = page.context.browser.new_context(viewport=PHONE)
    phone = ctx.new_page()
    try:
        for path, table in [("/ui/series", "#series"), ("/ui/audit", "#rulings"), ("/ui/", "#matches")]:
            phone.goto(site.url + path)
            phone.wait_for_selector(f"{table} tbody tr")
            right = phone.eval_on_selector_all(f"{table} td",
                                               "cs => Math.max(...cs.map(c => c.getBoundingClientRect().right))")
            assert right <= PHONE["width"], path
            assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
            named = phone.eval_on_selector_all(f"{table} td[data-label]",
                                               "cs => cs.map(c => getComputedStyle(c, '::before').content)")
            assert '"Game: "' in named, (path, named)  # each value named on a phone
        phone.screenshot(path=shots / "matches-phone.png")
    finally:
        ctx.close()
    assert [r["series"] for r in site.api("GET", "/series", params={"game": "svoi-kozyri"})] == [other]
    assert [r["series"] for r in site.api("GET", "/series", params={"player": "ann", "status": "running"})] == [first]


def test_the_standings_show_the_rating_on_a_phone(site, browser, shots):
    svc = MatchService(site.store)
    rng = random.Random(2)
    for seed in (1, 2):
        mid = svc.create("svoi-kozyri", ["ann", "bob", "cy"], seed=seed, options={"deals": "1"})
        while not svc.load(mid).over:
            match = svc.load(mid)
            game = match.game
            if game.can_deal(match.state):
                svc.deal(mid)
                continue
            seat = game.to_act(match.state)[0]
            svc.execute(mid, svc.play(rng.choice(game.legal_commands(match.state, seat))), actor=match.players[seat])
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    try:
        page.goto(f"{site.url}/ui/standings?game=svoi-kozyri")
        page.wait_for_selector("#standings")
        heads = page.eval_on_selector_all("#standings thead th", "hs => hs.map(h => h.innerText)")
        assert heads[:3] == ["rank", "player", "rating"]
        right = page.eval_on_selector_all("#standings th, #standings td",
                                          "cs => Math.max(...cs.map(c => c.getBoundingClientRect().right))")
        assert right <= 390 and page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=shots / "standings-phone.png", full_page=True)
        page.click("#columns")
        page.wait_for_function("[...document.querySelectorAll('#standings th')].some(h => h.innerText === 'sigma')")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the table scrolls in its box"
    finally:
        ctx.close()
