"""Commands the rules refuse: a clear message, the rule cited, nothing recorded."""

from __future__ import annotations

import pytest
from laugavatnsmanni_helpers import ANN, BOB, CY, Table, rounds_deal

from kartludo.engine.base import BadCommand, IllegalCommand, StartDeal, parse_options
from kartludo.engine.french import DECK_52
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI as G
from kartludo.engine.laugavatnsmanni import Exchange, Play
from kartludo.engine.registry import get_game


def dealt(**kw) -> Table:
    t = Table(**kw)
    t.deal(hands=rounds_deal({}))  # ann, bob, cy hold the A/K/Q of every round in turn
    return t


def to_exchange(contract="spades") -> Table:
    t = dealt()
    t.act(BOB, "contract", contract)
    if contract != "nullo":
        t.act(CY, "pass")
        t.act(ANN, "pass")
    return t


def test_registry_finds_the_game_and_its_options():
    g = get_game("laugavatnsmanni")
    assert g is G and g.ruleset == "laugavatnsmanni-2" and g.player_counts == (3,)
    assert g.deck({}) == DECK_52 and set(g.bots()) == {"random", "heuristic"}
    assert parse_options(g, {}) == {"target_points": 10, "max_deals": 18}
    with pytest.raises(BadCommand, match="1-18"):
        parse_options(g, {"max_deals": "19"})
    with pytest.raises(BadCommand, match="positive"):
        parse_options(g, {"target_points": "0"})


def test_a_used_contract_is_refused():
    t = Table({"target_points": 99})
    t.deal()
    t.act(BOB, "contract", "hearts")
    t.act(CY, "pass")
    t.act(ANN, "pass")
    t.act(BOB, "exchange")
    t.play_out()
    for _ in range(2):  # deals 2 and 3: cy and ann choose
        t.deal()
        chooser = G.to_act(t.state)[0]
        t.act(chooser, "contract", "nullo")
        t.act(chooser, "exchange")
        t.play_out()
    t.deal()
    assert G.to_act(t.state) == [BOB]
    err = t.refuse(BOB, "contract", "hearts")
    assert err.message == ("you already chose hearts in this match "
                           "(still to choose: nullo, grand, spades, diamonds, clubs)")
    assert err.rule == "laugavatnsmanni §2 (each player chooses each of the six contracts exactly once)"
    assert "contract hearts" not in [c.text() for c in G.legal_commands(t.state, BOB)]


def test_no_great_call_over_nullo():
    t = to_exchange("nullo")
    for seat in (CY, ANN):
        err = t.refuse(seat, "great", "grand")
        assert "no great call over Nullo" in err.message and "never a great call over Nullo" in err.rule
        t.refuse(seat, "pass")
    t.refuse(BOB, "hold", "grand")
    t.refuse(BOB, "yield")


def test_nullo_is_never_a_great_contract():
    t = dealt()
    t.act(BOB, "contract", "clubs")
    err = t.refuse(CY, "great", "nullo")
    assert "Nullo is never a great contract" in err.message and "Nullo" in err.rule
    t.act(CY, "great", "clubs")
    t.act(ANN, "pass")
    assert "never a great contract" in t.refuse(BOB, "hold", "nullo").message


def test_a_second_great_call_in_the_same_match():
    t = Table({"target_points": 99})
    t.deal()
    t.act(BOB, "contract", "spades")
    t.act(CY, "pass")
    t.act(ANN, "great", "grand")
    t.act(BOB, "yield")
    t.act(ANN, "exchange")
    t.play_out()
    t.deal()  # cy chooses, ann calls first
    t.act(CY, "contract", "clubs")
    err = t.refuse(ANN, "great", "grand")
    assert err.rule == "laugavatnsmanni §3 (RULING: one great call per player per match; a hold uses it too)"


