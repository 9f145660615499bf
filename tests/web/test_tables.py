"""Browser tests of the card drawing (web/static/js/cards.js) and the table renderers
(web/static/js/tables/*.js), on real states played by the heuristic bots.

Each game is rendered at the start of a deal, in the middle (a trick or turn in
progress) and at its end, in a TD view (every hand), a seat's view and the public
view; the checks compare what is drawn with the state JSON. The gallery (/ui/cards)
shows each of the 36 different Jx cards once (PJx and AJx are captioned "×2") and
the 52 French cards.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from every_game import games, heuristic

from kartludo.app.matches.pipeline import MatchService
from kartludo.engine import french, jx
from kartludo.engine.registry import get_game


def players_of(game: str) -> list[str]:
    """A game's largest table (Svoi Kozyri's four round one pile)."""
    return ["ann", "bob", "cy", "dee", "eve", "fay"][: get_game(game).player_counts[-1]]


HIDDEN = "??"
TD, SEAT, PUBLIC = -1, 0, None


def card_name(code: str) -> str:
    """The spoken name the drawing must carry (the engines' own names)."""
    if code == HIDDEN:
        return "face-down card"
    if jx.is_card(code):
        return jx.card_name(code)
    if french.is_card(code):
        return french.card_name(code)
    return code


def mid_deal(game: str, s: dict[str, Any], moves: int) -> bool:
    """A state in the middle of a trick or turn, worth rendering (``moves``: commands
    given in the deal so far; any other game's: after a few)."""
    if game not in CHECKS:
        return moves >= 3
    if game == "uxinjo":
        return s["phase"] == "claim" and s["discard_count"] >= 3
    if game == "hakamo":
        return s["phase"] == "tricks" and s["tricks_played"] >= 2 and len(s["trick"]["plays"]) >= 2
    if game == "laugavatnsmanni":
        return s["phase"] == "play" and s["tricks_played"] >= 3 and len(s["trick"]) == 2
    return s["phase"] == "beat" and len(s["pile"]) >= 4 and s["pickup"] is not None


def play_deal(store, game_name: str, seed: int = 5) -> dict[str, dict[Any, dict[str, Any]]]:
    """One deal played by the heuristic bot: {"created"|"start"|"mid"|"end": {viewer: state JSON}}."""
    svc = MatchService(store)
    players = players_of(game_name)
    mid = svc.create(game_name, players, seed=seed)
    created = svc.load(mid)
    before = {v: svc.state_json(created, v) for v in (TD, SEAT, PUBLIC)}
    svc.deal(mid)
    game = get_game(game_name)
    bot = heuristic(game_name)
    rng = random.Random(seed)

    def views(match) -> dict[Any, dict[str, Any]]:
        return {v: svc.state_json(match, v) for v in (TD, SEAT, PUBLIC)}

    match = svc.load(mid)
    moments = {"created": before, "start": views(match)}
    for moves in range(2000):
        state = match.state
        if game.is_finished(state) or game.can_deal(state):
            break
        if "mid" not in moments and mid_deal(game_name, svc.state_json(match, TD), moves):
            moments["mid"] = views(match)
        seats = game.to_act(state)
        seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
        command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        svc.execute(mid, svc.play(command), actor=players[seat])
        match = svc.load(mid)
    assert "mid" in moments, f"{game_name}: no mid-deal moment reached"
    moments["end"] = views(match)
    return moments


def open_gallery(page, site) -> None:
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204, body=""))
    page.goto(site.url + "/ui/cards")
    page.wait_for_selector(".t-gallery")


