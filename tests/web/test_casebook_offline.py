"""The casebook opened from disk in headless Chromium with the network cut (issue 22):
the index leads to each case, the diagram draws every card of the moment, the rule
link opens the rules page written beside it, and the pages ask for nothing but files."""

from __future__ import annotations

from scenarios import foul_then_void_win

from kartludo.app.audit.trail import list_rulings
from kartludo.app.casebook.cases import write
from kartludo.app.casebook.diagrams import diagram_cards
from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import rollouts as ro
from kartludo.app.matches.pipeline import MatchService
from kartludo.store import EventStore
from kartludo.store.database import create_engine, upgrade


def test_the_casebook_renders_from_disk_with_the_network_cut(browser, tmp_path):
    from playwright.sync_api import expect

    url = f"sqlite:///{tmp_path / 'cb.db'}"
    upgrade(create_engine(url))
    store = EventStore.open(url)
    svc = MatchService(store)
    matches = [foul_then_void_win(svc), foul_then_void_win(svc, players=["dan", "eve", "fay"])]
    h = hy.create(store, matches[0], 1, 2, label="had ann discarded")
    ro.record(store, ro.rollout(hy.load(store, h), 5, seed=1))
    written, skipped = write(store, tmp_path / "cb", "html", rulings=list_rulings(store, None))
    store.close()
    assert len(written) == 2 and not skipped

    context = browser.new_context(offline=True, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    asked: list[str] = []
    errors: list[str] = []

    def only_files(route):
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    page.route("**/*", only_files)
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((tmp_path / "cb" / "index.html").as_uri())
    links = page.locator("a[href^='cases/']")
    expect(links).to_have_count(2)
    for path in sorted(written):  # named by match id: random, so either may come first
        page.goto((tmp_path / "cb" / "index.html").as_uri())
        page.locator(f"a[href='cases/{path.name}']").click()
        expect(page.locator("h1")).to_contain_text("Ruling ")
        svg = page.locator(".diagram > svg")
        box = svg.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150
        cards = diagram_cards(path.read_text().split('<div class="diagram">', 1)[1].split("</div>", 1)[0])
        drawn = page.locator(".diagram g.card")
        expect(drawn).to_have_count(sum(len(c) for c in cards.values()))
        for j in range(drawn.count()):  # every card is drawn with a size, none collapsed
            card = drawn.nth(j).bounding_box()
            assert card and card["width"] > 5 and card["height"] > 20
        if path.name.startswith(matches[0]):  # the case with the hypothetical
            expect(page.locator("body")).to_contain_text(f"{h} from step 2")
        rule = page.locator("a[href^='../rules/']").first
        anchor = rule.get_attribute("href").split("#", 1)[1]
        rule.click()
        expect(page.locator(f"[id='{anchor}']")).to_be_visible()
    assert not asked, asked
    assert not errors, errors
    context.close()
