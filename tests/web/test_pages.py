"""The pages in headless Chromium: match list, replay viewer (keys, URL, views), live
seat table (clicks, live updates, nothing hidden in the DOM), ruling, standings, series."""

from __future__ import annotations

import csv
import io
import random
import re
from collections import Counter
from urllib.parse import parse_qs, urlparse

import pytest
from every_game import games, heuristic

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.reading.replay import Navigator, build
from kartludo.engine.base import ALL

PLAYERS = ["ann", "bob", "cy"]


def play_deal_out(store, mid: str, seed: int = 3) -> None:
    """Finish the running deal with bots (the pipeline directly: another writer)."""
    svc = MatchService(store)
    match = svc.load(mid)
    game, rng = match.game, random.Random(seed)
    bot = heuristic(game.name)
    while True:
        state = svc.load(mid).state
        if game.can_deal(state) or game.is_finished(state):
            return
        seat = game.to_act(state)[0]
        svc.execute(mid, svc.play(bot.choose(game, state, seat, game.legal_commands(state, seat), rng)),
                    actor=match.players[seat])


def dealt_match(site, game: str = "uxinjo", players=PLAYERS, seed: int = 11) -> dict:
    """A match created over HTTP: the table deals its first deal at once."""
    created = site.api("POST", "/matches", site.td_token, json={"game": game, "players": players, "seed": seed})
    assert created["dealt"]
    return created


def cards_in(page, selector: str = "#table") -> list[str]:
    return page.eval_on_selector_all(f"{selector} [data-card]", "els => els.map(e => e.dataset.card)")


def hand_faces(state: dict) -> list[str]:
    return sorted(c for hand in state.get("hands", {}).values() for c in hand if c != "??")


def query(page) -> dict[str, str]:
    """The address's query as the page has it now: ``page.url`` is Playwright's copy, told
    of a ``history.replaceState`` only later (a test read step 3 from it while the page
    showed step 4, whose replaceState had run before it drew the step)."""
    return {k: v[0] for k, v in parse_qs(urlparse(page.evaluate("location.href")).query).items()}


def test_match_list_links_every_match(site, page, shots):
    a = dealt_match(site)
    b = site.api("POST", "/matches", site.td_token,
                 json={"game": "svoi-kozyri", "players": ["dee", "eve", "fay", "gus"]})
    page.goto(site.url + "/ui/")
    page.wait_for_selector("#matches")
    rows = page.eval_on_selector_all("#matches tbody tr", "rs => rs.map(r => [r.dataset.match, r.innerText])")
    assert [r[0] for r in rows] == [b["match"], a["match"]]  # newest first
    assert "Svoi Kozyri" in rows[0][1] and "dee, eve, fay, gus" in rows[0][1] and "in progress" in rows[1][1]
    page.screenshot(path=shots / "matches.png", full_page=True)
    page.select_option("#game-filter", "uxinjo")
    page.wait_for_function("document.querySelectorAll('#matches tbody tr').length === 1")
    page.click(f"#matches a[href='/ui/replay/{a['match']}']")
    page.wait_for_selector("#now .description")
    assert urlparse(page.url).path == f"/ui/replay/{a['match']}"


