"""The hearing room in headless Chromium: the TD leads, a follower in another browser
context sees each move live, cannot move, and is shut out once the room closes."""

from __future__ import annotations

import httpx
import pytest

from kartludo.app.audit import appeal, resolve_ruling
from kartludo.app.matches import MatchService

from scenarios import foul_then_void_win

RULING = "uxinjo-d1-Or"


@pytest.fixture
def room(site):
    mid = foul_then_void_win(MatchService(site.store))
    appeal(site.store, f"{mid}/{RULING}", "ann", "I thought my six cards made two combinations")
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

    # the follower's link reads, never moves
    link = opened["link"]
    moved = httpx.post(f"{site.url}/hearings/{mid}/{RULING}/moves", params={"link": link}, json={"step": 1})
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
    for params in ({}, {"link": "x" + opened["link"][1:]}):
        assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params=params).status_code == 403
    assert httpx.post(f"{site.url}/hearings/{mid}/{RULING}").status_code == 401
    reopened = site.api("POST", f"/hearings/{mid}/{RULING}", site.td_token)
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": opened["link"]}).status_code == 403
    assert httpx.get(f"{site.url}/hearings/{mid}/{RULING}", params={"link": reopened["link"]}).status_code == 200
