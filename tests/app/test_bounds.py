"""Numbers and texts are bounded where they enter the library, so no caller (CLI,
service, simulation) can store one that breaks a later read."""

from __future__ import annotations

import pytest

from kartludo.app.errors import AppError, check_text
from kartludo.app.league.series import create_series, series_report
from kartludo.app.league.standings import standings
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.base import BadCommand


@pytest.mark.parametrize("minutes", [0, 525_601, 10**12, 2**64])
def test_a_series_lasts_a_minute_to_a_year(store, minutes):
    before = store.count_events()
    with pytest.raises(BadCommand, match="at most 525600"):
        create_series(store, "uxinjo", ["ann", "bob", "cy"], minutes)
    assert store.count_events() == before
    standings(store)  # the projections read on


def test_a_year_long_series_and_its_report_work(store):
    sid = create_series(store, "uxinjo", ["ann", "bob", "cy"], 525_600)
    assert series_report(store, sid).minutes == 525_600


@pytest.mark.parametrize("start", [-1, 10**18])
def test_a_series_starts_between_1970_and_9000(store, start):
    with pytest.raises(BadCommand, match="out of range"):
        create_series(store, "uxinjo", ["ann", "bob", "cy"], 60, starts_at_us=start)


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, 10**40])
def test_seeds_fit_63_bits(store, seed):
    with pytest.raises(BadCommand, match="use 0 <= seed < 2\\^63"):
        MatchService(store).create("uxinjo", ["ann", "bob", "cy"], seed=seed)
    assert store.count_events() == 0
    assert MatchService(store).create("uxinjo", ["ann", "bob", "cy"], seed=2**63 - 1)


def test_actors_are_short_text(store):
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    before = store.count_events()
    for actor, message in [("x" * 101, "at most 100"), ("a\x00b", "control character")]:
        with pytest.raises(AppError, match=message):
            svc.deal(mid, actor=actor)
    assert store.count_events() == before


def test_check_text():
    check_text("a reason", "tabs\tand\nlines are fine", 100)
    check_text("a label", "", 10, empty=True)
    for text, message in [("", "is empty"), ("  ", "is empty"), ("x" * 11, "11 characters long: at most 10"),
                          ("\x7f", "control character"), ("\x00", "control character")]:
        with pytest.raises(AppError, match=message):
            check_text("it", text, 10)
