"""Commands the rules refuse: a clear message, the rule cited, nothing recorded."""

from __future__ import annotations

import pytest
from uxinjo_helpers import OK, OR, SU, Table, build_deck

from kartludo.engine.base import BadCommand, IllegalCommand, StartDeal
from kartludo.engine.jx import JX_DECK
from kartludo.engine.registry import get_game
from kartludo.engine.uxinjo import UXINJO


def dealt(**kw):
    t = Table()
    t.deal(build_deck(OR, **kw))
    return t


def test_registry_finds_the_game():
    g = get_game("uxinjo")
    assert g is UXINJO and g.ruleset == "uxinjo-3" and g.seat_names[:3] == ("Or", "Su", "Ok")
    assert g.deck({}) == JX_DECK and set(g.bots()) == {"random", "heuristic"}


def test_acting_out_of_turn():
    t = dealt()
    for seat in (SU, OK):
        for verb in ("draw", "take", "levu", "munt", "pass"):
            err = t.refuse(seat, verb)
            assert err.rule.startswith("uxinjo §")
    assert "it is ann (Or)'s turn, not bob (Su)'s" == t.refuse(SU, "draw").message


def test_nothing_is_recorded_on_a_refusal():
    t = dealt()
    before = t.state
    t.refuse(SU, "draw")
    assert t.state is before and len(t.events) == 1


def test_discard_before_drawing_and_draw_twice():
    t = dealt(hands={OR: ["R1", "R2", "R3", "G4", "G5"]})
    t.refuse(OR, "discard", "R1")
    t.refuse(OR, "take")  # the discard pile is empty
    t.act(OR, "draw")
    assert "six cards" in t.refuse(OR, "draw").message
    t.refuse(OR, "take")


def test_discarding_a_jx_or_a_card_not_held():
    t = dealt(hands={OR: ["PJ", "AJ", "R3", "G4", "G5"]}, stock=["B7"])
    t.act(OR, "draw")
    err = t.refuse(OR, "discard", "PJ")
    assert "never be discarded" in err.message and "§2.2" in err.rule
    t.refuse(OR, "discard", "AJ")
    err = t.refuse(OR, "discard", "R9")
    assert "do not hold R9" in err.message
    with pytest.raises(IllegalCommand):
        UXINJO.decide(t.state, UXINJO.parse_command(OR, "discard", ["C"]))


def test_taken_card_may_not_be_discarded():
    t = dealt(stock=["G9"])
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(OK, "pass")
    t.act(SU, "take")
    err = t.refuse(SU, "discard", "G9")
    assert err.rule == "uxinjo §2.2 B (RULING: the taken card may not be discarded)"


def test_levu_after_the_first_turn():
    t = dealt(stock=["B5", "B6", "B7"])
    t.act(OR, "draw")
    t.act(OR, "discard", "B5")
    t.act(OK, "pass")
    t.act(SU, "pass")
    t.act(SU, "draw")
    t.act(SU, "discard", "B6")
    t.act(OR, "pass")
    t.act(OK, "pass")
    t.act(OK, "draw")
    t.act(OK, "discard", "B7")
    t.act(SU, "pass")
    t.act(OR, "pass")
    err = t.refuse(OR, "levu")  # Or's second turn
    assert "first turn" in err.message and "§4.2" in err.rule


def test_levu_twice():
    t = dealt()
    t.act(OR, "levu")
    assert "already" in t.refuse(OR, "levu").message


def test_munt_outside_a_window_or_turn():
    t = dealt(stock=["B5"])
    t.refuse(OR, "munt")  # before drawing
    t.refuse(SU, "munt")
    t.act(OR, "draw")
    t.refuse(SU, "munt")  # not Su's discard to claim
    t.act(OR, "discard", "B5")
    t.refuse(OR, "munt")  # own discard
    t.act(SU, "pass")
    assert "already answered" in t.refuse(SU, "munt").message
    t.refuse(SU, "pass")
    t.refuse(OR, "pass")


