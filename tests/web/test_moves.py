"""Making moves on the seat table (issue 44): a card whose move is unambiguous is played
by one click, by Enter on it, or by dragging it onto the table, with no button to
confirm; keyboard focus stays in the hand after a move; the tab's title says "Your
turn" while the seat is to act, and a chime (off by default, switched on per browser)
sounds when the turn comes; the game's words link to their rules sections."""

from __future__ import annotations

import re

import httpx

from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.registry import game_names

DESKTOP = {"width": 1280, "height": 800}
#: a Web Audio stand-in counting the notes started (a headless browser plays no sound)
FAKE_AUDIO = """
window.__notes = 0;
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createOscillator() { return { frequency: {}, connect: (g) => g, start: () => { window.__notes += 1; }, stop() {} }; }
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d }; }
};
"""


def open_seat(browser, site, mid: str, token: str, errors: list[str], viewport=DESKTOP, init: str | None = None):
    ctx = browser.new_context(viewport=viewport)
    if init:
        ctx.add_init_script(init)
    pg = ctx.new_page()
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pg.on("console", lambda msg: errors.append(f"console: {msg.text}")
          if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    pg.goto(f"{site.url}/ui/table/{mid}#token={token}")
    pg.wait_for_selector("#dock[data-version]")
    return ctx, pg


def td_state(site, mid: str) -> dict:
    return site.api("GET", f"/matches/{mid}/state", site.td_token)


def moved(pg, version: int) -> None:
    pg.wait_for_function(f"Number(document.getElementById('dock').dataset.version) > {version}")


def focus_in_hand(pg) -> bool:
    return pg.evaluate("!!(document.activeElement && document.activeElement.closest('#dock .dock-hand'))")


def last_play(site, mid: str) -> dict:
    events = site.api("GET", f"/matches/{mid}/events", site.td_token)
    return [e for e in events if e["type"].startswith("svoi-kozyri.") and "card" in e["payload"]][-1]


def test_a_card_is_played_by_one_click_by_enter_or_by_dragging_it_and_focus_stays_in_the_hand(site, browser, shots):
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": "svoi-kozyri", "players": ["ann", "bob", "cy"], "seed": 2})
    mid, tokens = created["match"], created["tokens"]
    errors: list[str] = []
    contexts, pages = [], {}
    try:
        for player, token in tokens.items():
            ctx, pg = open_seat(browser, site, mid, token, errors)
            contexts.append(ctx)
            pages[player] = pg
        ways = ["enter", "drag", "click"]
        while ways:
            state = td_state(site, mid)
            player, version = state["to_act"][0], state["version"]
            pg = pages[player]
            pg.wait_for_selector(f"#dock[data-version='{version}']")
            moves = site.api("GET", f"/matches/{mid}/moves", tokens[player])
            play = next((s for s in moves["shapes"] if s["verb"] == "play"), None)
            if play is None:  # nothing beats the top card: pick up (over the API) and go on
                site.api("POST", f"/matches/{mid}/commands", tokens[player], json={"verb": "pickup", "args": []})
                continue
            way = ways.pop(0)
            # the title and the dock say whose turn it is
            assert pg.title().startswith("▶ Your turn"), pg.title()
            assert pg.inner_text("#turn-cue") == "Your turn"
            for other, opg in pages.items():
                if other != player:
                    opg.wait_for_selector(f"#dock[data-version='{version}']")
                    assert not opg.title().startswith("▶"), (other, opg.title())
                    assert opg.locator("#turn-cue").count() == 0
            # every card the seat may play is played by one click: no button to confirm
            direct = pg.eval_on_selector_all("#dock .dock-hand button.direct", "es => es.map(e => e.dataset.command)")
            assert direct == [f"play {c}" for c in play["cards"]]
            assert pg.locator("#legal .cards-move[data-verb='play']").count() == 0
            assert "Click a card in your hand to play it" in pg.inner_text("#legal")
            code = play["cards"][-1]
            card = pg.locator(f"#dock .dock-hand [data-command='play {code}']")
            assert card.get_attribute("aria-label").startswith("Play ")
            if way == "enter":
                card.focus()
                pg.keyboard.press("Enter")
            elif way == "drag":
                card.drag_to(pg.locator("#drop .t-centre"))
            else:
                card.click()
            moved(pg, version)
            event = last_play(site, mid)
            assert (event["actor"], event["payload"]["card"]) == (player, code), way
            assert focus_in_hand(pg), f"focus left the hand after a move by {way}"
            if player not in td_state(site, mid)["to_act"]:  # (after beating, the same seat adds a card)
                pg.wait_for_function("!document.title.startsWith('▶')")
            pg.screenshot(path=shots / f"after-{way}.png")
    finally:
        for ctx in contexts:
            ctx.close()
    assert not errors, "\n".join(errors)


def test_a_card_two_verbs_could_take_is_selected_first(site, page):
    """An Uxinjo discard phase: a Jx card may be discarded or taken out (eltiri), so a
    click selects it and a button says which; any other card is discarded at once."""
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 11})
    mid, tokens = created["match"], created["tokens"]
    state = td_state(site, mid)
    player = state["to_act"][0]
    site.api("POST", f"/matches/{mid}/commands", tokens[player], json={"verb": "draw", "args": []})
    moves = site.api("GET", f"/matches/{mid}/moves", tokens[player])
    cards = {s["verb"]: s["cards"] for s in moves["shapes"] if s["kind"] == "cards"}
    page.goto(f"{site.url}/ui/table/{mid}#token={tokens[player]}")
    page.wait_for_selector("#dock .dock-hand button.selectable")
    for code in cards["discard"]:
        command = page.get_attribute(f"#dock .dock-hand [data-card='{code}']", "data-command")
        assert command == (None if code in cards.get("eltiri", []) else f"discard {code}"), code
    if cards.get("eltiri"):
        code = cards["eltiri"][0]
        page.click(f"#dock .dock-hand [data-card='{code}']")
        page.wait_for_selector(f"#dock .dock-hand [data-card='{code}'][aria-pressed='true']")
        assert page.get_attribute("#legal .cards-move[data-verb='eltiri'] button", "data-command") == f"eltiri {code}"
        assert page.get_attribute("#legal .cards-move[data-verb='discard'] button", "data-command") == f"discard {code}"
        page.click(f"#dock .dock-hand [data-card='{code}']")  # dropped again
    plain = next(c for c in cards["discard"] if c not in cards.get("eltiri", []))
    version = td_state(site, mid)["version"]
    page.click(f"#dock .dock-hand [data-card='{plain}']")
    moved(page, version)
    events = site.api("GET", f"/matches/{mid}/events", site.td_token)
    assert [e["payload"]["card"] for e in events if e["type"] == "uxinjo.discarded"][-1] == plain
    assert focus_in_hand(page)


