"""The hearing room in headless Chromium: the TD leads, a follower in another browser
context sees each move live, cannot move, and is shut out once the room closes."""

from __future__ import annotations

import re

import httpx
import pytest
from scenarios import foul_then_void_win

from kartludo.app.audit.rulings import appeal
from kartludo.app.audit.trail import resolve_ruling
from kartludo.app.matches.pipeline import MatchService

RULING = "uxinjo-d1-Or"


@pytest.fixture
def room(site):
    mid = foul_then_void_win(MatchService(site.store))
    appeal(site.store, resolve_ruling(site.store, f"{mid}/{RULING}"), "ann",
           "I thought my six cards made two combinations")
    opened = site.api("POST", f"/hearings/{mid}/{RULING}", site.td_token)
    return mid, opened


def test_followers_see_the_leaders_moves_live_and_cannot_move(site, browser, page, room, shots):
    from playwright.sync_api import expect

    mid, opened = room
    frame = site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)
    k, n = frame["ruled_step"], frame["of"]
    assert frame["step"] == k and frame["view"] == "all"
    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    follower_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    follower = follower_ctx.new_page()
    errors: list[str] = []
    follower.on("pageerror", lambda exc: errors.append(str(exc)))
    follower.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    follower.goto(site.url + opened["url"])
    expect(follower.locator("#where")).to_have_text(f"Step {k}/{n} · all hands")
    expect(follower.locator("#at-ruling")).to_be_visible()
    assert follower.locator("#leader-controls").count() == 0 and follower.locator("#follower-note").is_visible()

    page.click("#prev")
    expect(page.locator("#where")).to_have_text(f"Step {k - 1}/{n} · all hands")
    expect(follower.locator("#where")).to_have_text(f"Step {k - 1}/{n} · all hands", timeout=2000)
    page.select_option("#view", "bob")
    expect(follower.locator("#where")).to_have_text(f"Step {k - 1}/{n} · bob's view", timeout=2000)
    page.click("#to-ruling")
    expect(follower.locator("#where")).to_have_text(f"Step {k}/{n} · bob's view", timeout=2000)
    follower.screenshot(path=str(shots / "follower.png"))
    for viewer in (page, follower):  # a part the frame lacks is left out, never printed as "null"
        stray = viewer.eval_on_selector("#frame", "f => [...f.childNodes].filter(n => n.nodeType === 3)"
                                                  ".map(n => n.textContent)")
        assert stray == []

    # the follower's link reads, never moves
    link = opened["link"]
    moved = httpx.post(f"{site.url}/hearings/{mid}/{RULING}/moves", params={"link": link}, json={"step": 1})
    assert moved.status_code == 400 and "unknown query parameter 'link'" in moved.text  # moves take no link
    moved = httpx.post(f"{site.url}/hearings/{mid}/{RULING}/moves", headers={"Authorization": f"Bearer {link}"},
                       json={"step": 1})
    assert moved.status_code in (401, 403)
    assert site.api("GET", f"/hearings/{mid}/{RULING}?link={link}")["step"] == k

    # the decision button writes the CLI's event
    page.fill("#decision-reason", "the six cards shown form no two combinations")
    page.click("#decide-uphold")
    expect(page.locator("#decision-result")).to_have_text("Decided: upheld")
    assert resolve_ruling(site.store, f"{mid}/{RULING}").status == "upheld"

    # a closed room's link is refused, and its followers are told
    site.api("POST", f"/hearings/{mid}/{RULING}/close", site.td_token)
    expect(follower.locator("#closed")).to_be_visible(timeout=2000)
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": link}).status_code == 403
    follower_ctx.close()
    assert not errors, errors


def test_a_wrong_or_missing_link_opens_nothing(site, room):
    mid, opened = room
    link = opened["link"]
    wrong = ("y" if link[0] == "x" else "x") + link[1:]  # one character off, never the link itself
    for params in ({}, {"link": wrong}, {"link": link[:-1]}):
        assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params=params).status_code == 403
    assert httpx.post(f"{site.url}/hearings/{mid}/{RULING}").status_code == 401
    reopened = site.api("POST", f"/hearings/{mid}/{RULING}", site.td_token)
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": opened["link"]}).status_code == 403
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": reopened["link"]}).status_code == 200


