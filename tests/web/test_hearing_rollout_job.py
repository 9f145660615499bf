"""The hearing room runs rollouts as jobs of the server (issue 41): a run shows a
progress bar that moves, then the chart of its result; a run can be cancelled (no
result recorded), and a page reloaded mid-run finds the run again."""

from __future__ import annotations

import time

import pytest
from scenarios import foul_then_void_win

from kartludo.app.audit.rulings import appeal
from kartludo.app.audit.trail import resolve_ruling
from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import rollouts as ro
from kartludo.app.matches.pipeline import MatchService

RULING = "uxinjo-d1-Or"


@pytest.fixture
def room(site):
    mid = foul_then_void_win(MatchService(site.store))
    appeal(site.store, resolve_ruling(site.store, f"{mid}/{RULING}"), "ann", "two combinations")
    site.api("POST", f"/hearings/{mid}/{RULING}", site.td_token)
    return mid


@pytest.fixture
def slow(monkeypatch):
    """Each rollout takes at least 10 ms (the server runs in this process): a run lasts
    long enough for its bar to be seen moving, whatever the machine."""
    real = ro.play_out

    def play_out(*args, **kwargs):
        time.sleep(0.01)
        return real(*args, **kwargs)

    monkeypatch.setattr(ro, "play_out", play_out)


def _open_hypothetical(site, page, mid: str) -> str:
    page.goto(f"{site.url}/ui/hearing/{mid}/{RULING}#token={site.td_token}")
    page.click("#prev")
    page.click("#prev")
    page.click("#branch")
    page.wait_for_selector("#rollout-form")
    return site.api("GET", f"/hearings/{mid}/{RULING}", site.td_token)["hypothetical"]["id"]


def _value(page) -> float:
    return float(page.eval_on_selector("#rollout-progress", "p => p.value"))


def test_a_run_shows_its_progress_then_its_result(site, page, room, shots, slow):
    from playwright.sync_api import expect

    hid = _open_hypothetical(site, page, room)
    page.fill("#rollout-form [name=n]", "300")
    page.click("#rollout-run")
    bar = page.locator("#rollout-progress")
    expect(bar).to_be_visible()
    expect(page.locator("#rollout-run")).to_be_disabled()
    expect(page.locator("#rollout-cancel")).to_be_visible()
    assert page.eval_on_selector("#rollout-progress", "p => p.max") == 300
    deadline = time.monotonic() + 30
    while _value(page) < 1:
        assert time.monotonic() < deadline, "the bar never moved"
        time.sleep(0.05)
    first = _value(page)
    while _value(page) <= first:
        assert time.monotonic() < deadline, f"the bar stayed at {first}"
        time.sleep(0.05)
    later = _value(page)
    assert 0 < first < later < 300
    expect(page.locator("#rollout-count")).to_contain_text(" of 300 deals played")
    page.locator("#rollout-form").screenshot(path=str(shots / "rollout-progress.png"))
    page.screenshot(path=str(shots / "hearing-rollout-running.png"), full_page=True)

    expect(page.locator("#rollout-chart figure")).to_have_count(3, timeout=60000)
    expect(bar).to_have_count(0)
    expect(page.locator("#rollout-run")).to_be_enabled()
    expect(page.locator("#rollout-form .rollout-status")).to_have_text("")
    page.locator("#rollout-chart").screenshot(path=str(shots / "rollout-result.png"))
    recorded = hy.load(site.store, hid).rollouts
    assert len(recorded) == 1 and recorded[0].n == 300
    expect(page.locator("#rollout-chart h3")).to_contain_text("over 300 rollouts")
    for p, stats in recorded[0].players.items():
        label = page.locator(f"#rollout-chart figure[data-player='{p}'] svg").get_attribute("aria-label")
        assert label.startswith(f"{p}: mean {stats['mean']:.2f}")


def test_a_run_is_cancelled_from_the_page_and_found_again_after_a_reload(site, page, room, shots, slow):
    from playwright.sync_api import expect

    hid = _open_hypothetical(site, page, room)
    page.fill("#rollout-form [name=n]", "5000")
    page.click("#rollout-run")
    expect(page.locator("#rollout-progress")).to_be_visible()
    page.wait_for_function("() => document.querySelector('#rollout-progress').value > 0")

    page.reload()  # the run goes on in the server: the page finds it and follows it again
    bar = page.locator("#rollout-progress")
    expect(bar).to_be_visible(timeout=10000)
    expect(page.locator("#rollout-run")).to_be_disabled()
    page.wait_for_function("() => document.querySelector('#rollout-progress').value > 0")

    page.click("#rollout-cancel")
    status = page.locator("#rollout-form .rollout-status")
    expect(status).to_contain_text("cancelled after ", timeout=10000)
    expect(status).to_contain_text("of 5000 deals: no result recorded")
    expect(bar).to_have_count(0)
    expect(page.locator("#rollout-run")).to_be_enabled()
    page.locator("#rollout-form").screenshot(path=str(shots / "rollout-cancelled.png"))
    [job] = site.api("GET", f"/hypotheticals/{hid}/rollouts", site.td_token)
    assert job["status"] == "cancelled" and 0 < job["done"] < 5000
    assert not hy.load(site.store, hid).rollouts
    expect(page.locator("#rollout-chart")).to_have_text("No rollouts yet.")