def test_the_chime_is_off_by_default_and_sounds_when_the_turn_comes_once_switched_on(site, browser):
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": "svoi-kozyri", "players": ["ann", "bob"], "seed": 5})
    mid, tokens = created["match"], created["tokens"]
    first = td_state(site, mid)["to_act"][0]
    me = next(p for p in tokens if p != first)  # waits first, so the turn comes to the open page
    errors: list[str] = []
    ctx, pg = open_seat(browser, site, mid, tokens[me], errors, init=FAKE_AUDIO)
    try:
        assert not pg.is_checked("#sound") and pg.evaluate("localStorage.getItem('kartludo-sound')") is None

        def others_move() -> None:
            """The other seat moves until it is this seat's turn (over the API)."""
            for _ in range(20):
                state = td_state(site, mid)
                if me in state["to_act"]:
                    pg.wait_for_function("document.title.startsWith('▶ Your turn')")
                    return
                other = state["to_act"][0]
                legal = site.api("GET", f"/matches/{mid}/legal", tokens[other])
                verb, *args = legal[0].split()
                site.api("POST", f"/matches/{mid}/commands", tokens[other], json={"verb": verb, "args": args})
            raise AssertionError("the turn never came")

        def my_moves() -> None:
            """This seat moves on its page until the turn passes (after beating it adds a card)."""
            while me in (state := td_state(site, mid))["to_act"]:
                pg.wait_for_selector(f"#dock[data-version='{state['version']}']")
                command = site.api("GET", f"/matches/{mid}/legal", tokens[me])[0]
                pg.click(f"#dock [data-command='{command}']")
                moved(pg, state["version"])

        others_move()
        assert pg.evaluate("window.__notes") == 0, "no sound unless switched on"
        pg.check("#sound")
        assert pg.evaluate("localStorage.getItem('kartludo-sound')") == "1"
        # this seat moves, then the turn comes round again: a chime of two notes
        my_moves()
        others_move()
        pg.wait_for_function("window.__notes === 2")
        pg.reload()
        pg.wait_for_selector("#dock[data-version]")
        assert pg.is_checked("#sound"), "the choice is kept in this browser"
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)


