"""Deal diagrams keep each card's colours (issue 44): the diagram's style sheet styles
its own labels only, so a card's text is drawn in the card's ink (red 7 in red, a
heart's rank in red, a spade's in black), in Chromium (the casebook, an SVG opened in a
browser) and in the PNG cairosvg makes (``replay --diagram png``); each card's markup
in the diagram is the web's own picture, byte for byte."""

from __future__ import annotations

import io
import re

import pytest

from kartludo.app.casebook.cardfaces import card_markup
from kartludo.app.casebook.diagrams import diagram, to_png
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.base import ALL

FILLS = """(svg) => {
  document.body.innerHTML = svg;
  const out = [];
  for (const g of document.querySelectorAll('g.card')) {
    for (const t of g.querySelectorAll('text')) {
      // the fill a text is given on the card (on it or on the nearest group that sets one)
      const given = t.closest('[fill]').getAttribute('fill');
      const probe = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      probe.setAttribute('fill', given);
      g.append(probe);
      out.push([g.dataset.card, getComputedStyle(t).fill, getComputedStyle(probe).fill]);
      probe.remove();
    }
  }
  const labels = [...document.querySelectorAll('text.seat, text.caption')].map((t) => getComputedStyle(t).fill);
  return { out, labels };
}"""


def dealt(store, game: str, players: list[str], seed: int):
    svc = MatchService(store)
    mid = svc.create(game, players, seed=seed)
    svc.deal(mid)
    match = svc.load(mid)
    return match.game, match.state, match.players


@pytest.mark.parametrize(("game", "players"), [("uxinjo", ["ann", "bob", "cy"]),
                                                ("laugavatnsmanni", ["ann", "bob", "cy"])])
def test_a_diagrams_cards_keep_their_ink(site, page, game, players):
    g, state, names = dealt(site.store, game, players, seed=4)
    svg = diagram(g, state, names, viewer=ALL, caption=f"{game} as dealt")
    page.goto(site.url + "/ui/cards")
    found = page.evaluate(FILLS, svg)
    assert found["out"], "the diagram draws cards with text"
    wrong = [(code, shown, given) for code, shown, given in found["out"] if shown != given]
    assert not wrong, f"a card's text lost its colour: {wrong[:5]}"
    inks = {shown for _, shown, _ in found["out"]}
    assert len(inks) >= 2, inks  # red and black (or the Jx colours), not one grey for all
    assert set(found["labels"]) == {"rgb(34, 34, 34)"}  # the diagram's own labels keep #222
    # every card in the diagram is the web's picture, byte for byte (cards.js = cardfaces.py)
    for code in {c for hand in g.view(state, ALL)["hands"].values() for c in hand}:
        assert card_markup(code, small=True) in svg


def test_the_png_draws_a_red_cards_number_in_red(site):
    pytest.importorskip("cairosvg")
    image = pytest.importorskip("PIL.Image")
    g, state, names = dealt(site.store, "uxinjo", ["ann", "bob", "cy"], seed=4)
    assert any(c.startswith("R") for hand in g.view(state, ALL)["hands"].values() for c in hand)
    svg = diagram(g, state, names, viewer=ALL)

    def reds(markup: str) -> int:
        """Pixels of red ink (the red Jx ink is #b3261e)."""
        try:
            png = image.open(io.BytesIO(to_png(markup))).convert("RGB")
        except Exception as exc:  # the Cairo library itself may be missing
            pytest.skip(f"no PNG here: {exc}")
        return sum(1 for r, gr, b in png.getdata() if r > 150 and gr < 80 and b < 80)

    # the red the numbers add: every text taken out, the corner shapes' red stays
    assert reds(svg) - reds(re.sub(r"<text[^>]*>.*?</text>", "", svg)) > 100, "a red card's number is drawn red"