def test_replay_steps_with_the_keys(site, page, shots):
    mid = dealt_match(site)["match"]
    play_deal_out(site.store, mid)
    api = site.api("GET", f"/matches/{mid}/replay", params={"deal": 1})
    steps = api["steps"]
    nav = Navigator(build(mid, MatchService(site.store).records(mid), 1), ALL)
    page.goto(f"{site.url}/ui/replay/{mid}?deal=1")
    page.wait_for_selector("#now .description")

    def shown() -> int:
        k = int(query(page)["step"])
        said = page.inner_text("#now .description")
        # (CI saw step 4 say the API's step 5 once, not reproduced since: say what the page listed)
        assert said == steps[k - 1]["description"], (
            k, said, page.eval_on_selector_all(".events li", "ls => ls.map(l => l.innerText)")[:8],
            [s["description"] for s in steps[:8]])
        current = page.eval_on_selector_all(".events li.current", "ls => ls.map(l => l.dataset.step)")
        assert current == [str(k)]
        assert page.get_attribute(".events li.current a", "aria-current") == "step"
        missing = Counter(hand_faces(steps[k - 1]["state"])) - Counter(cards_in(page))
        assert not missing, f"step {k}: cards of the hands not drawn: {dict(missing)}"
        return k

    assert shown() == 1
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert shown() == 4
    nav.jump(4)
    page.screenshot(path=shots / "replay-step-4.png", full_page=True)
    page.keyboard.press("ArrowDown")
    nav.next_turn()
    assert shown() == nav.k
    page.keyboard.press("]")
    nav.next_turn()
    assert shown() == nav.k
    page.keyboard.press("ArrowUp")
    nav.prev_turn()
    assert shown() == nav.k
    page.keyboard.press("r")
    assert nav.next_ruling()
    assert shown() == nav.k and steps[nav.k - 1]["ruling"]
    page.keyboard.press("End")
    assert shown() == len(steps)
    page.keyboard.press("ArrowRight")  # stays at the end
    assert shown() == len(steps)
    page.keyboard.press("Home")
    assert shown() == 1
    page.keyboard.press("ArrowLeft")  # stays at the start
    assert shown() == 1
    # a card drawn at a step: the rendered faces are exactly the state's hands plus public cards
    page.keyboard.press("ArrowRight")
    k = shown()
    state = steps[k - 1]["state"]
    for player, hand in state["hands"].items():
        for code in set(hand):
            assert cards_in(page).count(code) >= hand.count(code), (player, code)
    label = page.get_attribute(f"#table [data-card='{state['hands']['ann'][0]}'] svg", "aria-label")
    assert label and label != state["hands"]["ann"][0]  # a spoken name, not the code


def test_replay_view_cycles_and_the_url_holds_the_moment(site, page, shots):
    mid = dealt_match(site)["match"]
    play_deal_out(site.store, mid)
    page.goto(f"{site.url}/ui/replay/{mid}?deal=1&step=6")
    page.wait_for_selector("#now .description")
    assert query(page) == {"deal": "1", "step": "6", "view": "all"}
    page.keyboard.press("v")
    page.wait_for_function("new URLSearchParams(location.search).get('view') === 'ann'")
    seat = site.api("GET", f"/matches/{mid}/replay", params={"deal": 1, "view": "ann", "to": 6})["steps"][0]
    assert page.inner_text("#now .description") == seat["description"]
    assert set(seat["state"]["hands"]) == {"ann"}
    # the other hands are backs now: none of their faces is drawn
    everyone = site.api("GET", f"/matches/{mid}/replay", params={"deal": 1, "to": 6})["steps"][0]["state"]
    others = {c for p, h in everyone["hands"].items() if p != "ann" for c in h} - set(everyone["hands"]["ann"])
    public = set(re.findall(r'"([RGB][1-9XV]|C|PJ|AJ)"', str(seat["state"]).replace("'", '"')))
    assert not (set(cards_in(page)) & (others - public))
    page.screenshot(path=shots / "replay-ann-view.png", full_page=True)
    for name in ["bob", "cy", "all"]:
        page.keyboard.press("v")
        page.wait_for_function(f"new URLSearchParams(location.search).get('view') === '{name}'")
    # a link opens exactly that moment
    link = f"{site.url}/ui/replay/{mid}?deal=1&step=9&view=cy"
    page.goto(link)
    page.wait_for_selector("#now .description")
    expect = site.api("GET", f"/matches/{mid}/replay", params={"deal": 1, "view": "cy", "to": 9})["steps"][0]
    assert page.inner_text("#now .description") == expect["description"]
    assert query(page) == {"deal": "1", "step": "9", "view": "cy"}
    assert "step 9 of" in page.inner_text("#now .where")


def test_replay_of_a_running_deal_shows_only_the_callers_view(site, page):
    mid = dealt_match(site)["match"]
    page.goto(f"{site.url}/ui/replay/{mid}?view=all")  # asks for every hand without a token
    page.wait_for_selector("#now .description")
    assert query(page)["view"] == "public"
    assert "still being played" in page.inner_text("main")
    assert not [c for c in cards_in(page) if c != "??"] or set(cards_in(page)) <= {"??"} | set(
        re.findall(r"'([RGB][1-9XV]|C|PJ|AJ)'", str(site.api("GET", f"/matches/{mid}/state"))))