#: renders a state into <main> and reports what is drawn
RENDER = """async ([state, actions]) => {
  const m = await import('/static/js/tables/index.js');
  window.clicked = [];
  const opts = actions ? { actionFor: (code, player) => (player === actions ? {
    label: `play ${code}`, onClick: () => window.clicked.push([code, player]) } : null) } : {};
  const table = m.renderTable(state, opts);
  const main = document.getElementById('main');
  main.replaceChildren(table);
  const facts = (root, sel = '.t-fact') => Object.fromEntries([...root.querySelectorAll(sel)].map((f) => [
    f.dataset.fact, f.querySelector('dd').textContent]));
  const cards = (root, sel) => [...root.querySelectorAll(sel)].map((e) => e.dataset.card);
  const seats = {};
  for (const panel of table.querySelectorAll('.t-seat')) {
    seats[panel.dataset.player] = {
      hand: [...panel.querySelectorAll('.t-hand [data-card]')].map((e) => [e.dataset.card,
        e.querySelector('svg').getAttribute('aria-label'), e.querySelector('svg title').textContent, e.tagName]),
      all: cards(panel, '[data-card]'),
      exposed: cards(panel, '.t-exposed [data-card]'),
      toAct: panel.classList.contains('t-to-act'),
      text: panel.textContent,
      tricks: panel.querySelector('.t-tricks')?.textContent ?? null,
      used: [...panel.querySelectorAll('.t-contracts .t-used .t-contract-name')].map((e) => e.textContent),
      trump: panel.querySelector('.t-own-trump')?.dataset.suit ?? null,
      trumpText: panel.querySelector('.t-own-trump')?.textContent ?? null,
      facts: facts(panel),
    };
  }
  const q = (sel) => table.querySelector(sel)?.textContent ?? null;
  return {
    tag: table.tagName, cls: table.className, head: q('.t-head'),
    centre: facts(table, '.t-centre .t-fact, .t-side .t-fact'),
    text: table.textContent, seats,
    labels: [...table.querySelectorAll('[data-card]')].map(
      (e) => [e.dataset.card, e.querySelector('svg').getAttribute('aria-label')]),
    stock: q('.t-stock-count'), revealed: cards(table, '.t-revealed [data-card]'),
    topDiscard: cards(table, '.t-discards .t-top [data-card]'), discardCount: q('.t-discard-count'),
    needed: q('.t-points-needed'), window: q('.t-window'),
    markers: [...table.querySelectorAll('.t-marker')].map((e) => [e.dataset.a, e.dataset.b, Number(e.dataset.value)]),
    auction: [...table.querySelectorAll('.t-auction .t-bids li')].map((e) => e.textContent),
    contract: q('.t-contract'), contractValue: q('.t-contract-value'),
    trick: cards(table, '.t-trick [data-card]'), trickText: q('.t-trick'),
    lastTrick: cards(table, '.t-last-trick [data-card]'), lastTrickText: q('.t-last-trick'),
    kasUpper: cards(table, '.t-kasxeto-upper [data-card]'), kasLower: cards(table, '.t-kasxeto-lower [data-card]'),
    kasxetoj: q('.t-kasxetoj'),
    manni: cards(table, '.t-manni > .t-cards [data-card]'), manniCount: q('.t-manni-count'),
    pileTop: cards(table, '.t-pile .t-top [data-card]'), pile: cards(table, '.t-pile-under [data-card]'),
    pileCount: q('.t-pile-count'), turn: q('.t-turn'), deals: q('.t-deal-box'),
  };
}"""


def render(page, state: dict[str, Any], actions: str | None = None) -> dict[str, Any]:
    return page.evaluate(RENDER, [state, actions])


def public_cards(game: str, s: dict[str, Any], player: str) -> set[str]:
    """Face cards a seat panel may show for another player besides its hand."""
    if game == "uxinjo":
        return set(s["exposed"].get(player, []))
    if game == "hakamo":
        return set(s["taken"].get(player, []))
    return set()


