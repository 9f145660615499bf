"""Phases in words on the pages: the table pages' phase words (web/static/js/tables/
common.js) are the engine's (engine/phases.py) for every phase any game can be in, so
no page shows a raw value such as ``waiting_deal``."""

from __future__ import annotations

import enum

from kartludo.engine.phases import WORDS, phase_words
from kartludo.engine.registry import all_games
from kartludo.events.match import MatchCreated


def every_phase() -> set[str]:
    """Every value of every installed game's phase enum (the type of its state's phase)."""
    values = set()
    for game in all_games():
        players = [f"p{i}" for i in range(game.player_counts[0])]
        phase = type(game.start(MatchCreated(game=game.name, ruleset=game.ruleset, players=players)).phase)
        assert issubclass(phase, enum.Enum)
        values |= {p.value for p in phase}
    return values


def test_every_phase_has_the_same_words_on_the_pages_as_in_the_engine(site, page):
    phases = every_phase()
    assert {"waiting_deal", "exchange", "shares"} <= phases
    # a phase the engine passes through by itself (Svoi Kozyri's passing, settling) may
    # have no entry: its value is already a word
    assert all("_" not in p for p in phases - set(WORDS)), sorted(phases - set(WORDS))
    page.goto(site.url + "/ui/")
    shown = page.evaluate("""async (phases) => {
        const { phaseText } = await import('/static/js/tables/common.js');
        return Object.fromEntries(phases.map((p) => [p, phaseText(p)]));
    }""", sorted(phases | set(WORDS)))
    assert shown == {p: phase_words(p) for p in phases | set(WORDS)}
    assert not any("_" in words for words in shown.values())