def test_great_calls_in_turn_and_ranked():
    t = dealt()
    t.act(BOB, "contract", "spades")
    err = t.refuse(ANN, "great", "grand")  # cy, left of the chooser, answers first
    assert "cy's turn" in err.message and "clockwise from the chooser's left" in err.rule
    err = t.refuse(BOB, "great", "grand")
    assert "the chooser does not call great" in err.message
    err = t.refuse(CY, "great", "diamonds")
    assert "at least as high as spades" in err.message
    t.refuse(CY, "hold", "grand")
    t.refuse(CY, "yield")
    t.refuse(CY, "exchange")
    t.refuse(CY, "play", "QS")
    t.act(CY, "pass")
    t.act(ANN, "pass")
    t.refuse(BOB, "hold", "grand")  # nobody called great: nothing to hold
    t.refuse(BOB, "yield")


def test_only_the_chooser_holds_or_yields():
    t = dealt()
    t.act(BOB, "contract", "hearts")
    t.act(CY, "great", "hearts")
    t.act(ANN, "pass")
    for seat in (ANN, CY):
        assert "only the chooser" in t.refuse(seat, "yield").message
        t.refuse(seat, "hold", "grand")
    assert "hold CONTRACT or yield" in t.refuse(BOB, "pass").message
    t.refuse(BOB, "great", "grand")
    t.refuse(BOB, "contract", "grand")


def test_revoking_is_refused():
    t = to_exchange("spades")
    t.act(BOB, "exchange")
    t.act(BOB, "play", "KS")
    err = t.refuse(CY, "play", "QH")
    assert "must follow suit" in err.message and "QS" in err.message
    assert err.rule == "laugavatnsmanni §4 must follow suit (a void player may play any card)"
    assert sorted(c.text() for c in G.legal_commands(t.state, CY)) == ["play 3S", "play 6S", "play 9S", "play QS"]


def test_playing_a_card_not_held_or_out_of_turn():
    t = to_exchange("grand")
    t.act(BOB, "exchange")
    err = t.refuse(CY, "play", "QS")
    assert "declarer bob leads" in err.message and "declarer leads the first trick" in err.rule
    err = t.refuse(BOB, "play", "AS")
    assert "you do not hold AS" in err.message
    t.act(BOB, "play", "KS")
    assert "cy's turn" in t.refuse(ANN, "play", "AS").message
    t.refuse(BOB, "play", "KH")


def test_exchanging_more_than_four_cards_or_cards_not_held():
    t = to_exchange("spades")
    err = t.refuse(BOB, "exchange", "KS", "JS", "8S", "5S", "KH")
    assert "at most 4 cards" in err.message and "0-4 cards" in err.rule
    err = t.refuse(BOB, "exchange", "AS")
    assert err.message == "you do not hold AS"
    err = t.refuse(BOB, "exchange", "KS", "KS")
    assert "KS listed twice" in err.message
    err = t.refuse(BOB, "exchange", "2S")  # a Manni card
    assert "do not hold 2S" in err.message
    t.refuse(BOB, "play", "KS")  # the exchange comes first
    assert "only the declarer" in t.refuse(ANN, "exchange").message
    legal = G.legal_commands(t.state, BOB)
    assert len(legal) == 1 + 16 + 120 + 560 + 1820 and all(isinstance(c, Exchange) for c in legal)
    t.act(BOB, "exchange", "KS")
    assert "exchange is over" in t.refuse(BOB, "exchange").message


def test_acting_out_of_turn_in_every_phase():
    t = dealt()
    for seat in (ANN, CY):
        err = t.refuse(seat, "contract", "grand")
        assert "bob, left of the dealer, chooses" in err.message and "§2" in err.rule
        t.refuse(seat, "pass")
    t.act(BOB, "contract", "grand")
    assert "already chosen" in t.refuse(BOB, "contract", "spades").message
    t.refuse(ANN, "pass")