def test_eltiri_rules():
    t = dealt(hands={OR: ["PJ", "R1", "R2", "G4", "G5"]}, stock=["B7"])
    err = t.refuse(OR, "eltiri", "PJ")  # before drawing: the §3.1 ruling, not the discard rule
    assert err.rule == "uxinjo §3.1 (RULING: eltiri only after drawing or taking, with six cards)"
    assert t.refuse(OR, "discard", "R1").rule == "uxinjo §2.2"
    t.act(OR, "draw")
    t.refuse(OR, "eltiri", "AJ")  # not held
    t.refuse(OR, "eltiri", "R1")  # not a Jx
    with pytest.raises(BadCommand):
        UXINJO.parse_command(OR, "eltiri", ["ZZ"])


def test_eltiri_when_the_stock_is_too_low():
    t = dealt(hands={OR: ["PJ", "PJ", "AJ", "AJ", "C"]})
    # play until Or's turn with 5 stock cards left: draw (4), eltiri twice (3, 2)
    while True:
        seat = t.state.active
        if seat == OR and len(t.state.stock) == 5:
            break
        t.act(seat, "draw")
        t.act(seat, "discard", t.state.drawn)
        t.act((seat + 2) % 3, "pass")
        t.act((seat + 1) % 3, "pass")
    t.act(OR, "draw")
    t.act(OR, "eltiri", "PJ")
    t.act(OR, "eltiri", "PJ")
    assert len(t.state.stock) == 2
    err = t.refuse(OR, "eltiri", "AJ")
    assert "§3.1" in err.rule and "never drawn" in err.message


def test_dealing_mid_deal_and_after_the_end():
    t = dealt()
    with pytest.raises(IllegalCommand) as info:
        UXINJO.decide(t.state, StartDeal(deck=JX_DECK))
    assert "in progress" in info.value.message


def test_commands_before_any_deal():
    t = Table()
    err = t.refuse(OR, "draw")
    assert "dealt" in err.message
    assert UXINJO.legal_commands(t.state, OR) == []
    assert UXINJO.can_deal(t.state) and UXINJO.next_dealer(t.state) == OR and UXINJO.deal_number(t.state) == 0


@pytest.mark.parametrize(
    "deck, words",
    [
        (JX_DECK[:-1], ["missing AJ"]),
        (JX_DECK + ("R1",), ["extra R1"]),
        (JX_DECK[:-1] + ("ZZ",), ["unknown cards ZZ", "missing AJ"]),
        (JX_DECK[:-1] + ("PJ",), ["missing AJ", "extra PJ"]),
    ],
)
def test_bad_deck(deck, words):
    t = Table()
    with pytest.raises(IllegalCommand) as info:
        UXINJO.decide(t.state, StartDeal(deck=tuple(deck)))
    for w in words:
        assert w in info.value.message
    assert info.value.rule == "uxinjo §2.1 (a listed deck is the 38-card Jx deck, top first)"


def test_unknown_verbs_and_bad_arguments():
    with pytest.raises(BadCommand):
        UXINJO.parse_command(OR, "fly", [])
    with pytest.raises(BadCommand):
        UXINJO.parse_command(OR, "draw", ["R1"])
    with pytest.raises(BadCommand):
        UXINJO.parse_command(OR, "discard", [])
    assert UXINJO.parse_command(OR, "discard", ["r5"]).text() == "discard R5"
    assert UXINJO.parse_command(SU, "eltiri", ["PJ"]).text() == "eltiri PJ"


def test_seat_out_of_range():
    t = dealt()
    with pytest.raises(IllegalCommand):
        UXINJO.decide(t.state, UXINJO.parse_command(5, "draw", []))
    assert UXINJO.legal_commands(t.state, 5) == []


def test_options():
    from kartludo.engine.base import parse_options

    assert parse_options(UXINJO, {}) == {"needed_base": 2}
    assert parse_options(UXINJO, {"needed_base": "3"}) == {"needed_base": 3}
    with pytest.raises(BadCommand):
        parse_options(UXINJO, {"needed_base": "0"})
    t = Table(options={"needed_base": 3})
    t.deal(build_deck(OR))
    assert UXINJO.view(t.state, None)["points_needed"] == 3


