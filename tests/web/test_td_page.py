"""The TD page of a match (/ui/td/MATCH, TD token): the table in the TD's view (every
hand face up), Deal next when a deal may start (and only then), whether the match deals
by itself, and the match's rulings linked to their pages; a seat token is refused."""

from __future__ import annotations

import re

import scenarios

from kartludo.app.matches.pipeline import MatchService


def test_td_page_deals_next_shows_every_hand_and_links_the_rulings(site, page, shots):
    svc = MatchService(site.store)
    mid = scenarios.foul_then_void_win(svc)  # two deals, a foul ruling in deal 1; no auto_deal
    rulings = site.api("GET", "/audit", params={"match": mid})
    assert rulings
    page.goto(f"{site.url}/ui/td/{mid}#token={site.td_token}")
    page.wait_for_selector("#deal-next:not([disabled])")
    assert "deals only when a TD deals" in page.inner_text("#auto-deal")
    assert page.inner_text("#deal-next") == "Deal next (deal 3)"
    # the rulings: each linked to its page, the player by name, the rule linked
    for r in rulings:
        item = page.locator(f"#rulings li[data-ruling='{r['id']}']")
        assert item.locator(f"a[href='/ui/audit/{r['match']}/{r['ruling_id']}']").count() == 1
        assert f"deal {r['deal']} · {r['player']} · {r['status']}" in item.inner_text()
    assert page.locator(f"a[href='/ui/audit?match={mid}']").count() == 1
    page.click("#deal-next")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Deal 3')")
    page.wait_for_selector("#deal-next[disabled]")
    records = svc.records(mid)
    assert [r.actor for r in records if r.type == "match.deal-started"][-1] == "td"
    # the TD's view: every hand face up, as the TD's state says
    state = site.api("GET", f"/matches/{mid}/state", site.td_token)
    page.wait_for_function(f"document.querySelectorAll('#table .t-hand [data-card]').length === "
                           f"{sum(len(h) for h in state['hands'].values())}")
    drawn = page.eval_on_selector_all("#table .t-hand [data-card]", "es => es.map(e => e.dataset.card)")
    assert sorted(drawn) == sorted(c for h in state["hands"].values() for c in h) and "??" not in drawn
    text = page.inner_text("main")
    assert not re.search(r"\b(undefined|null|NaN|waiting_deal)\b", text)
    page.screenshot(path=shots / "td.png", full_page=True)


def test_td_page_refuses_a_seat_token(site, page):
    created = site.api("POST", "/matches", site.td_token, json={"game": "hakamo", "players": ["a", "b", "c", "d"]})
    page.goto(f"{site.url}/ui/td/{created['match']}#token={created['tokens']['a']}")
    page.wait_for_selector("p.error")
    assert "needs a TD token" in page.inner_text("p.error")
    assert page.locator("#deal-next").count() == 0
