"""Duplicate matchpoints, checked by hand (issue 39): 2 per table beaten, 1 per tie, out
of 2 x (tables - 1); the difference from the board's mean; a game won low compares
the other way."""

from __future__ import annotations

from fractions import Fraction

from kartludo.projections.matchpoints import compare


def test_four_tables_with_a_tie_by_hand():
    # table 1 scores 5, tables 2 and 3 tie at 2, table 4 scores -1: mean 2
    scored = compare({1: 5, 2: 2, 3: 2, 4: -1})
    assert {t: s.matchpoints for t, s in scored.items()} == {1: 6, 2: 3, 3: 3, 4: 0}
    assert all(s.top == 6 for s in scored.values())
    assert {t: s.percentage for t, s in scored.items()} == {1: 100.0, 2: 50.0, 3: 50.0, 4: 0.0}
    assert {t: s.difference for t, s in scored.items()} == {1: 3, 2: 0, 3: 0, 4: -3}
    # every board shares out the same matchpoints: tables x (tables - 1)
    assert sum(s.matchpoints for s in scored.values()) == 4 * 3


def test_all_tied_is_an_average_board():
    scored = compare({1: 0, 2: 0, 3: 0})
    assert [s.matchpoints for s in scored.values()] == [2, 2, 2]
    assert [s.percentage for s in scored.values()] == [50.0, 50.0, 50.0]


def test_a_game_won_low_compares_the_other_way():
    # Svoi Kozyri: -1 for a lost deal is worse than 0, whichever way the total counts;
    # a "losses" total (1 = lost) with higher_is_better False ranks the same way
    assert {t: s.matchpoints for t, s in compare({1: 1, 2: 0, 3: 0}, higher_is_better=False).items()} == \
        {1: 0, 2: 3, 3: 3}
    assert compare({1: 1, 2: 0}, higher_is_better=False)[2].difference == Fraction(1, 2)


def test_a_lone_table_and_no_table():
    assert compare({}) == {}
    [only] = compare({7: 3}).values()
    assert (only.matchpoints, only.top, only.percentage, only.difference) == (0, 0, 50.0, 0)