def test_the_leader_plays_a_hypothetical_and_rolls_it_out_while_followers_watch(site, browser, page, room, shots):
    """From the moment shown the TD opens a hypothetical, plays another move and runs
    rollouts; a follower sees the move and the chart within 2 s; the TD adjusts the
    deal's score from the rollouts' means (the CLI's decision event)."""
    from playwright.sync_api import expect

    mid, opened = room
    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    follower_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    follower = follower_ctx.new_page()
    errors: list[str] = []
    for pg in (page, follower):
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
    follower.goto(site.url + opened["url"])
    expect(follower.locator("#where")).to_be_visible()

    k = site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)["ruled_step"]
    page.click("#prev")
    page.click("#prev")  # ann's discard before the ruling (at k - 1 the rules wait for the TD)
    expect(follower.locator("#where")).to_contain_text(f"Step {k - 2}/", timeout=2000)
    page.click("#branch")
    expect(page.locator("#hypothetical")).to_be_visible()
    expect(follower.locator("#hypothetical")).to_be_visible(timeout=2000)
    assert follower.locator("#hypo-controls").count() == 0  # a follower watches, never plays
    frame = site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)
    hypo = frame["hypothetical"]
    assert hypo["step"] == frame["step"] and hypo["legal"] and not hypo["moves"]
    player = next(iter(hypo["legal"]))

    page.click(f"#hypo-play-{player}")
    expect(page.locator("#hypo-where")).to_contain_text("h1. ")
    expect(follower.locator("#hypo-where")).to_contain_text("h1. ", timeout=2000)
    played = site.api("GET", f"/hypotheticals/{hypo['id']}", site.td_token)
    assert played["version"] > 1

    page.fill("#rollout-form [name=n]", "20")
    held: list = []  # the request waits here: the page shows a run in flight meanwhile
    page.route("**/rollouts", lambda route: held.append(route))
    page.click("#rollout-run")
    status = page.locator("#rollout-form .rollout-status")
    expect(page.locator("#rollout-run")).to_be_disabled()
    expect(status).to_have_text("playing 20 deals…")
    expect(status).to_have_text(re.compile(r"playing 20 deals… [1-9]\d* s"), timeout=3000)
    page.locator("#rollout-form").screenshot(path=str(shots / "rollout-running.png"))
    held[0].continue_()
    page.unroute("**/rollouts")
    expect(page.locator("#rollout-chart figure")).to_have_count(3, timeout=30000)
    expect(page.locator("#rollout-run")).to_be_enabled()
    expect(status).to_have_text("")
    expect(follower.locator("#rollout-chart figure")).to_have_count(3, timeout=2000)
    follower.screenshot(path=str(shots / "follower-rollout.png"), full_page=True)
    shown_facts = follower.inner_text("#facts dl.facts") if follower.locator("#facts dl.facts").count() else \
        follower.inner_text("dl.facts")
    assert "[]" not in shown_facts and "false" not in shown_facts.split()  # words, as on the ruling's page
    rollout = site.api("GET", f"/hypotheticals/{hypo['id']}", site.td_token)["rollouts"][-1]
    assert rollout["n"] == 20
    for p, stats in rollout["players"].items():  # each bar chart says the player's figures
        label = follower.locator(f"#rollout-chart figure[data-player='{p}'] svg").get_attribute("aria-label")
        assert label.startswith(f"{p}: mean {stats['mean']:.2f}, p10 {stats['p10']:g}, p50 {stats['p50']:g}")
        shown = follower.locator(f"#rollout-chart figure[data-player='{p}'] rect").count()
        assert shown == len({o["scores"][p] for o in rollout["outcomes"]})

    # blank scores award nothing: "Adjust" asks for them first and sends no decision
    page.click("#decide-adjust")
    expect(page.locator("#decision-result")).to_contain_text("Type a score for")
    assert resolve_ruling(site.store, f"{mid}/{RULING}").status != "adjusted"

    # the leader proposes the rollout means and adjusts: the same decision the CLI writes
    page.click("#propose")
    proposed = {p: int(page.input_value(f"#adjust-{p}")) for p in rollout["players"]}
    assert abs(sum(proposed.values()) - round(sum(s["mean"] for s in rollout["players"].values()))) == 0
    for p, stats in rollout["players"].items():
        assert abs(proposed[p] - stats["mean"]) < 1
    page.fill("#decision-reason", "the rollouts from the moment before the ruling")
    page.click("#decide-adjust")
    expect(page.locator("#decision-result")).to_have_text("Decided: adjusted")
    record = resolve_ruling(site.store, f"{mid}/{RULING}")
    assert record.status == "adjusted"

    page.click("#unshow")
    expect(follower.locator("#hypothetical")).to_have_count(0, timeout=2000)
    follower_ctx.close()
    assert not errors, errors