def check_common(game: str, s: dict[str, Any], out: dict[str, Any], viewer) -> None:
    assert out["tag"] == "SECTION" and f"t-table t-{game}" in out["cls"]
    assert f"Deal {s['deal']}" in out["head"]
    assert set(out["seats"]) == set(s["players"])
    for code, label in out["labels"]:
        assert label == card_name(code), (code, label)
    for p in s["players"]:
        seat = out["seats"][p]
        shown = s["hands"].get(p)
        drawn = [c for c, *_ in seat["hand"]]
        if shown is not None:
            # every card of a visible hand, once per copy, with its spoken name
            assert Counter(drawn) == Counter(shown), (p, drawn, shown)
            for code, label, title, _tag in seat["hand"]:
                assert label == title == card_name(code)
        else:
            assert drawn == [HIDDEN] * s["hand_sizes"][p], (p, drawn)
        assert seat["toAct"] == (p in s["to_act"])
        assert ("to act" in seat["text"]) == (p in s["to_act"])
        assert seat["facts"]["hand"] == f"{s['hand_sizes'][p]} card{'s' if s['hand_sizes'][p] != 1 else ''}"
        total = s["totals"][p]
        label, shown_total = next(iter(seat["facts"].items()))  # a seat's first fact is its total
        if game in CHECKS:  # the four games' own wording: Svoi Kozyri counts losses, the others sign a total
            assert label == ("losses" if game == "svoi-kozyri" else "total")
            assert shown_total == (str(total) if game == "svoi-kozyri" or total <= 0 else f"+{total}")
        else:
            assert shown_total.removeprefix("+") == str(total), (label, shown_total, total)
        if s.get("seats"):
            assert f"seat {s['seats'][p]}" in seat["text"]
        if s.get("dealer") == p:
            assert "dealer" in seat["text"]
    if viewer == SEAT:
        me = s["players"][0]
        for p in s["players"][1:]:
            seat = out["seats"][p]
            assert {c for c, *_ in seat["hand"]} <= {HIDDEN}, (p, seat["hand"])
            assert set(seat["all"]) <= {HIDDEN} | public_cards(game, s, p), (p, seat["all"])
        if s["deal"]:
            assert [c for c, *_ in out["seats"][me]["hand"]] == s["hands"][me]


def check_uxinjo(s, out) -> None:
    assert out["stock"] == f"{s['stock_count']} card{'s' if s['stock_count'] != 1 else ''}"
    assert out["revealed"] == ([s["revealed"]] if s["revealed"] else [])
    assert out["topDiscard"] == ([s["top_discard"]] if s["top_discard"] else [])
    assert out["discardCount"].startswith(f"{s['discard_count']} discard")
    assert out["needed"] == str(s["points_needed"])
    want = [(a, b, s["markers"][a][b]) for i, a in enumerate(s["players"]) for b in s["players"][i + 1:]]
    assert [tuple(m) for m in out["markers"]] == want
    for p in s["players"]:
        assert out["seats"][p]["exposed"] == s["exposed"][p]
        if s["penalties"][p]:
            assert f"penalty ×{s['penalties'][p]}" in out["seats"][p]["text"]
        if p in s["levu"]:
            assert "levu" in out["seats"][p]["text"]
    if s["window"]:
        w = s["window"]
        assert out["window"] and card_name(w["card"]) in out["window"] and w["discarder"] in out["window"]
        for player, answer in w["answers"].items():
            assert f"{player}: {answer or 'waiting…'}" in out["window"]
    else:
        assert out["window"] is None


def check_hakamo(s, out) -> None:
    bids = s["auction"]["bids"]
    assert len(out["auction"]) == len(bids) + len(s["kunulo_auction"]["bids"])
    for line, b in zip(out["auction"], bids):
        assert line == f"{b['player']} " + ("pass" if b["bid"] is None else f"bids {b['bid']}")
    if s["deklaristo"]:
        assert out["contractValue"] == str(s["contract"])
        assert out["centre"]["Deklaristo"] == s["deklaristo"]
        assert "Deklaristo" in out["seats"][s["deklaristo"]]["text"]
        if s["kunulo"]:
            assert f"Kunulo (share {s['share']})" in out["seats"][s["kunulo"]]["text"]
    k = s["kasxetoj"]
    if k and k["upper"] is not None:
        assert out["kasUpper"] == [k["upper"]] and out["kasLower"] == [k["lower"]]
        assert ("upper: face up" in out["kasxetoj"]) == k["upper_up"]
        assert ("lower: face up" in out["kasxetoj"]) == k["lower_up"]
    trump = s["trump"]
    if trump["mode"] == "colour":
        assert f"Trump: {'●▲■'['RGB'.index(trump['colour'])]} {jx.COLOUR_NAMES[trump['colour']]}" in out["kasxetoj"]
    elif k and k["upper"] is not None and k["kept"] is not None:
        assert ("No trump" in out["kasxetoj"]) == (trump["mode"] == "none")
    for c in s["inversa"]:
        assert f"{jx.COLOUR_NAMES[c]} inversa" in out["kasxetoj"]
    if s["trick"]:
        assert out["trick"] == [p["card"] for p in s["trick"]["plays"]]
        for p in s["trick"]["plays"]:
            if p["as"] != p["card"]:
                assert f"as {card_name(p['as'])}" in out["trickText"]
    else:
        assert out["trick"] == []
    if s["last_trick"]:
        assert out["lastTrick"] == [p["card"] for p in s["last_trick"]["plays"]]
        if s["last_trick"]["winner"]:
            assert f"{s['last_trick']['winner']} takes it (+{s['last_trick']['points']})" in out["lastTrickText"]
    for p in s["players"]:
        taken = len(s["taken"][p])
        assert out["seats"][p]["facts"]["count"] == f"{s['counts'][p]} ({taken} card{'s' if taken != 1 else ''} taken)"