def test_no_command_between_deals_or_before_the_first():
    t = Table()
    err = t.refuse(BOB, "contract", "grand")
    assert "the next deal must be dealt first" in err.message
    t.deal()
    with pytest.raises(IllegalCommand, match="still in progress"):
        G.decide(t.state, StartDeal(deck=DECK_52))
    with pytest.raises(IllegalCommand, match="no seat 5"):
        G.decide(t.state, Play(seat=5, card="AS"))


def test_a_wrong_deck_is_refused():
    t = Table()
    with pytest.raises(IllegalCommand, match="52-card deck: missing 2C") as info:
        G.decide(t.state, StartDeal(deck=DECK_52[:-1]))
    assert info.value.rule == "laugavatnsmanni §1 (a listed deck is the 52-card pack, top first)"
    with pytest.raises(IllegalCommand, match="extra AS"):
        G.decide(t.state, StartDeal(deck=DECK_52[:-1] + ("AS",)))


@pytest.mark.parametrize(
    "verb, args, message",
    [
        ("bid", ["7"], "unknown Laugavatnsmanni verb 'bid'"),
        ("contract", [], "contract takes one contract"),
        ("great", ["hearts", "grand"], "great takes one contract"),
        ("play", ["1S"], "'1S' is not a card"),
        ("play", [], "play takes one card"),
        ("exchange", ["ZZ"], "'ZZ' is not a card"),
        ("pass", ["now"], "pass takes no arguments"),
    ],
)
def test_unreadable_commands(verb, args, message):
    with pytest.raises(BadCommand, match=message):
        G.parse_command(ANN, verb, args)


def test_parsing_is_case_insensitive_and_round_trips():
    assert G.parse_command(ANN, "CONTRACT", ["Hearts"]).text() == "contract hearts"
    assert G.parse_command(ANN, "play", ["10h"]).card == "TH"
    cmd = G.parse_command(ANN, "exchange", ["2c", "as", "th"])
    assert cmd.cards == ("AS", "TH", "2C") and cmd.text() == "exchange AS TH 2C"
    for text in ("contract nullo", "great grand", "pass", "hold spades", "yield", "exchange", "exchange AS 2C",
                 "play QD"):
        verb, *args = text.split()
        assert G.parse_command(BOB, verb, args).text() == text


def _plain_deal(t: Table, contract: str) -> None:
    """One whole deal: the chooser names ``contract``, nobody calls great, the chooser keeps the hand."""
    t.deal()
    chooser = G.to_act(t.state)[0]
    t.act(chooser, "contract", contract)
    if contract != "nullo":
        for opponent in ((chooser + 1) % 3, (chooser + 2) % 3):
            t.act(opponent, "pass")
    t.act(chooser, "exchange")
    t.play_out()


def _great_words(t: Table, seat: int) -> list[str]:
    return [c.text() for c in G.legal_commands(t.state, seat) if c.text().split()[0] in ("great", "hold")]


def test_a_great_call_names_only_a_contract_the_caller_has_not_chosen():
    """Amended RULING §3: a great call names a suit or Grand the caller has not yet chosen."""
    t = Table({"target_points": 99})
    _plain_deal(t, "nullo")  # deal 1: bob chooses
    _plain_deal(t, "grand")  # deal 2: cy chooses grand
    _plain_deal(t, "nullo")  # deal 3: ann chooses
    t.deal()  # deal 4: bob chooses spades, cy answers first
    t.act(BOB, "contract", "spades")
    err = t.refuse(CY, "great", "grand")
    assert err.message == "you already chose grand in this match: a great call names a contract you have not chosen"
    assert err.rule.startswith("laugavatnsmanni §3 (RULING")
    assert _great_words(t, CY) == ["great hearts", "great spades"]
    t.act(CY, "great", "hearts")


