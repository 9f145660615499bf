"""The clocks in the browser (issue 40): the live table shows each seat's clock, the seat
to act ticking down from the server's figure (the page's timers run on Playwright's
installed clock: the test moves time, nothing waits on the wall clock), on a phone too;
the replay shows the clocks of each step. Screenshots under tests/web/output/."""

from __future__ import annotations

import random

from kartludo.app.matches.pipeline import MatchService

PHONE = {"width": 390, "height": 844}
PLAYERS = ["ann", "bob", "cy", "dee"]


def seconds(face: str) -> int:
    minutes, _, secs = face.partition(":")
    return int(minutes) * 60 + int(float(secs))


def test_the_table_ticks_the_seat_to_act_and_the_replay_shows_each_steps_clocks(site, browser, shots):
    created = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": PLAYERS, "seed": 8,
                                                                 "clock": "5m+10s"})
    mid, tokens = created["match"], created["tokens"]
    state = site.api("GET", f"/matches/{mid}/state")
    [first] = state["to_act"]
    other = next(p for p in PLAYERS if p != first)
    errors: list[str] = []
    context = browser.new_context(viewport=PHONE)
    try:
        pg = context.new_page()
        pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        pg.clock.install()
        pg.goto(f"{site.url}/ui/table/{mid}#token={tokens[other]}")
        pg.wait_for_selector("#clocks .clock.running")
        assert pg.get_attribute("#clocks .clock.running", "data-player") == first
        chips = {pg.get_attribute(f"#clocks .clock >> nth={i}", "data-player"):
                 pg.inner_text(f"#clocks .clock >> nth={i} >> .clock-time") for i in range(4)}
        assert {p: f for p, f in chips.items() if p != first} == dict.fromkeys(set(PLAYERS) - {first}, "5:00")
        before = seconds(chips[first])
        pg.clock.run_for(7_000)  # the page's own timers: seven seconds on (before its 10 s resync with the server)
        after = seconds(pg.inner_text("#clocks .clock.running .clock-time"))
        assert before - after in (6, 7, 8), (before, after)
        assert pg.inner_text(f"#clocks .clock[data-player='{other}'] .clock-time") == "5:00"  # only the seat to act
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "no sideways scroll"
        box = pg.eval_on_selector("#clocks", "e => e.getBoundingClientRect().bottom")
        assert box <= PHONE["height"], "the clocks are in the first screen"
        pg.screenshot(path=shots / "table-clocks-phone.png")
    finally:
        context.close()
    # a few moves, then the replay: every step shows the clocks as they were
    svc = MatchService(site.store)
    game, rng = svc.load(mid).game, random.Random(8)
    for _ in range(3):
        st = svc.load(mid).state
        seat = game.to_act(st)[0]
        choice = game.bots()["heuristic"].choose(game, st, seat, game.legal_commands(st, seat), rng)
        svc.execute(mid, svc.play(choice), actor=PLAYERS[seat])
    context = browser.new_context(viewport=PHONE)
    try:
        pg = context.new_page()
        pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        pg.goto(f"{site.url}/ui/replay/{mid}?deal=1&step=2")
        pg.wait_for_selector("#replay-clocks .clock")
        assert pg.locator("#replay-clocks .clock").count() == 4
        assert pg.locator("#replay-clocks .clock.running").count() == 1
        pg.screenshot(path=shots / "replay-clocks-phone.png")
    finally:
        context.close()
    assert not errors, "\n".join(errors)


def test_the_td_page_pauses_resumes_and_adds_time_with_a_reason(site, page, shots):
    from kartludo.app.matches import clock

    created = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": PLAYERS, "seed": 8,
                                                                 "clock": "5m+10s"})
    mid = created["match"]
    page.goto(f"{site.url}/ui/td/{mid}#token={site.td_token}")
    page.wait_for_selector("#clocks .clock.running")
    page.click("#clock-pause")  # no reason yet: asked for, nothing sent
    page.wait_for_selector("#message .error")
    assert len(site.store.read_stream(clock.table_stream(mid))) == 2  # the table's setting and the clock's
    page.fill("#clock-reason", "a dispute at the table")
    page.click("#clock-pause")
    page.wait_for_selector("#clocks .clock-control:has-text('paused')")
    assert page.inner_text("#clock-pause") == "Resume clocks"
    page.fill("#clock-reason", "phone call")
    page.select_option("#clock-seat", "cy")
    page.fill("#clock-time", "90s")
    page.click("#clock-add")
    page.wait_for_selector("#clocks .clock[data-player='cy'] .clock-time:has-text('6:30')")
    events = [r.event for r in site.store.read_stream(clock.table_stream(mid))][2:]
    assert [(type(e).__name__, e.by, e.reason) for e in events] == [
        ("ClockPaused", "td", "a dispute at the table"), ("TimeAdded", "td", "phone call")]
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=shots / "td-clocks-phone.png")


def test_a_flag_fall_the_server_applied_shows_on_its_ruling_page(site, page, shots):
    """The served app sweeps by itself (every second): a 1 s move limit runs out, the
    server records the flag fall, and its ruling page shows the times as facts."""
    import time

    from kartludo.app.matches import clock
    from kartludo.app.matches.pipeline import stream_of
    from kartludo.events.match import FlagFall

    created = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": PLAYERS, "seed": 8,
                                                                 "move_limit": "1s"})
    mid = created["match"]
    deadline = time.monotonic() + 120
    while True:  # readiness: the server's own sweep has recorded it
        flags = [r for r in site.store.read_stream(stream_of(mid)) if isinstance(r.event, FlagFall)]
        if flags:
            break
        assert time.monotonic() < deadline, "no flag fall recorded by the server's sweep"
        time.sleep(0.1)
    ruling = flags[0].event
    assert flags[0].actor == clock.CLOCK_ACTOR
    page.goto(f"{site.url}/ui/audit/{mid}/{ruling.ruling_id}")
    page.wait_for_selector("#ruling-facts")
    page.set_viewport_size(PHONE)
    text = page.inner_text("main")
    assert "hakamo §Clocks" in text and "flag fell at" in text.lower(), text
    page.screenshot(path=shots / "flag-fall-ruling-phone.png", full_page=True)