def test_live_table_plays_by_clicking_and_hides_other_hands(site, page, shots):
    created = dealt_match(site)
    mid, tokens = created["match"], created["tokens"]
    td_state = site.api("GET", f"/matches/{mid}/state", site.td_token)
    me = td_state["to_act"][0]
    page.goto(f"{site.url}/ui/table/{mid}#token={tokens[me]}")
    page.wait_for_selector("#legal button[data-command]")
    assert "token=" not in page.url  # the secret left the address bar
    assert me in page.inner_text("h1")

    def no_foreign_faces() -> None:
        mine = site.api("GET", f"/matches/{mid}/state", tokens[me])
        everyone = site.api("GET", f"/matches/{mid}/state", site.td_token)
        visible = set(re.findall(r"'([RGB][1-9XV]|C|PJ|AJ)'", str(mine)))
        hidden = {c for p, h in everyone["hands"].items() if p != me for c in h} - visible
        dom = page.content()
        assert hidden and not [c for c in hidden if f'data-card="{c}"' in dom]

    no_foreign_faces()
    before = len(site.api("GET", f"/matches/{mid}/state", tokens[me])["hands"][me])
    page.click("#legal button[data-command='draw']")
    page.wait_for_function("document.querySelectorAll('#dock .dock-hand button.card.selectable').length > 0")
    mine = site.api("GET", f"/matches/{mid}/state", tokens[me])
    assert len(mine["hands"][me]) == before + 1
    page.screenshot(path=shots / "table-after-draw.png", full_page=True)
    # discard: a card only the discard takes goes by one click (the keyboard works too:
    # focus + Enter); a card an eltiri could take too is selected first (tests/web/test_moves.py)
    card = page.locator("#dock .dock-hand button.card.direct").first
    code = card.get_attribute("data-card")
    assert card.get_attribute("data-command") == f"discard {code}"
    assert card.get_attribute("aria-label").startswith("Discard ")
    card.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("!document.querySelector('#dock .dock-hand button.card.direct')")
    events = site.api("GET", f"/matches/{mid}/events", tokens[me])
    discards = [e for e in events if e["type"] == "uxinjo.discarded"]
    assert discards[-1]["payload"]["card"] == code and discards[-1]["actor"] == me
    no_foreign_faces()
    # another seat answers through the API: the page follows the stream
    state = site.api("GET", f"/matches/{mid}/state", site.td_token)
    other = state["to_act"][0]
    other_legal = site.api("GET", f"/matches/{mid}/state", tokens[other])["legal"]
    verb, *args = other_legal[0].split()
    site.api("POST", f"/matches/{mid}/commands", tokens[other], json={"verb": verb, "args": args})
    version = site.api("GET", f"/matches/{mid}/state", site.td_token)["version"]
    page.wait_for_function(f"document.querySelectorAll('#feed li').length >= {version - 1}")
    to_act = ", ".join(site.api("GET", f"/matches/{mid}/state")["to_act"])
    page.wait_for_function(f"document.getElementById('status').textContent.includes({to_act!r})")
    no_foreign_faces()
    page.screenshot(path=shots / "table-live.png", full_page=True)
    # a refused command shows the rule and changes nothing
    before = site.store.head_position()
    page.evaluate("""async () => {
        const api = await import('/static/js/api.js');
        window.__err = await api.api(location.pathname.replace('/ui/table/', '/matches/') + '/commands',
            {token: sessionStorage.getItem('kartludo-token:' + location.pathname.split('/').pop()),
             method: 'POST', body: {verb: 'fly'}}).then(() => null, e => [e.status, e.message]);
    }""")
    assert page.evaluate("window.__err")[0] == 422 and site.store.head_position() == before


def test_live_table_asks_for_a_token_and_refuses_a_bad_one(site, page):
    mid = dealt_match(site)["match"]
    page.goto(f"{site.url}/ui/table/{mid}")
    page.fill("#token", "kt_not-a-token")
    page.click("form.token button[type=submit]")
    page.wait_for_selector("[role=alert]")
    assert "unknown or revoked" in page.inner_text("[role=alert]")