def test_a_hearing_link_expires_by_itself(site, room, monkeypatch):
    from kartludo.app.audit import hearing

    mid, _ = room
    short = httpx.post(f"{site.url}/hearings/{mid}/{RULING}", params={"expires_in": 5},
                       headers={"Authorization": f"Bearer {site.td_token}"})
    assert short.status_code == 422 and "expires_in" in short.text
    opened = site.api("POST", f"/hearings/{mid}/{RULING}?expires_in=3600", site.td_token)
    assert opened["expires_at"]
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": opened["link"]}).status_code == 200
    later = hearing._now_us() + 3601 * 1_000_000
    monkeypatch.setattr(hearing, "_now_us", lambda: later)
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": opened["link"]}).status_code == 403
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}/stream", params={"link": opened["link"]}).status_code == 403
    # the TD still leads, and a new link works again
    assert site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)["open"]
    again = site.api("POST", f"/hearings/{mid}/{RULING}", site.td_token)
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": again["link"]}).status_code == 200


def test_a_hearing_shows_only_hypotheticals_of_its_own_deal(site, room):
    from kartludo.app.hypotheticals import hypothetical as hy

    mid, _ = room
    elsewhere = MatchService(site.store).create("uxinjo", ["dan", "eve", "fay"], seed=5)
    MatchService(site.store).deal(elsewhere)
    foreign = hy.create(site.store, elsewhere, 1, 0)
    r = httpx.post(f"{site.url}/hearings/{mid}/{RULING}/show", json={"hypothetical": foreign},
                   headers={"Authorization": f"Bearer {site.td_token}"})
    assert r.status_code == 409 and "not from the ruled deal" in r.text
    assert httpx.post(f"{site.url}/hearings/{mid}/{RULING}/hypotheticals", json={}).status_code == 401
    assert hy.load(site.store, foreign).started.match == elsewhere


def test_the_replay_shows_the_hearings_annotations_at_their_events(site, page, room):
    """Once the ruled deal has ended anyone's replay shows the hearing's comments on the
    step they were made on, and marks those steps in the event list."""
    from playwright.sync_api import expect

    from kartludo.app.audit.hearing import annotate

    mid, _ = room
    frame = site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)
    note = annotate(site.store, resolve_ruling(site.store, f"{mid}/{RULING}"), "bob", frame["position"],
                    "ann showed six cards, not two sets")
    page.goto(f"{site.url}/ui/replay/{mid}?deal=1&step=1")  # no token: the deal has ended
    expect(page.locator("#notes")).to_have_text("")
    marked = page.locator(".events li", has=page.locator(".note-mark"))
    expect(marked).to_have_count(1)
    assert marked.get_attribute("data-step") == str(note.step)
    marked.locator("a").click()
    expect(page.locator("#notes")).to_contain_text("bob: ann showed six cards, not two sets")


def test_a_player_comments_from_the_replay_and_the_td_from_the_room(site, page, room):
    from playwright.sync_api import expect

    from kartludo.app.audit.hearing import annotations_of
    from kartludo.app.tokens import issue

    mid, _ = room
    bob = issue(site.store, "seat", match=mid, seat=1)
    page.goto(f"{site.url}/ui/replay/{mid}?deal=1&step=2#token={bob}")
    page.fill("#comment-text", "the G2 was discarded before the claim")
    page.click("#comment button[type=submit]")
    expect(page.locator("#notes .annotations")).to_contain_text("bob: the G2 was discarded before the claim")
    said = annotations_of(site.store, f"{mid}/{RULING}")[-1]
    assert (said.by, said.role, said.step) == ("bob", "player", 2)

    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    page.fill("#comment-text", "noted at the hearing")
    page.click("#comment button[type=submit]")
    expect(page.locator("#annotations")).to_contain_text("noted at the hearing")
    assert [a.role for a in annotations_of(site.store, f"{mid}/{RULING}")] == ["player", "td"]


