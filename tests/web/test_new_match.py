"""Creating a match in the browser and handing out its seats (issue 44): a TD, with a
TD token in the URL fragment as on the other TD pages, chooses the game, the players in
seat order and the game's options; the match is created (POST /matches, the first deal
dealt by the table at once), and each seat's link to copy opens that player's table,
holding that seat's token, where the first deal is on and only that seat's cards show."""

from __future__ import annotations

import re

import pytest

from kartludo.app.matches.pipeline import MatchService

PHONE = {"width": 390, "height": 844}


def hand_faces(state: dict) -> set[str]:
    return {c for hand in state.get("hands", {}).values() for c in hand if c != "??"}


@pytest.mark.parametrize(("game", "players", "option", "value"), [
    ("svoi-kozyri", ["ann", "bob", "cy"], "deals", "3"),
    ("hakamo", ["ann", "bob", "cy", "dee"], None, None),
])
def test_a_td_creates_a_match_and_each_seat_link_opens_that_seats_table(site, browser, shots, game, players,
                                                                         option, value):
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    page = ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    contexts = [ctx]
    try:
        page.goto(f"{site.url}/ui/new#token={site.td_token}")
        page.wait_for_selector("#new-match")
        assert "token=" not in page.url, "the TD token left the address bar"
        page.select_option("#game", game)
        assert page.eval_on_selector("#count", "s => s.value") == str(max(next(
            g for g in site.api("GET", "/games") if g["name"] == game)["player_counts"]))
        if page.is_enabled("#count"):  # a game with one player count has nothing to choose
            page.select_option("#count", str(len(players)))
        seats = page.eval_on_selector_all("#seats label", "ls => ls.map(l => l.textContent.trim())")
        labels = site.api("GET", "/games")
        expect = next(g for g in labels if g["name"] == game)["seats"][: len(players)]
        assert seats == [f"Seat {s}" for s in expect], "the seats by the game's own labels"
        for i, name in enumerate(players):
            page.fill(f"#player-{i}", name)
        if option:
            page.fill(f"#option-{option}", value)
        timed = game == "hakamo"  # one of the two on a clock whose flag fall costs the time penalty
        if timed:
            page.fill("#clock", "5m+10s")
            page.select_option("#on-flag", "bot-penalty")
            assert page.get_attribute("#clock-rules", "href") == "/ui/rules/hakamo#s-clocks"
        assert page.is_checked("#auto-deal")
        page.screenshot(path=shots / f"{game}-form.png", full_page=True)
        page.click("#create")
        page.wait_for_selector("#seat-links")
        mid = re.search(r"Match (\w+) created", page.inner_text("h1")).group(1)
        state = site.api("GET", f"/matches/{mid}/state", site.td_token)
        assert state["game"] == game and state["players"] == players and state["deal"] == 1, "dealt at once"
        if option:
            assert str(state["options"][option]) == value
        if timed:
            assert (state["clock"]["control"], state["clock"]["consequence"]) == ("5m+10s", "bot-penalty")
        else:
            assert "clock" not in state
        links = page.eval_on_selector_all("#seat-links input", "is => is.map(i => i.value)")
        assert len(links) == len(players) and all(f"/ui/table/{mid}#token=kt_" in link for link in links)
        page.screenshot(path=shots / f"{game}-links.png", full_page=True)
        page.click(f"#seat-links button[data-copy='{players[1]}']")
        assert page.evaluate("navigator.clipboard.readText()") == links[1]
        # each link opens its own seat: the first on a phone
        for i, (player, link) in enumerate(zip(players, links, strict=True)):
            seat_ctx = browser.new_context(viewport=PHONE if i == 0 else {"width": 1280, "height": 800})
            contexts.append(seat_ctx)
            seat = seat_ctx.new_page()
            seat.on("pageerror", lambda exc: errors.append(str(exc)))
            seat.goto(link)
            seat.wait_for_selector("#dock[data-version]")
            assert seat.inner_text("h1").endswith(f"· {player}")
            assert seat.inner_text("#status").startswith("Deal 1")
            mine = site.api("GET", f"/matches/{mid}/state", link.partition("#token=")[2])
            hidden = hand_faces(state) - hand_faces(mine)
            drawn = set(seat.eval_on_selector_all("[data-card]", "es => es.map(e => e.dataset.card)"))
            assert hidden and not (hidden & drawn), "no other seat's card on this seat's page"
            docked = seat.eval_on_selector_all("#dock .dock-hand [data-card]", "es => es.map(e => e.dataset.card)")
            assert sorted(docked) == sorted(mine["hands"][player])
            if i == 0:
                seat.screenshot(path=shots / f"{game}-seat-phone.png")
        svc = MatchService(site.store)
        assert [r.actor for r in svc.records(mid) if r.type == "match.deal-started"] == ["table"]
        # the TD page of the new match: the table deals by itself
        page.click("#td-link")
        page.wait_for_selector("#auto-deal")
        page.wait_for_function("document.getElementById('auto-deal').textContent.includes('deals by itself')")
    finally:
        for c in contexts:
            c.close()
    assert not errors, errors


def test_the_form_refuses_what_the_service_refuses_and_a_seat_token_cannot_create(site, page):
    created = site.api("POST", "/matches", site.td_token, json={"game": "uxinjo", "players": ["a", "b", "c"]})
    page.goto(f"{site.url}/ui/new#token={created['tokens']['a']}")
    page.wait_for_selector("p.error")
    assert "needs a TD token" in page.inner_text("p.error")
    page.fill("#token", site.td_token)
    page.click("form.token button[type=submit]")
    page.wait_for_selector("#new-match")
    page.select_option("#game", "uxinjo")
    for i, name in enumerate(["ann", "bob", "ann"]):
        page.fill(f"#player-{i}", name)
    before = site.store.head_position()
    page.click("#create")
    page.wait_for_selector("#message [role=alert]")
    assert "duplicate player ann" in page.inner_text("#message")
    assert site.store.head_position() == before, "nothing written"
    assert not page.is_disabled("#create"), "the TD may correct it and try again"