def check_laugavatnsmanni(s, out) -> None:
    if s["contract"]:
        assert s["contract"] in out["contractValue"].lower() or french.SUIT_NAMES[s["trump"]] in out["contractValue"]
        assert out["centre"]["declarer"] == s["declarer"]
    assert out["manniCount"].startswith(f"{s['manni_count']} card")
    assert out["manni"] == (s["manni"] if "manni" in s else [HIDDEN] * s["manni_count"])
    for p in s["players"]:
        assert out["seats"][p]["tricks"].split(" ")[0] == str(s["tricks"][p])
        assert out["seats"][p]["used"] == s["used_contracts"][p]
    assert out["trick"] == [t["card"] for t in s["trick"]]
    if s["last_trick"]:
        assert out["lastTrick"] == [t["card"] for t in s["last_trick"]["cards"]]
        assert f"{s['last_trick']['winner']} takes it" in out["lastTrickText"]


def check_svoi_kozyri(s, out) -> None:
    assert out["pileTop"] == ([s["top"]] if s["top"] else [])
    assert out["pile"] == s["pile"][:-1]
    assert out["pileCount"].startswith(f"{len(s['pile'])} card")
    for p in s["players"]:
        assert out["seats"][p]["trump"] == s["trumps"][p]
        assert french.SUIT_NAMES[s["trumps"][p]] in out["seats"][p]["trumpText"]
    assert out["centre"]["deals played"] == f"{s['deals_played']} of {s['deals']}"
    if s["out"]:
        assert out["centre"]["out of this deal"].startswith(f"{s['out'][0]} (1st)")
    if s["due"]:
        assert s["turn"] in out["turn"]
        if s["pickup"]:
            assert f"pick up {s['pickup']['count']} card" in out["turn"]
    else:
        assert out["turn"] is None


CHECKS = {"uxinjo": check_uxinjo, "hakamo": check_hakamo, "laugavatnsmanni": check_laugavatnsmanni,
          "svoi-kozyri": check_svoi_kozyri}