def test_the_td_opens_the_room_from_the_page_shares_its_link_and_closes_it(site, browser, page, shots):
    """A TD who opens the hearing page of a room not yet open is offered to open it, sees
    the followers' link to share (the server keeps only its hash), and closes the room
    from the page; the follower who opened that link is told."""
    import re

    from playwright.sync_api import expect

    mid = foul_then_void_win(MatchService(site.store))
    appeal(site.store, resolve_ruling(site.store, f"{mid}/{RULING}"), "ann", "my six cards made two sets")
    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    expect(page.locator("#room")).to_contain_text("closed")
    assert page.locator("#prev").count() == 0  # nothing to lead until the room opens
    page.select_option("#link-expiry", "7200")
    page.click("#room-open")
    expect(page.locator("#room-link")).to_be_visible()
    shared = page.input_value("#room-link")
    assert shared.startswith(f"{site.url}/ui/hearing/{mid}/{RULING}#link=")
    expect(page.locator("#room")).to_contain_text(re.compile(r"link valid until \d{4}-\d\d-\d\d \d\d:\d\d UTC"))
    expect(page.locator("#prev")).to_be_visible()
    page.screenshot(path=str(shots / "leader-room.png"), full_page=True)

    follower_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    follower = follower_ctx.new_page()
    follower.goto(shared)
    expect(follower.locator("#where")).to_be_visible()
    assert follower.locator("#room").count() == 0  # the room's controls are the leader's
    before = page.inner_text("#where")
    page.click("#prev")
    expect(page.locator("#where")).not_to_have_text(before)  # the leader's own move lands first (CI read it early)
    expect(follower.locator("#where")).to_have_text(page.locator("#where").inner_text(), timeout=2000)
    assert page.input_value("#link-expiry") == "7200"  # the choice outlives the panel's redraws

    # a new link replaces the old one: the page shows the new one, the old stops working
    page.click("#room-open")
    expect(page.locator("#room-link")).not_to_have_value(shared)
    old = shared.split("#link=")[1]
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": old}).status_code == 403
    expect(follower.locator("#closed")).to_be_visible(timeout=2000)

    page.click("#room-close")
    expect(page.locator("#room")).to_contain_text("closed")
    expect(page.locator("#room-link")).to_have_count(0)
    assert not site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)["open"]
    follower_ctx.close()


def test_the_ruling_page_lists_the_deals_hypotheticals_with_their_results(site, page, room):
    """Once the ruled deal has ended the ruling's page lists the hypotheticals made from
    it: where each starts, its settled deal score or its last rollout's means."""
    from playwright.sync_api import expect

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.hypotheticals import rollouts as ro

    mid, _ = room
    played = hy.create(site.store, mid, 1, 2, label="had ann discarded")
    for _ in range(50):  # each seat to move plays its first legal command, to the settlement
        h = hy.load(site.store, played)
        if h.settled:
            break
        seat = h.game.to_act(hy.pending(h.game, h.match.state)[1])[0]
        command = hy.legal(h, h.match.players[seat])[0]
        hy.execute(site.store, played, hy.play(lambda _h, c=command: c))
    scores = hy.load(site.store, played).deal_scores()
    assert scores is not None
    rolled = hy.create(site.store, mid, 1, 1)
    result = ro.rollout(hy.load(site.store, rolled), 10, seed=3)
    ro.record(site.store, result)

    page.goto(f"{site.url}/ui/audit/{mid}/{RULING}")  # no token: the deal has ended
    rows = page.locator("#hypotheticals li")
    expect(rows).to_have_count(2)
    first = rows.nth(0).inner_text()
    assert played in first and "step 2" in first and "had ann discarded" in first
    assert "settled: " + ", ".join(f"{p} {v:+d}" for p, v in scores.items()) in first
    second = rows.nth(1).inner_text()
    assert rolled in second and "step 1" in second and "in play" in second
    assert "10 rollouts" in second and f"ann mean {result.players['ann']['mean']:+.2f}" in second
    expect(page.locator("#hearing-link")).to_have_attribute("href", f"/ui/hearing/{mid}/{RULING}")


def test_the_leader_shows_again_a_hypothetical_made_earlier(site, browser, page, room):
    """Every hypothetical of the deal is listed in the room; the leader shows any of them
    again (the followers follow), and its facts read as cards."""
    from playwright.sync_api import expect

    mid, opened = room
    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    expect(page.locator("#where")).to_be_visible()
    page.click("#prev")
    page.click("#prev")
    page.click("#branch")
    expect(page.locator("#hypothetical")).to_be_visible()
    first = site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)["hypothetical"]["id"]
    page.click("#next")
    page.click("#branch")
    expect(page.locator("#hypo-title")).not_to_contain_text(first)
    expect(page.locator("#hypo-list li")).to_have_count(2)

    follower_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    follower = follower_ctx.new_page()
    follower.goto(site.url + opened["url"])
    expect(follower.locator("#hypo-list li")).to_have_count(2)
    assert follower.locator("#hypo-list button").count() == 0  # followers watch
    page.click(f"#hypo-show-{first}")
    expect(page.locator("#hypo-title")).to_contain_text(first)
    expect(follower.locator("#hypo-title")).to_contain_text(first, timeout=2000)
    expect(page.locator(f"#hypo-show-{first}")).to_have_count(0)  # the one shown has no button
    # the ruling's cards drawn as cards, not as a JSON list
    expect(follower.locator(".facts .card")).to_have_count(6)
    follower_ctx.close()
