"""Whole deals in headless Chromium, by clicks only: one browser context per seat (the
first seat on a 360 px phone), the first deal dealt by the table at creation, every move
made on the acting seat's page (cards selected in the hand then confirmed, bids typed
in the number field, cautions confirmed), the deal played to its settlement, then the
next deal starting by itself. At every step no page shows more than 60 command
controls, and on the phone the own hand and the moves are inside the first screen.

The moves are chosen by the game's heuristic bot from the TD's state (a Laugavatnsmanni
exchange is forced to 3 chosen cards, a Hakamo auction to typed bids); the page must
offer each one.
"""

from __future__ import annotations

import random
import re

import every_game
import pytest
from every_game import games, heuristic

from kartludo.app.matches.pipeline import MatchService
from kartludo.engine import jx
from kartludo.engine.base import Command

#: seeds whose first deal shows what a game's own checks below look for (Uxinjo's a
#: cautioned munt, ...); any other game plays seed 1
SEEDS = {"uxinjo": 3, "hakamo": 5, "laugavatnsmanni": 7, "svoi-kozyri": 2}
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
MAX_CONTROLS = 60
CONTROLS = "#dock button, #dock input, #dock select"


def open_page(browser, url: str, viewport: dict, errors: list[str]):
    context = browser.new_context(viewport=viewport)
    pg = context.new_page()
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pg.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}")
          if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    pg.goto(url)
    return context, pg


def in_first_screen(pg, selector: str) -> bool:
    """The element's box lies inside the viewport (as the page is scrolled now)."""
    return pg.evaluate("""(sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
    }""", selector)


def check_layout(pg, player: str, players: list[str], hand: list[str]) -> None:
    """The own seat at the bottom and the others round the table clockwise from it
    (left, top, right); every seat's cards the same size; the docked hand in hand order;
    the own hand and the moves still in view after scrolling to the top and the foot."""
    n = len(players)
    me = players.index(player)
    places = {1: ["bottom"], 2: ["bottom", "top"], 3: ["bottom", "left", "right"],  # tables/common.js POSITIONS
              4: ["bottom", "left", "top", "right"]}[n]
    for i, place in enumerate(places):
        assert pg.inner_text(f"#table .t-pos-{place} .t-seat-name") == players[(me + i) % n], (player, place)
    widths = set(pg.eval_on_selector_all("#table .t-hand svg",
                                         "es => es.map(e => Math.round(e.getBoundingClientRect().width))"))
    assert len(widths) == 1, f"every seat's cards the same size: {widths}"
    assert pg.eval_on_selector_all("#dock .dock-hand [data-card]", "es => es.map(e => e.dataset.card)") == hand
    for y in ("0", "document.documentElement.scrollHeight"):
        pg.evaluate(f"window.scrollTo(0, {y})")
        assert in_first_screen(pg, "#dock .dock-hand") and in_first_screen(pg, "#legal"), (player, y)