@pytest.mark.parametrize("game", games())
def test_table(site, page, shots, game):
    """Every installed game's table, with the checks every table meets, and a game's own
    (``CHECKS``) where it has them."""
    moments = play_deal(site.store, game)
    open_gallery(page, site)
    for moment, views in moments.items():
        for viewer, state in views.items():
            out = render(page, state)
            try:
                check_common(game, state, out, viewer)
                CHECKS.get(game, lambda state, out: None)(state, out)
            except AssertionError as exc:
                raise AssertionError(f"{game} {moment} viewer={viewer}: {exc}") from exc
    # screenshots: the middle of the deal, wide (TD and seat) and at phone width
    mid = moments["mid"]
    render(page, mid[TD])
    page.screenshot(path=str(shots / f"{game}-td-wide.png"), full_page=True)
    render(page, mid[SEAT])
    page.screenshot(path=str(shots / f"{game}-seat-wide.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 800})
    for name, state in (("seat", mid[SEAT]), ("td", mid[TD]), ("end", moments["end"][TD])):
        render(page, state)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{game} {name} view scrolls sideways at 360 px: {width}"
        page.screenshot(path=str(shots / f"{game}-{name}-phone.png"), full_page=True)


def test_playable_cards_are_keyboard_buttons(site, page):
    moments = play_deal(site.store, "hakamo")
    open_gallery(page, site)
    state = moments["mid"][SEAT]
    me = state["players"][0]
    out = render(page, state, actions=me)
    assert [tag for *_, tag in out["seats"][me]["hand"]] == ["BUTTON"] * len(state["hands"][me])
    for p in state["players"][1:]:
        assert [tag for *_, tag in out["seats"][p]["hand"]] == ["SPAN"] * state["hand_sizes"][p]
    buttons = page.locator(f'.t-seat[data-player="{me}"] button.card.playable')
    assert buttons.count() == len(state["hands"][me])
    first = state["hands"][me][0]
    assert buttons.first.get_attribute("aria-label") == f"play {first}"
    assert buttons.first.get_attribute("type") == "button"
    buttons.first.focus()
    page.keyboard.press("Enter")
    buttons.nth(1).focus()
    page.keyboard.press(" ")
    assert page.evaluate("window.clicked") == [[first, me], [state["hands"][me][1], me]]


def test_unknown_game_is_an_error(site, page):
    open_gallery(page, site)
    message = page.evaluate("""async () => {
      const m = await import('/static/js/tables/index.js');
      try { m.renderTable({ game: 'skat', players: [] }); return null; } catch (e) { return e.message; }
    }""")
    assert message and "skat" in message


def test_card_names_and_elements(site, page):
    open_gallery(page, site)
    codes = sorted(set(jx.JX_DECK)) + list(french.DECK_52) + [HIDDEN, "Z9"]
    got = page.evaluate("""async (codes) => {
      const c = await import('/static/js/cards.js');
      return codes.map((code) => {
        const svg = c.cardSVG(code, { small: true });
        const el = c.cardElement(code);
        const row = c.cardRow([code, code], { actionFor: (x) => ({ label: 'take ' + x, onClick() {} }) });
        return [code, c.cardName(code), svg.tagName, svg.getAttribute('role'), svg.getAttribute('aria-label'),
                svg.querySelector('title').textContent, svg.getAttribute('width'), el.tagName, el.className,
                el.dataset.card, row.className, row.children.length, row.firstChild.tagName,
                row.firstChild.getAttribute('aria-label')];
      });
    }""", codes)
    for code, name, tag, role, label, title, width, el_tag, el_cls, data, row_cls, n, btn, btn_label in got:
        assert name == label == title == card_name(code), code
        assert (tag, role, width) == ("svg", "img", "36")
        assert (el_tag, el_cls.split()[0], data) == ("SPAN", "card", code)
        assert (row_cls, n, btn, btn_label) == ("t-cards", 2, "BUTTON", f"take {code}")
    names = dict((g[0], g[1]) for g in got)
    assert names["R7"] == "red 7" and names["GX"] == "green X" and names["BV"] == "blue V"
    assert names["C"] == "Centro" and names["PJ"] == "PJx" and names["AJ"] == "AJx"
    assert names["TH"] == "10 of hearts" and names["AS"] == "ace of spades" and names["2C"] == "2 of clubs"
    assert names[HIDDEN] == "face-down card" and names["Z9"] == "Z9"


def test_gallery(site, page, shots):
    open_gallery(page, site)
    got = page.evaluate("""() => {
      const read = (sel) => [...document.querySelectorAll(sel + ' figure')].map((f) => [
        f.querySelector('[data-card]').dataset.card, f.querySelector('svg').getAttribute('aria-label'),
        f.querySelector('figcaption').textContent]);
      return { jx: read('section[aria-labelledby=jx-deck]'), french: read('section[aria-labelledby=french-deck]'),
               other: read('section[aria-labelledby=other-cards]') };
    }""")
    jx_codes = [c for c, _, _ in got["jx"]]
    # each of the 36 different Jx cards once; PJx and AJx (two copies each) say so
    assert sorted(jx_codes) == sorted(set(jx.JX_DECK)) and len(jx_codes) == 36
    assert len({label for _, label, _ in got["jx"]}) == 36
    for code, label, caption in got["jx"]:
        assert label == card_name(code)
        assert caption == label + (" (×2)" if code in ("PJ", "AJ") else "")
    assert [c for c, _, _ in got["french"]] == list(french.DECK_52)
    assert len({label for _, label, _ in got["french"]}) == 52
    for code, label, caption in got["french"]:
        assert label == caption == card_name(code)
    assert (HIDDEN, "face-down card", "face-down card") in [tuple(x) for x in got["other"]]
    page.screenshot(path=str(shots / "gallery-wide.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "gallery-phone.png"), full_page=True)