def test_pages_fit_a_phone(site, browser, shots):
    mid = dealt_match(site)["match"]
    play_deal_out(site.store, mid)
    live = dealt_match(site, "laugavatnsmanni", seed=4)
    seat = live["tokens"][site.api("GET", f"/matches/{live['match']}/state", site.td_token)["to_act"][0]]
    context = browser.new_context(viewport={"width": 360, "height": 740})
    pg = context.new_page()
    try:
        for path in ["/ui/", f"/ui/replay/{mid}?deal=1&step=5", "/ui/standings", "/ui/audit",
                     f"/ui/table/{live['match']}#token={seat}"]:
            pg.goto(site.url + path)
            pg.wait_for_selector("main h1")
            if "/ui/table/" in path:  # its live stream stays open: wait for the drawn table
                pg.wait_for_selector("#table section")
            else:
                pg.wait_for_load_state("networkidle")
            assert pg.evaluate("document.documentElement.scrollWidth") <= 360, path
            # a table's caption (how many rows) is read without scrolling the table sideways
            right = pg.evaluate("""() => [...document.querySelectorAll('main caption')].map((c) => {
                const r = document.createRange(); r.selectNodeContents(c);
                return r.getBoundingClientRect().right; })""")
            assert all(x <= 360 for x in right), (path, right)
        pg.screenshot(path=shots / "table-phone.png", full_page=True)
    finally:
        context.close()


def test_ruling_page_and_its_replay_link(site, page, shots):
    import scenarios

    mid = scenarios.foul_then_void_win(MatchService(site.store))
    rulings = site.api("GET", "/audit", params={"match": mid})
    assert rulings
    r = rulings[0]
    page.goto(site.url + "/ui/audit")
    page.click(f"#rulings a[href='/ui/audit/{r['match']}/{r['ruling_id']}']")
    page.wait_for_selector("#ruling-facts")
    text = page.inner_text("main")
    assert r["rule"] in text and page.inner_text("#ruling-status") == r["status"]
    shown = page.eval_on_selector_all("#history li", "ls => ls.map(l => l.innerText)")
    assert [line.split(" by ")[0] for line in shown] == [h["kind"] for h in r["history"]]
    assert all(h["reason"] in line for h, line in zip(r["history"], shown))
    assert page.locator("#main [data-card]").count() > 0  # the table at the ruling
    # the caption and the ruling's own box name the same step, the ruling's step in the replay's numbering
    # (issue 38: "Step 3 of deal 1" stood above a box headed "Step 4"), and the table drawn is the one the
    # ruling was made in: the replay's table at the step before
    k = next(s.index for s in build(mid, MatchService(site.store).records(mid), r["deal"]).steps
             if s.record.position == r["position"])
    assert k > 1 and re.findall(r"\b[Ss]tep (\d+)\b", page.inner_text("section[aria-labelledby=at-ruling]")) == [
        str(k), str(k)]
    assert f"Before step {k} of deal {r['deal']}" in text and f"Step {k} · #{r['position']}" in text, text
    at_ruling = page.inner_text("section[aria-labelledby=at-ruling] > :last-child")
    drawn = page.eval_on_selector_all("dl.facts [data-card]", "es => es.map(e => e.dataset.card)")
    assert r["facts"]["cards"] and drawn == r["facts"]["cards"]  # the facts' cards, drawn
    # facts and voided transfers read as words, never as JSON ("null", "[]", braces)
    assert not re.search(r"\b(null|undefined|NaN)\b|\[\]|[{}]", text), text
    assert r["voided"] and page.eval_on_selector_all("#voided li", "ls => ls.map(l => l.innerText)") == [
        f"{v['payer']} would have paid {v['payee']} {v['amount']} ({v['reason']}) · event #{v['position']}"
        for v in r["voided"]]
    page.screenshot(path=shots / "ruling.png", full_page=True)
    # an appeal and a decision appear in the dispute history
    players = site.api("GET", f"/matches/{mid}/state")["players"]
    from kartludo.app.tokens import issue

    seat_token = issue(site.store, "seat", match=mid, seat=r["seat"], label=players[r["seat"]])
    site.api("POST", f"/audit/{mid}/{r['ruling_id']}/appeal", seat_token, json={"reason": "I had two sets"})
    site.api("POST", f"/audit/{mid}/{r['ruling_id']}/decide", site.td_token,
             json={"decision": "uphold", "reason": "one set only"})
    page.reload()
    page.wait_for_function(f"document.querySelectorAll('#history li').length === {len(r['history']) + 2}")
    history = page.inner_text("#history")
    assert "I had two sets" in history and "one set only" in history
    page.click("#open-replay")
    page.wait_for_selector("#now .where")
    assert f"#{r['position']}" in page.inner_text("#now .where")
    assert f"step {k} of" in page.inner_text("#now .where")
    assert page.inner_text("#table") != at_ruling  # the ruling changed the table (the phase, at least)
    page.keyboard.press("ArrowLeft")  # the replay's step before the ruling: the table the ruling page shows
    page.wait_for_function(f"document.querySelector('#now .where').innerText.includes('step {k - 1} of')")
    assert page.inner_text("#table") == at_ruling


