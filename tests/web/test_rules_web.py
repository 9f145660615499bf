"""The rules pages in the browser, and a refusal's rule as a link to its section."""

from __future__ import annotations

from urllib.parse import quote, urlparse

import httpx
import pytest

from kartludo.app.casebook import rulebook
from kartludo.engine.registry import game_names

TAKEN = "uxinjo §2.2 B (RULING: the taken card may not be discarded)"


@pytest.mark.parametrize("game", game_names())
def test_every_rules_page_is_served_with_its_section_anchors(site, game):
    r = httpx.get(f"{site.url}/ui/rules/{game}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    for section in rulebook.sections(game).values():
        assert f'id="{section.anchor}"' in r.text
    assert "<script" not in r.text.split("</head>")[1]  # our own Markdown, made into HTML on the server


def test_a_citation_sends_the_browser_to_its_section(site):
    r = httpx.get(f"{site.url}/ui/rules/uxinjo", params={"cite": TAKEN}, follow_redirects=False)
    assert r.status_code in (301, 302, 303, 307) and r.headers["location"] == "/ui/rules/uxinjo#s2-2"
    note = "RULING §Terms: a taken C counts 1"  # a settlement note names no game: the page's own
    r = httpx.get(f"{site.url}/ui/rules/hakamo", params={"cite": note}, follow_redirects=False)
    assert r.headers["location"] == "/ui/rules/hakamo#s-terms"
    r = httpx.get(f"{site.url}/ui/rules/uxinjo", params={"cite": "no section here"}, follow_redirects=False)
    assert r.status_code == 200  # nothing to jump to: the page itself
    r = httpx.get(f"{site.url}/ui/rules/nosuch")
    assert r.status_code == 404 and "no rules page &#x27;nosuch&#x27;" in r.text
    index = httpx.get(f"{site.url}/ui/rules")
    assert index.status_code == 200 and 'href="/ui/rules/svoi-kozyri#s-play"' in index.text


def test_a_refusal_links_its_rule_to_the_rules_page(site, page, shots):
    """A real refusal from the API, shown as the table shows one: its rule is a link that
    lands on the section cited."""
    created = site.api("POST", "/matches", site.td_token, json={"game": "uxinjo", "players": ["ann", "bob", "cy"],
                                                                 "seed": 4})  # dealt by the table at once
    mid = created["match"]
    page.goto(f"{site.url}/ui/")
    page.wait_for_selector("#matches")
    href = page.evaluate(
        """async ([mid, token]) => {
            const m = await import("/static/js/api.js");
            try {
                await m.api(`/matches/${mid}/commands`, { token, method: "POST", body: { verb: "draw", args: [] } });
            } catch (err) {
                const box = m.errorBox(err);
                box.id = "refusal";
                document.getElementById("main").prepend(box);
                return box.querySelector("a.rule").getAttribute("href");
            }
            return null;
        }""",
        [mid, created["tokens"]["bob"]],  # bob (Su) draws on Or's turn
    )
    text = page.inner_text("#refusal")
    assert text.startswith("it is ann (Or)'s turn, not bob (Su)'s (rule: uxinjo §2.2 (turn order")
    cite = "uxinjo §2.2 (turn order: from the dealer, clockwise)"
    assert href == "/ui/rules/uxinjo?cite=" + quote(cite, safe="!*'()")
    page.errors.clear()  # the refused request is logged by the browser, as it should be
    page.click("#refusal a.rule")
    page.wait_for_url("**/ui/rules/uxinjo#s2-2")
    assert urlparse(page.url).fragment == "s2-2"
    assert page.evaluate("document.querySelector(':target').textContent") == "§2.2 A turn"
    page.screenshot(path=shots / "rules-at-section.png")


def test_the_ruling_page_links_its_rule(site, page):
    import scenarios

    from kartludo.app.matches.pipeline import MatchService

    mid = scenarios.foul_then_void_win(MatchService(site.store))
    r = site.api("GET", "/audit", params={"match": mid})[0]
    page.goto(f"{site.url}/ui/audit/{r['match']}/{r['ruling_id']}")
    page.wait_for_selector("#ruling-facts a.rule")
    assert page.inner_text("#ruling-facts a.rule") == r["rule"]
    page.click("#ruling-facts a.rule")
    page.wait_for_url("**/ui/rules/uxinjo#s2-3")
    page.goto(f"{site.url}/ui/audit")
    page.wait_for_selector("#rulings a.rule")
    assert page.get_attribute("#rulings a.rule", "href").startswith("/ui/rules/uxinjo?cite=")