class Play:
    """The acting seat's page makes the move ``command`` by clicks."""

    def __init__(self, site, mid: str, pages: dict, shots=None) -> None:
        self.site, self.mid, self.pages, self.shots = site, mid, pages, shots
        self.shot: set[str] = set()
        self.typed_bids = 0
        self.exchanged: list[str] | None = None
        self.cautions = 0
        self.one_click = 0

    def version(self) -> int:
        return self.site.api("GET", f"/matches/{self.mid}/state", self.site.td_token)["version"]

    def ready(self, pg, version: int) -> None:
        pg.wait_for_selector(f"#dock[data-version='{version}']")

    def move(self, player: str, command: Command, shapes: list[dict], cautions: dict) -> None:
        pg = self.pages[player]
        verb, words = command.verb(), command.args()
        shape = next(s for s in shapes if s["verb"] == verb)
        count = pg.eval_on_selector_all(CONTROLS, "es => es.length")
        assert count <= MAX_CONTROLS, (player, count)
        text = command.text()
        if shape["kind"] == "plain":
            pg.click(f"#legal button[data-command='{verb}']")
        elif shape["kind"] == "choice":
            pg.click(f"#legal button[data-command='{text}']")
        elif shape["kind"] == "number":
            button = pg.locator(f"form.number-move[data-verb='{verb}'] button")
            # the field takes only the legal range: a number beyond it cannot be sent
            assert pg.get_attribute(f"#amount-{verb}", "min") == str(shape["min"])
            assert pg.get_attribute(f"#amount-{verb}", "max") == str(shape["max"])
            for wrong in (shape["min"] - 1, shape["max"] + 1):
                pg.fill(f"#amount-{verb}", str(wrong))
                assert button.is_disabled()
                assert button.inner_text() == f"{verb.capitalize()}: {shape['min']}–{shape['max']}"
            pg.fill(f"#amount-{verb}", words[0])
            assert button.get_attribute("data-command") == text
            button.click()
            self.typed_bids += verb == "bid"
        elif pg.locator(f"#dock .dock-hand [data-command='{text}']").count():
            # one card, and only this verb takes it: one click plays it, no button to confirm
            pg.locator(f"#dock .dock-hand [data-command='{text}']").first.click()
            self.one_click += 1
        else:
            cards = [w.partition(":")[0] for w in words]
            for code in cards:
                pg.locator(f"#dock .dock-hand [data-card='{code}'][aria-pressed='false']").first.click()
            for i, word in enumerate(words):
                if ":" in word:
                    code, _, side = word.partition(":")
                    select = f"#dock select[data-side='{i}']"
                    pg.select_option(select, side)
                    # the card's name, as everywhere on the page, not its code
                    assert pg.eval_on_selector(select, "s => s.selectedOptions[0].text") == \
                        f"{jx.card_name(code)} face {side}"
            button = pg.locator(f"#legal .cards-move[data-verb='{verb}'] button")
            assert button.get_attribute("data-command") == text, (button.get_attribute("data-command"), text)
            if len(cards) > 1:
                assert f"{len(cards)} cards" in button.inner_text() or verb == "lay"
                self.snap(pg, f"selected-{verb}")
            button.click()
        if text in cautions:
            pg.wait_for_selector("#dock [data-confirm]")
            assert cautions[text]["text"] in pg.inner_text("#dock .caution")
            self.snap(pg, f"caution-{verb}")
            pg.click("#dock [data-confirm]")
            self.cautions += 1


    def snap(self, pg, name: str) -> None:
        """A screenshot of the page, once per name (for a person to look at)."""
        if self.shots is not None and name not in self.shot:
            self.shot.add(name)
            pg.screenshot(path=self.shots / f"{name}.png")


def choose(game, state, seat: int, legal: list[Command], rng: random.Random, play: Play, hand: list[str]) -> Command:
    """The heuristic bot's move, but a Laugavatnsmanni exchange of 3 chosen cards and
    typed Hakamo bids (the first bidder bids two over the minimum, the others pass)."""
    verbs = {c.verb() for c in legal}
    if game.name == "laugavatnsmanni" and "exchange" in verbs:
        chosen = [hand[1], hand[4], hand[6]]
        play.exchanged = chosen
        return game.parse_command(seat, "exchange", chosen)
    if game.name == "hakamo" and game.phase(state) == "auction":
        bids = sorted((c for c in legal if c.verb() == "bid"), key=lambda c: c.amount)
        if bids and not play.typed_bids:
            return bids[min(2, len(bids) - 1)]
        return next(c for c in legal if c.verb() == "pass")
    return heuristic(game.name).choose(game, state, seat, legal, rng)