def test_game_words_link_to_their_rules_sections(site, page, shots):
    """Every game word the pages know (web/static/js/terms.js) names a section its rules
    page has; on a table the words (Munt, Levu, Kasxetoj, Manni, …) are such links, and
    the seat's moves list the rules of the game words among them."""
    page.goto(site.url + "/ui/")
    terms = page.evaluate("""async () => {
        const { TERMS, VERB_TERMS, termHref } = await import('/static/js/terms.js');
        const out = {};
        for (const [game, words] of Object.entries(TERMS)) out[game] = Object.keys(words).map((w) => termHref(game, w));
        for (const [game, verbs] of Object.entries(VERB_TERMS))
            for (const w of Object.values(verbs)) if (!termHref(game, w)) out[game].push('missing: ' + w);
        return out;
    }""")
    assert terms and set(terms) <= set(game_names())  # a game may have no linked words
    for game, hrefs in terms.items():
        html = httpx.get(f"{site.url}/ui/rules/{game}").text
        for href in hrefs:
            assert href.startswith(f"/ui/rules/{game}#"), href
            assert f'id="{href.partition("#")[2]}"' in html, f"{href}: no such section on the rules page"
    for game, word, players in [("uxinjo", "munt", ["ann", "bob", "cy"]),
                                ("hakamo", "auction", ["ann", "bob", "cy", "dee"])]:
        created = site.api("POST", "/matches", site.td_token, json={"game": game, "players": players, "seed": 3})
        mid, tokens = created["match"], created["tokens"]
        state = td_state(site, mid)
        player = state["to_act"][0]
        if game == "uxinjo":
            site.api("POST", f"/matches/{mid}/commands", tokens[player], json={"verb": "draw", "args": []})
        page.goto(f"{site.url}/ui/table/{mid}#token={tokens[player]}")
        page.wait_for_selector("#dock[data-version]")
        links = page.eval_on_selector_all("#main a.term", "es => es.map(e => [e.textContent, e.getAttribute('href')])")
        assert links, game
        assert all(re.fullmatch(rf"/ui/rules/{game}#s[-a-z0-9]+", href) for _, href in links), links
        assert page.locator(f"#move-terms a.term[data-term='{word}']").count() == 1, page.inner_text("#dock")
        page.screenshot(path=shots / f"{game}-terms.png")
        href = page.get_attribute(f"#move-terms a.term[data-term='{word}']", "href")
        page.click(f"#move-terms a.term[data-term='{word}']")
        page.wait_for_function(f"location.pathname + location.hash === {href!r} && !!document.querySelector(':target')")
        assert page.evaluate("document.querySelector(':target').id") == href.partition("#")[2]


def test_the_match_service_over_http_deals_the_first_deal_itself(site):
    """A match created over HTTP is dealt at once (auto_deal, the default), by the table;
    with auto_deal off the TD deals, as the CLI's match new leaves every deal to a TD."""
    auto = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": ["a", "b", "c", "d"]})
    state = td_state(site, auto["match"])
    assert state["deal"] == 1 and state["to_act"]
    svc = MatchService(site.store)
    assert [r.actor for r in svc.records(auto["match"]) if r.type == "match.deal-started"] == ["table"]
    manual = site.api("POST", "/matches", site.td_token,
                      json={"game": "hakamo", "players": ["a", "b", "c", "d"], "auto_deal": False})
    assert td_state(site, manual["match"])["deal"] == 0
