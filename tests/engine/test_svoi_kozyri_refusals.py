"""Commands the rules refuse: a clear message, the rule cited, nothing recorded."""

from __future__ import annotations

import msgspec
import pytest
from svoi_kozyri_helpers import Table, build_deck, last_card_beat_deal

from kartludo.engine.base import BadCommand, IllegalCommand, StartDeal, parse_options
from kartludo.engine.french import DECK_36
from kartludo.engine.registry import get_game
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI as G
from kartludo.engine.svoi_kozyri import Pickup, Play
from kartludo.engine.svoi_kozyri.state import Phase
from kartludo.events.match import MatchCreated

ANN, BOB, CY, DAN = 0, 1, 2, 3
#: dealt by dan (3) to four players; nobody holds a six of another's suit
HANDS = {
    ANN: ["AS", "KS", "6S", "QH", "7H", "QD", "9D", "8C", "7C"],
    BOB: ["QS", "AH", "KH", "6H", "JD", "TD", "AC", "KC", "9C"],
    CY: ["JS", "TS", "JH", "TH", "AD", "KD", "6D", "QC", "JC"],
    DAN: ["9S", "8S", "7S", "9H", "8H", "8D", "7D", "TC", "6C"],
}


def dealt():
    t = Table(4, dealer=DAN)
    t.deal(HANDS)
    assert t.events[1].passes == []
    return t


def test_registry_finds_the_game():
    g = get_game("svoi-kozyri")
    assert g is G and g.ruleset == "svoi-kozyri-1" and g.player_counts == (2, 3, 4)
    assert g.deck({}) == DECK_36 and set(g.bots()) == {"random", "heuristic"}
    assert g.seat_names[:3] == ("P1", "P2", "P3")


def test_a_card_that_does_not_beat_the_top_card():
    t = dealt()
    t.act(ANN, "play", "QD")
    for card, why in [
        ("TD", "a card of the same suit must be higher"),  # same suit, lower
        ("QS", "neither a higher diamond nor of your trump suit (hearts)"),  # another player's trump
        ("AC", "neither a higher diamond"),  # a suit nobody owns
    ]:
        err = t.refuse(BOB, "play", card)
        assert why in err.message and err.rule.startswith("svoi-kozyri §Play beat")
    t.act(BOB, "play", "6H")  # any own trump beats another suit
    t.act(BOB, "play", "JD")
    # JD is cy's own trump: only a higher diamond beats it
    assert "only a higher diamond" in t.refuse(CY, "play", "6D").message
    assert "only a higher diamond" in t.refuse(CY, "play", "QC").message
    t.act(CY, "play", "KD")
    t.act(CY, "play", "AD")  # the extra card is any card
    t.refuse(DAN, "play", "8D")  # nothing of its suit beats an ace
    t.act(DAN, "play", "6C")  # but any own trump does
    t.act(DAN, "play", "8H")
    t.refuse(ANN, "play", "7H")  # a lower heart; hearts are not ann's trump
    t.act(ANN, "play", "QH")


def test_a_card_not_held():
    t = dealt()
    err = t.refuse(ANN, "play", "AH")
    assert err.message == "you do not hold AH" and err.rule.startswith("svoi-kozyri §Play")
    with pytest.raises(IllegalCommand, match="not a card of the 36-card pack"):
        G.decide(t.state, Play(seat=ANN, card="5H"))


def test_acting_out_of_turn():
    t = dealt()
    for seat in (BOB, CY, DAN):
        assert "ann's turn" in t.refuse(seat, "play", t.hand(seat)[0]).message
        assert t.refuse(seat, "pickup").rule == "svoi-kozyri §Play (clockwise; players who have left are skipped)"
    t.act(ANN, "play", "7C")
    t.refuse(ANN, "play", "8C")  # now bob's turn
    t.act(BOB, "play", "9C")
    t.refuse(CY, "play", "QC")  # bob owes the extra card


def test_acting_after_leaving_the_deal():
    t, _ = last_card_beat_deal()
    t.act(0, "play", "TS")  # ann's last card
    err = t.refuse(0, "play", "TS")
    assert err.message == "ann has emptied the hand and left this deal"
    assert err.rule == "svoi-kozyri §Play (a player who empties the hand leaves the deal)"
    assert "left this deal" in t.refuse(0, "pickup").message
    assert G.legal_commands(t.state, 0) == []


def test_no_pickup_when_leading_or_owing_the_extra_card():
    t = dealt()
    assert "nothing to pick up" in t.refuse(ANN, "pickup").message
    t.act(ANN, "play", "7C")
    t.act(BOB, "play", "9C")
    err = t.refuse(BOB, "pickup")
    assert "add one more card" in err.message and "after beating" in err.rule