def test_taken_card_may_not_be_discarded_after_an_eltiri_either():
    """Issue 15: take, eltiri, then the taken card is still the taken card this turn."""
    t = dealt(hands={SU: ["PJ", "R1", "R2", "G4", "G5"]}, stock=["G9", "B7"])
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(OK, "pass")
    t.act(SU, "take")
    t.act(SU, "eltiri", "PJ")  # replacement B7
    err = t.refuse(SU, "discard", "G9")
    assert "taken from the discard pile this turn" in err.message and "§2.2" in err.rule
    assert "discard G9" not in [c.text() for c in UXINJO.legal_commands(t.state, SU)]
    t.act(SU, "discard", "B7")  # any other card


def test_eltiri_without_that_jx_cites_the_eltiri_rule_not_the_stock_size():
    """Issue 15: `eltiri AJ` without an AJ is about what you hold, not about the stock."""
    t = dealt(hands={OR: ["PJ", "R1", "R2", "G4", "G5"]}, stock=["B7"])
    t.act(OR, "draw")
    err = t.refuse(OR, "eltiri", "AJ")
    assert err.message == "you do not hold AJ: eltiri exposes a PJ or an AJ from your own hand"
    assert err.rule == "uxinjo §3.1 (eltiri: expose a PJ or an AJ from your own hand)"
    assert "stock" not in err.rule
    err = t.refuse(OR, "eltiri", "R1")
    assert err.rule == "uxinjo §3.1 (eltiri: expose a PJ or an AJ from your own hand)"


def test_draw_after_a_claim_says_the_window_waits_for_an_answer():
    """Issue 15: once Ok has claimed, waiting for Ok to pass makes no sense: Su must answer."""
    t = dealt(hands={OK: ["G7", "G8", "R1", "R2", "R3"]}, stock=["G9"])
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    t.act(OK, "munt")  # a claim on G9
    for verb in ("draw", "take"):
        err = t.refuse(SU, verb)
        assert err.message == (f"cy (Ok) has claimed munt on G9: answer munt or pass (no {verb}); the claims are "
                               "judged once you answer")
        assert "until" not in err.message and "§2.3" in err.rule
    t.act(SU, "pass")


def test_draw_before_the_other_answer_still_waits_for_the_pass():
    t = dealt(stock=["G9"])
    t.act(OR, "draw")
    t.act(OR, "discard", "G9")
    err = t.refuse(SU, "draw")
    assert err.message == (
        "the claim window is open: answer munt or pass (draw counts as a pass only once cy (Ok) has passed)")


def test_the_candidates_of_a_phase_miss_no_legal_command():
    """``candidates`` offers only the verbs a phase can accept: over random and
    heuristic play it yields the very legal commands every command would."""
    import random

    from kartludo.engine.base import StartDeal, accepted, seeded_deck
    from kartludo.engine.bots import RandomBot
    from kartludo.engine.registry import get_game
    from kartludo.engine.uxinjo.commands import candidates, check, every_candidate
    from kartludo.events.match import MatchCreated

    game = get_game("uxinjo")
    rng = random.Random(5)
    checked = 0
    for seed, bot in ((1, RandomBot()), (2, game.bots()["heuristic"]), (3, RandomBot())):
        created = MatchCreated(game=game.name, ruleset=game.ruleset, players=["ann", "bob", "cy"], seed=seed)
        state = game.start(created)
        for _ in range(1500):
            if game.is_finished(state):
                break
            for seat in range(3):
                assert accepted(check, state, candidates(state, seat)) == \
                    accepted(check, state, every_candidate(state, seat))
                checked += 1
            if game.can_deal(state):
                deck, shuffle = seeded_deck(game.deck(created.options), seed, game.deal_number(state) + 1)
                command = StartDeal(deck=deck, shuffle=shuffle)
            else:
                seat = rng.choice(game.to_act(state))
                command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
            for event in game.decide(state, command):
                state = game.evolve(state, event)
    assert checked > 3000
