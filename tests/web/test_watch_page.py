"""The public watch page (/ui/watch/MATCH, issue 40): the table read-only as anyone
without a token sees it. With a watch delay of k moves the page (its table and its feed
of events, fed by the live stream) never shows move n before move n + k has been made;
every game of the registry is played; the seats' table page counts the watchers."""

from __future__ import annotations

import random

import every_game
import pytest
from every_game import games, heuristic

from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.registry import get_game

#: the highest version the page has ever shown, in its table or its feed (kept by the page's own DOM)
WATCH_MAX = """() => {
  if (!window.__maxShown) {
    window.__maxShown = 0;
    const note = () => {
      const t = document.getElementById('table');
      const v = [t ? Number(t.dataset.version || 0) : 0,
                 ...[...document.querySelectorAll('#feed li')].map(li => Number(li.dataset.version))];
      window.__maxShown = Math.max(window.__maxShown, ...v);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
    note();
  }
  return window.__maxShown;
}"""


def _move(site, mid, tokens, players, game, rng, bot):
    svc = MatchService(site.store)
    state = svc.load(mid).state
    seat = game.to_act(state)[0]
    command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
    verb, *args = command.text().split()
    return site.api("POST", f"/matches/{mid}/commands", tokens[players[seat]], json={"verb": verb, "args": args})


@pytest.mark.parametrize("game_name", games())
def test_watch_page_is_never_ahead_of_the_delay(game_name, site, page, browser, shots):
    game = get_game(game_name)
    players = every_game.players(game_name)
    rng = random.Random(f"page-{game_name}")
    k = 2
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": game_name, "players": players, "watch_delay": str(k), "watch_hands": True})
    mid, tokens = created["match"], created["tokens"]
    page.goto(f"{site.url}/ui/watch/{mid}")
    page.wait_for_selector("#table[data-version]")
    page.wait_for_function("(document.getElementById('connection') || {}).textContent === 'following'")
    page.evaluate(WATCH_MAX)
    assert page.inner_text("#watch-delay") == "Delayed by 2 moves · every hand shown (delayed)"
    # a seat's table page counts the watcher
    seat_page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    seat_page.goto(f"{site.url}/ui/table/{mid}#token={tokens[players[0]]}")
    seat_page.wait_for_function("(document.getElementById('watchers') || {}).textContent === '1 watching'")
    bot = heuristic(game_name)
    firsts = []
    svc = MatchService(site.store)
    for _ in range(8):
        out = _move(site, mid, tokens, players, game, rng, bot)
        firsts.append(out["first_version"])
        if game.is_finished(svc.load(mid).state):
            break
        cut = firsts[-k] - 1 if len(firsts) >= k else firsts[0] - 1
        # readiness: the page shows the cut (the stream sent it, the page fetched that state)
        page.wait_for_selector(f"#feed li[data-version='{cut}']")
        page.wait_for_function(f"Number(document.getElementById('table').dataset.version) >= {cut}")
        assert page.evaluate(WATCH_MAX) == cut, (page.evaluate(WATCH_MAX), cut)
    assert "delayed" in page.get_attribute("#watch-delay", "class")
    page.screenshot(path=shots / "watch-desktop.png", full_page=True)
    seat_page.screenshot(path=shots / "seat-with-watchers.png")
    seat_page.context.close()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                is_mobile=True, has_touch=True).new_page()
    phone.goto(f"{site.url}/ui/watch/{mid}")
    phone.wait_for_selector("#table[data-version]")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    phone.screenshot(path=shots / "watch-phone.png", full_page=True)
    phone.context.close()


def test_td_page_shows_and_sets_the_watch_delay(site, page, shots):
    game_name = games()[0]
    players = every_game.players(game_name)
    created = site.api("POST", "/matches", site.td_token, json={"game": game_name, "players": players})
    mid = created["match"]
    page.goto(f"{site.url}/ui/td/{mid}#token={site.td_token}")
    page.wait_for_selector("#watch-link")
    assert "watchers see it live" in page.inner_text("#watch-info")
    page.fill("#watch-delay-input", "2x")
    page.click("#watch-form button[type=submit]")
    page.wait_for_selector("#message .error, #message [role=alert]")
    assert "'2x' is not a number of moves" in page.inner_text("#message")
    assert site.api("GET", f"/matches/{mid}/watch")["delay"] == "live"  # nothing written
    page.fill("#watch-delay-input", "3")
    page.check("#watch-hands-input")
    page.click("#watch-form button[type=submit]")
    page.wait_for_function("document.getElementById('watch-info').textContent.includes('delayed by 3 moves')")
    assert site.api("GET", f"/matches/{mid}/watch") == {"match": mid, "delay": "3 moves", "moves": 3,
                                                        "seconds": None, "hands": True, "by": "td"}
    page.screenshot(path=shots / "td-watch.png", full_page=True)


def test_the_new_match_page_sets_the_watch_delay(site, page):
    page.goto(f"{site.url}/ui/new#token={site.td_token}")
    page.wait_for_selector("#new-match")
    page.select_option("#game", "uxinjo")
    for i, name in enumerate(["ann", "bob", "cy"]):
        page.fill(f"#player-{i}", name)
    page.check("#watch-hands")
    before = site.store.head_position()
    page.click("#create")
    page.wait_for_selector("#message [role=alert]")
    assert "needs a watch delay" in page.inner_text("#message")
    assert site.store.head_position() == before, "nothing written"
    page.fill("#watch-delay", "30s")
    page.click("#create")
    page.wait_for_selector("#watch-link")
    mid = page.get_attribute("#watch-link", "href").rsplit("/", 1)[1]
    assert site.api("GET", f"/matches/{mid}/watch")["seconds"] == 30
    assert "delayed by 30s" in page.inner_text("main")
