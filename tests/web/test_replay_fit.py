"""The replay on one screen (issue 44): at 1280×800 the seats, the table's centre (the
trick, the pile, the stock and discards) and every hand are inside the first screen at
a moment in the middle of a deal, in every game; on a phone the controls and the
moment shown stay at the top while the reader scrolls, in one row."""

from __future__ import annotations

import random

import every_game
import pytest
from every_game import games, heuristic

from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.registry import get_game

#: the event of a moment in the middle of a deal: a trick under way, a claim window, a pile to beat
MIDDLE = {"uxinjo": "uxinjo.discarded", "hakamo": "hakamo.play", "laugavatnsmanni": "laugavatnsmanni.play",
          "svoi-kozyri": "svoi-kozyri.played"}


def middle(game: str) -> set[str]:
    """The events of a mid-deal moment: the game's own above, else any player's action."""
    if game in MIDDLE:
        return {MIDDLE[game]}
    return {event.type_tag() for event in get_game(game).recorded_commands}

BOXES = """() => [...document.querySelectorAll('#table .t-seat, #table .t-centre, #table .t-hand')].map((e) => {
  const r = e.getBoundingClientRect();
  return [e.className, Math.round(r.top), Math.round(r.bottom)];
})"""


def played_deal(store, game: str, seed: int) -> tuple[str, int]:
    """A match whose deal was played out by the bots (until one with card play); its id and deal."""
    svc = MatchService(store)
    mid = svc.create(game, every_game.players(game), seed=seed)
    rng = random.Random(seed)
    for deal in range(1, 6):
        svc.deal(mid)
        match = svc.load(mid)
        g = match.game
        while not (g.can_deal(match.state) or g.is_finished(match.state)):
            seat = g.to_act(match.state)[0]
            choice = heuristic(game).choose(g, match.state, seat, g.legal_commands(match.state, seat), rng)
            svc.execute(mid, svc.play(choice), actor=match.players[seat])
            match = svc.load(mid)
        if sum(1 for r in svc.records(mid) if r.type in middle(game)) >= 6:
            return mid, deal
    raise AssertionError("no deal with card play")


@pytest.mark.parametrize("game", games())
def test_the_replay_fits_a_1280_by_800_screen(site, browser, shots, game):
    mid, deal = played_deal(site.store, game, seed=7)
    steps = site.api("GET", f"/matches/{mid}/replay", params={"deal": deal})["steps"]
    plays = [s["step"] for s in steps if s["event"]["type"] in middle(game)]
    step = plays[len(plays) // 2]
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    try:
        pg.goto(f"{site.url}/ui/replay/{mid}?deal={deal}&step={step}")
        pg.wait_for_selector("#table section.t-table")
        boxes = pg.evaluate(BOXES)
        assert len([b for b in boxes if b[0].startswith("t-seat")]) == every_game.seats(game)
        outside = [b for b in boxes if b[2] > 800 or b[1] < 0]
        pg.screenshot(path=shots / f"{game}-1280x800.png")
        assert not outside, f"below the first screen at 1280x800: {outside}"
        assert pg.evaluate("document.documentElement.scrollWidth") <= 1280
    finally:
        ctx.close()


def test_on_a_phone_the_controls_stay_at_the_top_in_one_row(site, browser, shots):
    mid, deal = played_deal(site.store, "hakamo", seed=7)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    try:
        pg.goto(f"{site.url}/ui/replay/{mid}?deal={deal}&step=12")
        pg.wait_for_selector("#table section.t-table")
        controls = pg.eval_on_selector(".replay-bar .controls", "e => e.getBoundingClientRect().height")
        buttons = pg.eval_on_selector_all(".replay-bar .controls button",
                                          "bs => [...new Set(bs.map(b => Math.round(b.getBoundingClientRect().top)))]")
        assert len(buttons) == 1 and controls <= 60, "one row of buttons"
        # the short labels are for the eye; each button still says what it does
        assert pg.get_attribute(".controls button[data-move='next']", "aria-label") == "next event"
        for y in (600, 1500, 10_000):
            pg.evaluate(f"window.scrollTo(0, {y})")
            bar = pg.eval_on_selector(".replay-bar", "e => { const r = e.getBoundingClientRect();"
                                                     " return [r.top, r.bottom]; }")
            assert bar[0] >= -1 and bar[1] <= 130, (y, bar)
        step = pg.evaluate("new URLSearchParams(location.search).get('step')")
        pg.tap(".controls button[data-move='next']")
        pg.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{int(step) + 1}'")
        assert pg.evaluate("window.scrollY") > 600, "a move does not jump the page"
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        pg.screenshot(path=shots / "replay-phone-scrolled.png")
    finally:
        ctx.close()