def test_nothing_is_recorded_on_a_refusal():
    t = dealt()
    before, count = t.state, len(t.events)
    t.refuse(BOB, "pickup")
    assert t.state is before and len(t.events) == count


def test_deal_refusals():
    t = Table(2)
    with pytest.raises(IllegalCommand, match="the deck is not the game's 36-card deck") as info:
        G.decide(t.state, StartDeal(deck=tuple(DECK_36[:-1])))
    assert info.value.rule == "svoi-kozyri §Deal (a listed deck is the 36-card pack, top first)"
    with pytest.raises(IllegalCommand, match="no deal is in progress"):
        G.decide(t.state, Pickup(seat=0))
    t.deal({})
    with pytest.raises(IllegalCommand, match="still in progress"):
        G.decide(t.state, StartDeal(deck=build_deck(2, 0, {})))
    with pytest.raises(IllegalCommand, match="no seat 5"):
        G.decide(t.state, Pickup(seat=5))


def test_parsing():
    assert G.parse_command(1, "play", ["qh"]) == Play(seat=1, card="QH")
    assert G.parse_command(1, "PLAY", ["10h"]) == Play(seat=1, card="TH")
    assert G.parse_command(0, "pickup", []) == Pickup(seat=0)
    assert Play(seat=1, card="TH").text() == "play TH" and Pickup(seat=0).text() == "pickup"
    for verb, args, message in [
        ("play", ["5H"], "not a card of the 36-card pack"),
        ("play", [], "play takes one card"),
        ("play", ["QH", "KH"], "play takes one card"),
        ("pickup", ["QH"], "pickup takes no arguments"),
        ("draw", [], "verbs: play CARD"),
    ]:
        with pytest.raises(BadCommand, match=message):
            G.parse_command(0, verb, args)


def test_options():
    assert parse_options(G, {}) == {"trumps": ["S", "H", "D", "C"], "deals": 8}
    assert parse_options(G, {"trumps": "h, s,c", "deals": "3"}) == {"trumps": ["H", "S", "C"], "deals": 3}
    for given, message in [
        ({"trumps": "S,S"}, "different trump suit"),
        ({"trumps": "S,X"}, "not suits: X"),
        ({"trumps": "S"}, "one suit per player"),
        ({"deals": "0"}, "at least 1"),
        ({"deals": "many"}, "option deals"),
    ]:
        with pytest.raises(BadCommand, match=message):
            parse_options(G, given)


def test_a_refused_option_is_quoted_as_typed():
    """The player typed ``trumps=S,S,H``; the refusal says that, not a Python list."""
    with pytest.raises(BadCommand) as info:
        parse_options(G, {"trumps": "S,S,H"})
    assert str(info.value) == "option trumps=S,S,H: each player needs a different trump suit"
    with pytest.raises(BadCommand) as info:
        parse_options(G, {"deals": "0"})
    assert str(info.value) == "option deals=0: must be a whole number of deals, at least 1"


def test_trumps_are_per_seat_and_default_by_seat():
    t = Table(3, trumps=["H", "C", "S"])
    assert t.view()["trumps"] == {"ann": "H", "bob": "C", "cy": "S"}
    created = MatchCreated(game="svoi-kozyri", ruleset=G.ruleset, players=["a", "b"], seed=1,
                           options=parse_options(G, {}))
    assert G.view(G.start(created), None)["trumps"] == {"a": "S", "b": "H"}


def test_too_few_trumps_for_the_table_refuse_every_deal():
    """The options cannot see the player count, so a trumps list shorter than the
    table is caught at the first deal."""
    created = MatchCreated(game="svoi-kozyri", ruleset=G.ruleset, players=["a", "b", "c"], seed=1,
                           options=parse_options(G, {"trumps": "S,H"}))
    state = G.start(created)
    assert not G.can_deal(state)
    with pytest.raises(IllegalCommand, match="names 2 suits for 3 players") as info:
        G.decide(state, StartDeal(deck=DECK_36))
    assert "different trump suit" in info.value.rule


def test_match_over():
    t = Table(2, dealer=1, trumps=["S", "H"], deals=1)
    t.state = msgspec.structs.replace(t.state, phase=Phase.FINISHED)
    with pytest.raises(IllegalCommand, match="the match is over"):
        G.decide(t.state, Pickup(seat=0))
    with pytest.raises(IllegalCommand, match="no further deal"):
        G.decide(t.state, StartDeal(deck=DECK_36))