@pytest.mark.parametrize("game_name", games())
def test_a_whole_deal_by_clicks_then_the_next_deal_starts_by_itself(site, browser, shots, game_name):
    players = every_game.players(game_name, ["ann", "bob", "cy", "dee"])
    seed = SEEDS.get(game_name, 1)
    created = site.api("POST", "/matches", site.td_token,
                       json={"game": game_name, "players": players, "seed": seed})
    mid, tokens = created["match"], created["tokens"]
    assert created["dealt"]
    errors: list[str] = []
    contexts = []
    try:
        # the table dealt the first deal when the match was created: no TD click waited for
        ctx, td = open_page(browser, f"{site.url}/ui/td/{mid}#token={site.td_token}", DESKTOP, errors)
        contexts.append(ctx)
        td.wait_for_selector("#status")
        td.wait_for_function("document.getElementById('status').textContent.startsWith('Deal 1')")
        assert "deals by itself" in td.inner_text("#auto-deal")
        assert td.is_disabled("#deal-next")
        pages = {}
        for i, p in enumerate(players):
            ctx, pg = open_page(browser, f"{site.url}/ui/table/{mid}#token={tokens[p]}", PHONE if i == 0 else DESKTOP,
                                errors)
            contexts.append(ctx)
            pg.wait_for_selector("#table section")
            pages[p] = pg
        play = Play(site, mid, pages, shots)
        svc = MatchService(site.store)
        rng = random.Random(seed)
        phone_checked = False
        laid_out: set[str] = set()
        shot_taken = set()
        for _ in range(1500):
            match = svc.load(mid)
            game, state = match.game, match.state
            if game.deal_number(state) > 1 or game.can_deal(state):
                break
            seat = game.to_act(state)[0]
            player = players[seat]
            version = match.version
            pg = pages[player]
            play.ready(pg, version)
            moves = site.api("GET", f"/matches/{mid}/moves", tokens[player])
            if player == players[0] and not phone_checked:
                assert in_first_screen(pg, "#dock .dock-hand") and in_first_screen(pg, "#legal"), \
                    "on a phone the own hand and the moves are in the first screen"
                phone_checked = True
            if player not in laid_out:
                laid_out.add(player)
                check_layout(pg, player, players, game.hand_of(state, seat))
            phase = game.phase(state)
            # every move's words are filled in (a field the server leaves out at its default included)
            assert not re.search(r"\b(undefined|null|NaN)\b", pg.inner_text("#dock"))
            if phase not in shot_taken:  # each phase once, as the acting seat sees it
                shot_taken.add(phase)
                pg.screenshot(path=shots / f"{game_name}-{phase}-{player}.png")
            legal = game.legal_commands(state, seat)
            command = choose(game, state, seat, legal, rng, play, game.hand_of(state, seat))
            assert command in legal
            play.move(player, command, moves["shapes"], moves["cautions"])
            pg.wait_for_function(f"Number(document.getElementById('dock').dataset.version) > {version}")
        else:
            pytest.fail("the deal did not end")
        # the deal was settled by the clicks, and the table dealt the next one by itself
        match = svc.load(mid)
        assert match.game.deal_number(match.state) == 2, "the next deal started by itself"
        records = svc.records(mid)
        deals = [r for r in records if r.type == "match.deal-started"]
        assert [r.actor for r in deals] == ["table", "table"]
        assert play.typed_bids or game_name != "hakamo"
        assert play.one_click, "trick plays and plain discards went by one click"
        assert play.cautions or game_name != "uxinjo", "the deal-ending munt was confirmed first"
        assert laid_out == set(players), "every seat's page was checked as it acted"
        if game_name == "laugavatnsmanni":
            assert play.exchanged and len(play.exchanged) == 3
            assert any(r.type == "laugavatnsmanni.exchange" and sorted(r.event.discards) == sorted(play.exchanged)
                       for r in records)
        # every seat's page follows into deal 2 by itself
        for pg in pages.values():
            pg.wait_for_function("document.getElementById('status').textContent.startsWith('Deal 2')")
            assert pg.eval_on_selector_all(CONTROLS, "es => es.length") <= MAX_CONTROLS
        pages[players[0]].screenshot(path=shots / f"{game_name}-deal-2-phone.png")
        pages[players[1]].screenshot(path=shots / f"{game_name}-deal-2-desktop.png", full_page=True)
        td.wait_for_function("document.getElementById('status').textContent.startsWith('Deal 2')")
        td.screenshot(path=shots / f"{game_name}-td.png", full_page=True)
    finally:
        for ctx in contexts:
            ctx.close()
    assert not errors, "\n".join(errors)