def test_with_no_contract_left_a_player_cannot_call_great():
    t = Table({"target_points": 99})
    for contract in ("nullo", "grand", "nullo", "spades", "hearts", "diamonds"):  # cy: grand, then hearts
        _plain_deal(t, contract)
    t.deal()  # deal 7: bob chooses hearts; cy has chosen both hearts and grand
    t.act(BOB, "contract", "hearts")
    err = t.refuse(CY, "great", "hearts")
    assert err.message == ("you already chose hearts in this match: a great call names a contract you have not "
                           "chosen, and none is left to you: pass")
    assert "already chose grand" in t.refuse(CY, "great", "grand").message
    assert _great_words(t, CY) == []
    assert [c.text() for c in G.legal_commands(t.state, CY)] == ["pass"]
    t.act(CY, "pass")
    assert _great_words(t, ANN) == ["great grand", "great hearts"]


def test_a_hold_names_only_a_contract_the_chooser_has_not_chosen():
    """Amended RULING §3: also the contract chosen in this very deal is chosen."""
    t = Table({"target_points": 99})
    _plain_deal(t, "hearts")  # deal 1: bob chooses hearts
    _plain_deal(t, "nullo")
    _plain_deal(t, "nullo")
    t.deal()  # deal 4: bob chooses spades
    t.act(BOB, "contract", "spades")
    t.act(CY, "great", "spades")
    t.act(ANN, "pass")
    assert "already chose hearts" in t.refuse(BOB, "hold", "hearts").message
    err = t.refuse(BOB, "hold", "spades")
    assert err.message == "you already chose spades in this match: a hold names a contract you have not chosen"
    assert err.rule.startswith("laugavatnsmanni §3 (RULING")
    assert _great_words(t, BOB) == ["hold grand"]
    t.act(BOB, "hold", "grand")


def test_with_no_contract_left_the_chooser_can_only_yield():
    t = Table({"target_points": 99})
    _plain_deal(t, "grand")  # deal 1: bob chooses grand
    _plain_deal(t, "nullo")
    _plain_deal(t, "nullo")
    t.deal()  # deal 4: bob chooses hearts; cy calls great grand
    t.act(BOB, "contract", "hearts")
    t.act(CY, "great", "grand")
    t.act(ANN, "pass")
    assert t.refuse(BOB, "hold", "grand").message.endswith("and none is left to you: yield")
    assert [c.text() for c in G.legal_commands(t.state, BOB)] == ["yield"]
    t.act(BOB, "yield")


def test_hold_or_yield_while_the_second_opponent_must_still_answer():
    """Issue 15: the chooser is told who answers first, not that there is no call to answer."""
    t = dealt()
    t.act(BOB, "contract", "spades")
    t.act(CY, "great", "hearts")
    for verb, args in (("hold", ["grand"]), ("yield", [])):
        err = t.refuse(BOB, verb, *args)
        assert err.message == f"ann must first answer the great call (great or pass); then bob may {verb}"
        assert "none to answer" not in err.message and err.rule.startswith("laugavatnsmanni §3")
    assert t.refuse(ANN, "yield").message == "only the chooser, bob, may yield"
    t.act(ANN, "pass")
    t.act(BOB, "yield")


def test_hold_or_yield_before_anyone_called_great():
    t = dealt()
    t.act(BOB, "contract", "spades")
    err = t.refuse(BOB, "yield")
    assert err.message == "nobody has called great yet: cy calls great or passes first"


@pytest.mark.parametrize("verb", ["contract", "great", "hold"])
def test_an_unknown_contract_name_cites_the_contracts_section(verb):
    """Issue 15: `contract trumps` is refused by the rules with their reference, not as unreadable."""
    t = dealt()
    if verb != "contract":
        t.act(BOB, "contract", "clubs")
    if verb == "hold":
        t.act(CY, "great", "clubs")
        t.act(ANN, "pass")
    seat = {"contract": BOB, "great": CY, "hold": BOB}[verb]
    err = t.refuse(seat, verb, "Trumps")
    assert err.message == "there is no contract 'trumps' (contracts: nullo, grand, spades, hearts, diamonds, clubs)"
    assert err.rule == "laugavatnsmanni §2 (the six contracts: nullo, grand, spades, hearts, diamonds, clubs)"