def _cli(site, *args: str) -> str:
    from click.testing import CliRunner

    from kartludo.cli.main import cli

    result = CliRunner().invoke(cli, ["--db", str(site.store.url), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_standings_and_series_pages_match_the_cli(site, page, shots):
    from kartludo.app.league.series import create_series
    from kartludo.app.matches.simulate import pick_bots, play_match

    svc = MatchService(site.store)
    rng = random.Random(5)
    for game, players in [("uxinjo", PLAYERS), ("svoi-kozyri", ["ann", "bob", "dee", "eve"]), ("uxinjo", PLAYERS)]:
        play_match(svc, game, players, pick_bots(game, ["heuristic"]), rng)
    series = create_series(site.store, "uxinjo", PLAYERS, 90)
    play_match(svc, "uxinjo", PLAYERS, pick_bots("uxinjo", ["heuristic"]), rng, series=series)
    rows = list(csv.DictReader(io.StringIO(_cli(site, "standings", "--format", "csv"))))
    page.goto(site.url + "/ui/standings")
    page.wait_for_selector("#standings")
    cells = page.eval_on_selector_all("#standings tbody tr", "rs => rs.map(r => [...r.children].map(c => c.innerText))")
    # the CLI's columns (its CSV header), the provisional mark shown on the rating
    columns = [c for c in rows[0] if c != "provisional"]
    assert page.eval_on_selector_all("#standings thead th", "hs => hs.map(h => h.innerText)") == columns
    assert "score" not in columns  # across games the totals do not add up: no column for them
    for c, r in zip(cells, rows, strict=True):
        want = {**r, "rating": f"{float(r['rating']):.2f}{'*' if r['provisional'] == 'true' else ''}",
                "mu": f"{float(r['mu']):.2f}", "sigma": f"{float(r['sigma']):.2f}"}
        assert c == [want[k] for k in columns]
    assert "placement_points: per match" in page.inner_text("#legend")
    page.screenshot(path=shots / "standings.png", full_page=True)
    page.select_option("#game", "svoi-kozyri")
    page.wait_for_function("document.querySelector('h1').innerText.includes('Svoi Kozyri')")
    sk = list(csv.DictReader(io.StringIO(_cli(site, "standings", "--game", "svoi-kozyri", "--format", "csv"))))
    page.wait_for_function(f"document.querySelectorAll('#standings tbody tr').length === {len(sk)}")
    assert page.eval_on_selector_all("#standings tbody th", "hs => hs.map(h => h.innerText)") == [
        r["player"] for r in sk]
    assert "losses" in page.eval_on_selector_all("#standings thead th", "hs => hs.map(h => h.innerText)")
    assert "losses: deals lost" in page.inner_text("#legend")  # the game's own word, lower is better
    # the series page: the same table as `kartludo series show --format csv`
    expect = list(csv.reader(io.StringIO(_cli(site, "series", "show", series, "--format", "csv"))))[1:]
    page.goto(f"{site.url}/ui/series/{series}")
    page.wait_for_selector("#series-standings")
    got = page.eval_on_selector_all("#series-standings tbody tr",
                                    "rs => rs.map(r => [...r.children].map(c => c.innerText))")
    assert got == expect
    assert page.locator("#series-matches li").count() == 1
    page.screenshot(path=shots / "series.png", full_page=True)


def test_unknown_match_pages_say_so(site, page):
    page.goto(site.url + "/ui/replay/nosuchmatch")
    page.wait_for_selector("[role=alert]")
    assert "no match" in page.inner_text("[role=alert]")
    assert page.request.get(site.url + "/ui/replay/bad%20id").status in (400, 404, 422)
    page.errors.clear()  # the failed fetch is logged by the browser, as it should be


@pytest.mark.parametrize("path", ["/static/js/api.js", "/static/css/kartludo.css", "/ui/cards"])
def test_assets_are_served(site, page, path):
    resp = page.request.get(site.url + path)
    assert resp.status == 200 and resp.body()


@pytest.mark.parametrize("game", games())
def test_live_table_of_every_game_plays_and_shows_only_the_seats_cards(site, page, shots, game):
    from kartludo.engine.registry import get_game

    players = ["ann", "bob", "cy", "dee", "eve", "fay"][:get_game(game).player_counts[0]]
    created = dealt_match(site, game, players, seed=21)
    mid, tokens = created["match"], created["tokens"]
    me = site.api("GET", f"/matches/{mid}/state", site.td_token)["to_act"][0]

    def check(mine: dict) -> None:
        everyone = site.api("GET", f"/matches/{mid}/state", site.td_token)
        # the hand drawn in my panel is exactly my hand
        drawn = page.eval_on_selector_all(f"#table [data-player='{me}'] .t-hand [data-card]",
                                          "es => es.map(e => e.dataset.card)")
        assert sorted(drawn) == sorted(mine["hands"][me])
        # no card another seat holds face down is anywhere in the page
        visible = {c for c in re.findall(r"'([^' ]{1,3})'", str(mine))}
        hidden = {c for p, h in everyone["hands"].items() if p != me for c in h} - visible
        dom = page.content()
        assert hidden and not [c for c in hidden if f'data-card="{c}"' in dom]

    page.goto(f"{site.url}/ui/table/{mid}#token={tokens[me]}")
    page.wait_for_selector("#legal .move, #dock .dock-hand .direct")
    mine = site.api("GET", f"/matches/{mid}/state", tokens[me])
    check(mine)
    page.screenshot(path=shots / f"{game}-table.png", full_page=True)
    # play: a card by one click where its move is unambiguous, else the first command button
    direct = page.locator("#dock .dock-hand button.card.direct")
    if direct.count():
        direct.first.click()
    else:
        page.locator("#legal [data-command]:not([disabled])").first.click()
    page.wait_for_function(f"document.querySelectorAll('#feed li').length > {mine['version']}")
    after = site.api("GET", f"/matches/{mid}/state", tokens[me])
    assert after["version"] > mine["version"]
    page.wait_for_function(f"Number(document.getElementById('dock').dataset.version) >= {after['version']}")
    assert after["phase"] not in ("waiting_deal",) or "waiting" in page.inner_text("#status")
    assert "_" not in page.inner_text("#status"), "the status line says the phase in words"
    check(after)


def test_replay_of_a_trick_game_moves_trick_by_trick(site, page):
    players = ["ann", "bob", "cy", "dee"]
    mid = dealt_match(site, "hakamo", players, seed=8)["match"]
    for deal in range(1, 6):  # the first deal whose cards are played (everyone may pass)
        play_deal_out(site.store, mid)
        steps = site.api("GET", f"/matches/{mid}/replay", params={"deal": deal})["steps"]
        trick_ends = [s["step"] for s in steps if s["event"]["type"] == "hakamo.trick"]
        if len(trick_ends) >= 3:
            break
        site.api("POST", f"/matches/{mid}/deals", site.td_token)
    first_play = next(s["step"] for s in steps if s["event"]["type"] == "hakamo.play")
    page.goto(f"{site.url}/ui/replay/{mid}?deal={deal}&step={first_play}")
    page.wait_for_selector("#now .description")
    for end in trick_ends[:3]:
        page.keyboard.press("ArrowDown")
        page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{end}'")
        assert page.inner_text("#now .description") == steps[end - 1]["description"]
    page.keyboard.press("[")
    page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{trick_ends[1]}'")
