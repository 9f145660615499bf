"""The project's rules pages say what the engines do, in the spec's words."""

from __future__ import annotations

import re

import pytest

from kartludo.app.casebook import rulebook
from kartludo.engine.base import BadCommand
from kartludo.engine.registry import game_names, get_game

#: every installed game has its page (test_rule_citations checks there is no other)
PAGES = game_names()


def paragraphs(game: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", rulebook.page_text(game))]


@pytest.mark.parametrize("game", PAGES)
def test_a_settled_gap_is_called_a_ruling_as_in_the_spec_and_the_events(game):
    """Issue 15: one word, RULING, where the spec and the recorded events say RULING."""
    assert "project decision" not in rulebook.page_text(game).lower()


def test_the_four_seeded_games_pages_settle_their_gaps_as_rulings():
    """Their seed documents left gaps, each settled by a RULING the page marks."""
    for game in ("hakamo", "laugavatnsmanni", "svoi-kozyri", "uxinjo"):
        assert rulebook.page_text(game).count("**RULING") >= 3, game


@pytest.mark.parametrize("game", PAGES)
def test_each_page_names_the_engines_ruleset(game):
    assert f"ruleset `{get_game(game).ruleset}`" in rulebook.page_text(game)


def test_svoi_kozyri_match_creation_refuses_too_few_trump_suits_as_the_page_says():
    """Issue 15: the page claimed such a match is created and only its first deal refused."""
    with pytest.raises(BadCommand, match="names 2 suits for 3 players"):
        get_game("svoi-kozyri").check_setup(["ann", "bob", "cy"], {"trumps": ["S", "H"]})
    page = " ".join(rulebook.page_text("svoi-kozyri").split())
    assert "its first `deal` is refused and the match cannot be played" not in page
    [claim] = [p for p in paragraphs("svoi-kozyri") if "fewer suits than players" in p]
    assert "`match new` (and the service's match creation) refuses a match with fewer suits than players" in claim


def test_svoi_kozyri_drawn_deals_count_is_documented_as_the_ruling():
    [ruling] = [p for p in paragraphs("svoi-kozyri") if "drawn deal counts as one of the match's deals" in p]
    assert ruling.startswith("**RULING:**")
    assert "records how many of its deals were drawn (`draws`)" in ruling
    assert rulebook.sections("svoi-kozyri")["Cards, players, trumps"]  # where RULING_DEALS points


def test_hakamo_bid_bound_is_the_projects_bound_with_its_reason():
    [bound] = [p for p in paragraphs("hakamo") if "not exceed 57" in p]
    assert "RULING" not in bound.replace("no RULING adds one", "")
    assert "project's bound" in bound and "at most one Matisto" in bound
    assert "the highest GV a deal can reach is 42" in bound


def test_laugavatnsmanni_page_states_the_amended_great_call_ruling():
    [ruling] = [p for p in paragraphs("laugavatnsmanni") if "amended RULING" in p]
    assert "amended RULING" in ruling and "cannot call great" in ruling and "cannot hold" in ruling
    assert "`hold hearts` or `hold grand`" not in rulebook.page_text("laugavatnsmanni")


def test_uxinjo_page_keeps_the_taken_card_after_an_eltiri():
    [ruling] = [p for p in paragraphs("uxinjo") if "you cannot discard the card you took" in p]
    assert "after an eltiri it is still the card you took" in ruling
    assert rulebook.sections("uxinjo")["2.2"].title == "A turn"


@pytest.mark.parametrize("game", PAGES)
def test_every_page_renders_with_its_section_anchors(game):
    html = rulebook.render(game)
    for section in rulebook.sections(game).values():
        assert f'id="{section.anchor}"' in html
    assert "{#" not in html
    assert "<table>" in rulebook.render("uxinjo")  # the pages' tables render as tables
    assert 'href="/ui/rules/uxinjo"' in rulebook.render("hakamo")  # the Jx deck lives on the Uxinjo page