def test_replay_seats_round_the_table_and_no_scroll_jump_on_a_phone(site, browser, shots):
    """Replay: at 1920 px the seats sit round the centre (compass order), every hand's
    cards the same size; at 360 px the page opens at the top, a Next never scrolls the
    page, and the controls stay in view when the reader scrolls down."""
    players = ["ann", "bob", "cy", "dee"]
    created = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": players, "seed": 8,
                                                                 "auto_deal": False})
    mid = created["match"]
    site.api("POST", f"/matches/{mid}/deals", site.td_token)
    svc = MatchService(site.store)
    game, rng = svc.load(mid).game, random.Random(8)
    while not game.can_deal(svc.load(mid).state):
        state = svc.load(mid).state
        seat = game.to_act(state)[0]
        choice = game.bots()["heuristic"].choose(game, state, seat, game.legal_commands(state, seat), rng)
        svc.execute(mid, svc.play(choice), actor=players[seat])
    errors: list[str] = []
    ctx, pg = open_page(browser, f"{site.url}/ui/replay/{mid}?deal=1&step=3", {"width": 1920, "height": 1080}, errors)
    try:
        pg.wait_for_selector("#table section.t-table")
        boxes = {pos: pg.eval_on_selector(f"#table .t-pos-{pos}", "e => { const r = e.getBoundingClientRect();"
                                                                   " return [r.left, r.top, r.right, r.bottom]; }")
                 for pos in ("bottom", "left", "top", "right")}
        centre = pg.eval_on_selector("#table .t-centre", "e => { const r = e.getBoundingClientRect();"
                                                          " return [r.left, r.top, r.right, r.bottom]; }")
        assert boxes["left"][2] <= centre[0] and boxes["right"][0] >= centre[2], "west and east beside the centre"
        assert boxes["top"][3] <= centre[1] + 1 and boxes["bottom"][1] >= centre[3] - 1, "north above, south below"
        assert pg.inner_text("#table .t-pos-bottom .t-seat-name") == players[0], "compass order from the first seat"
        widths = set(pg.eval_on_selector_all("#table .t-hand svg",
                                             "es => es.map(e => e.getBoundingClientRect().width)"))
        assert len(widths) == 1, f"every hand's cards the same size: {widths}"
        broken = pg.eval_on_selector_all("#table .t-facts dt", """es => es.filter(e =>
            e.getBoundingClientRect().height > 1.9 * parseFloat(getComputedStyle(e).fontSize))
            .map(e => e.textContent)""")
        assert not broken, f"a fact's name on one line with its colon: {broken}"
        pg.screenshot(path=shots / "replay-1920.png")
    finally:
        ctx.close()
    ctx, pg = open_page(browser, f"{site.url}/ui/replay/{mid}?deal=1&step=10", PHONE, errors)
    try:
        pg.wait_for_selector("#now .description")
        assert pg.evaluate("window.scrollY") == 0, "the replay opens at the top"
        for _ in range(4):
            pg.click(".controls button[data-move='next']")
        assert pg.evaluate("window.scrollY") == 0, "Next does not scroll the page"
        pg.evaluate("window.scrollTo(0, 900)")
        pg.click(".controls button[data-move='next']")
        assert in_first_screen(pg, ".controls") and pg.evaluate("window.scrollY") >= 800
        assert pg.evaluate("document.documentElement.scrollWidth") <= 360
        pg.screenshot(path=shots / "replay-360.png")
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)


def test_a_caution_can_be_cancelled_and_sends_nothing(site, browser, shots):
    """A munt with a caution (a foul or the end of the deal) asks first; Cancel sends
    nothing and offers the moves again; the caution is the one the API gives the seat."""
    players = ["ann", "bob", "cy"]
    created = site.api("POST", "/matches", site.td_token, json={"game": "uxinjo", "players": players, "seed": 3,
                                                                 "auto_deal": False})
    mid, tokens = created["match"], created["tokens"]
    site.api("POST", f"/matches/{mid}/deals", site.td_token)
    svc = MatchService(site.store)
    game, rng = svc.load(mid).game, random.Random(3)
    for _ in range(500):
        state = svc.load(mid).state
        assert not game.can_deal(state), "the deal ended before any seat could munt"
        seat = game.to_act(state)[0]
        moves = site.api("GET", f"/matches/{mid}/moves", tokens[players[seat]])
        if "munt" in moves["cautions"]:
            break
        legal = [c for c in game.legal_commands(state, seat) if c.verb() != "munt"]
        svc.execute(mid, svc.play(game.bots()["heuristic"].choose(game, state, seat, legal, rng)),
                    actor=players[seat])
    else:
        pytest.fail("no munt caution met")
    player, version = players[seat], svc.load(mid).version
    errors: list[str] = []
    ctx, pg = open_page(browser, f"{site.url}/ui/table/{mid}#token={tokens[player]}", PHONE, errors)
    try:
        pg.wait_for_selector(f"#dock[data-version='{version}']")
        pg.click("#legal button[data-command='munt']")
        pg.wait_for_selector("#dock [data-confirm='munt']")
        assert moves["cautions"]["munt"]["text"] in pg.inner_text("#dock .caution")
        assert in_first_screen(pg, "#dock [data-confirm='munt']")
        pg.screenshot(path=shots / "caution-phone.png")
        pg.click("#dock .caution button:not([data-confirm])")
        pg.wait_for_selector("#legal button[data-command='munt']")
        assert pg.locator("#dock .caution").count() == 0
        assert svc.load(mid).version == version, "Cancel sent nothing"
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)
