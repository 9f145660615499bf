"""Scripted Laugavatnsmanni deals with explicit decks, checked event by event.

Most deals use ``rounds_deal``: everyone holds four cards of each suit, so every
trick is followed by all three, and with highest-first play the tricks go suit by
suit, round by round; the first seat of each round in the spec takes that trick.
"""

from __future__ import annotations

import pytest
from laugavatnsmanni_helpers import (
    ANN,
    BOB,
    CY,
    PLAYERS,
    Table,
    build_deck,
    rounds_deal,
)

from kartludo.engine.base import IllegalCommand, StartDeal
from kartludo.engine.french import DECK_52
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI as G
from kartludo.engine.laugavatnsmanni.rules import (
    RULING_52,
    RULING_BLIND,
    RULING_CHOSEN,
    RULING_GREAT,
    RULING_LEAD,
    trick_winner,
)
from kartludo.engine.laugavatnsmanni.state import CONTRACTS
from kartludo.events.laugavatnsmanni import (
    CardPlayed,
    ContractChosen,
    DealScored,
    Exchanged,
    GreatCalled,
    GreatPassed,
    Held,
    MatchEnded,
    SeatScore,
    TrickWon,
    Yielded,
)
from kartludo.events.match import DealStarted

BASE_RULINGS = [RULING_52, RULING_LEAD]


def part(seat, role, tricks, basis, target, score):
    return SeatScore(seat=seat, role=role, tricks=tricks, basis=basis, target=target, score=score)


def winners(events):
    return [e.winner for e in events if isinstance(e, TrickWon)]


def scored(events) -> DealScored:
    found = [e for e in events if isinstance(e, DealScored)]
    assert len(found) == 1
    return found[0]


# --- the deal ------------------------------------------------------------------


def test_packets_of_four_from_the_dealers_left_and_the_manni():
    t = Table()
    assert G.next_dealer(t.state) == ANN and G.can_deal(t.state)
    deck = DECK_52
    assert t.deal(deck) == [DealStarted(deal=1, dealer=ANN, deck=list(deck))]
    # cards 1-4 to bob (left of the dealer), 5-8 to cy, 9-12 to ann (the dealer), four times round
    assert t.state.hands[BOB][:4] == ("AS", "KS", "QS", "JS")
    assert "2S" in t.state.hands[BOB] and "AH" in t.state.hands[BOB]  # cards 13-16
    assert t.state.hands[CY][:4] == ("TS", "9S", "8S", "7S")
    assert t.state.hands[ANN][:4] == ("6S", "5S", "4S", "3S")
    assert all(len(h) == 16 for h in t.state.hands)
    assert t.state.manni == ("5C", "4C", "3C", "2C")  # cards 49-52, 49 on top
    v = t.view(None)
    assert v["phase"] == "contract" and v["to_act"] == ["bob"] and v["chooser"] == "bob"
    assert v["dealer"] == "ann" and v["hands"] == {} and v["manni_count"] == 4
    assert v["contract"] is None and v["declarer"] is None
    assert v["used_contracts"] == {"ann": [], "bob": [], "cy": []}
    assert v["tricks"] == {"ann": 0, "bob": 0, "cy": 0}
    assert G.legal_commands(t.state, BOB) == sorted(G.parse_command(BOB, "contract", [c]) for c in CONTRACTS)


def test_dealer_rotates_clockwise_and_the_chooser_is_left_of_the_dealer():
    t = Table({"target_points": 99})
    for deal, dealer in ((1, ANN), (2, BOB), (3, CY)):
        events = t.deal()
        assert events[0].deal == deal and events[0].dealer == dealer
        chooser = (dealer + 1) % 3
        assert G.to_act(t.state) == [chooser]
        t.act(chooser, "contract", "nullo")  # no great calls over Nullo: straight to the exchange
        assert G.phase(t.state) == "exchange" and t.state.declarer == chooser
        t.act(chooser, "exchange")
        t.play_out()
    assert t.view()["used_contracts"] == {"ann": ["nullo"], "bob": ["nullo"], "cy": ["nullo"]}
    assert G.next_dealer(t.state) == ANN and t.deal()[0].dealer == ANN and G.to_act(t.state) == [BOB]
    err = t.refuse(BOB, "contract", "nullo")
    assert "already chose nullo" in err.message and "exactly once" in err.rule


# --- each contract's scoring --------------------------------------------------------

NORMAL_SPEC = {  # bob 9, cy 4, ann 3
    "S": ["102", "120", "102", "120"],
    "H": ["102", "102", "120", "201"],
    "D": ["120", "201", "210", "012"],
    "C": ["201", "012", "021", "102"],
}


@pytest.mark.parametrize("contract, trump", [("grand", None), ("spades", "S"), ("hearts", "H"),
                                             ("diamonds", "D"), ("clubs", "C")])
def test_grand_and_suit_contracts_score_tricks_over_eight_and_four(contract, trump):
    t = Table()
    t.deal(hands=rounds_deal(NORMAL_SPEC))
    assert t.act(BOB, "contract", contract.upper()) == [ContractChosen(seat=BOB, contract=contract)]
    assert G.phase(t.state) == "great" and G.to_act(t.state) == [CY]  # the chooser's left calls first
    assert t.act(CY, "pass") == [GreatPassed(seat=CY)]
    assert G.to_act(t.state) == [ANN]
    assert t.act(ANN, "pass") == [GreatPassed(seat=ANN)]
    v = t.view(None)
    assert v["phase"] == "exchange" and v["declarer"] == "bob" and v["contract"] == contract and v["trump"] == trump
    assert t.act(BOB, "exchange") == [Exchanged(seat=BOB, discards=[], taken=[])]
    assert G.to_act(t.state) == [BOB]  # the declarer leads the first trick
    first = t.act(BOB, "play", "AS")
    assert first == [CardPlayed(seat=BOB, card="AS")]
    t.act(CY, "play", "QS")
    assert t.act(ANN, "play", "KS") == [
        CardPlayed(seat=ANN, card="KS"),
        TrickWon(deal=1, trick=1, leader=BOB, cards=["AS", "QS", "KS"], trump=trump, winner=BOB, card="AS"),
    ]
    events = t.play_out()
    assert [BOB] + winners(events) == [1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 2, 0, 2, 0, 0, 1]
    assert scored(events) == DealScored(
        deal=1, chooser=BOB, chosen=contract, contract=contract, declarer=BOB, great=False, held=False,
        exchanged=0, kind="normal",
        parts=[part(ANN, "opponent", 3, "target", 4, -1), part(BOB, "declarer", 9, "target", 8, 1),
               part(CY, "opponent", 4, "target", 4, 0)],
        totals=[-1, 1, 0], rulings=BASE_RULINGS,
    )
    v = t.view(None)
    assert v["totals"] == {"ann": -1, "bob": 1, "cy": 0} and v["phase"] == "waiting_deal"
    assert v["last_deal"] == {"deal": 1, "contract": contract, "great": False, "declarer": "bob",
                              "tricks": {"ann": 3, "bob": 9, "cy": 4}, "scores": {"ann": -1, "bob": 1, "cy": 0}}
    assert v["contract"] is None and v["used_contracts"]["bob"] == [contract]


def test_nullo_scores_tricks_under_four_and_six():
    t = Table()
    t.deal(hands=rounds_deal({
        "S": ["120", "210", "201", "210"],
        "H": ["201", "210", "201", "102"],
        "D": ["012", "021", "012", "021"],
        "C": ["012", "021", "012", "102"],
    }))
    assert t.act(BOB, "contract", "nullo") == [ContractChosen(seat=BOB, contract="nullo")]
    assert G.phase(t.state) == "exchange" and G.to_act(t.state) == [BOB]  # no great calls over Nullo
    t.act(BOB, "exchange")
    events = t.play_out()
    assert all(e.trump is None for e in events if isinstance(e, TrickWon))
    assert scored(events) == DealScored(
        deal=1, chooser=BOB, chosen="nullo", contract="nullo", declarer=BOB, great=False, held=False,
        exchanged=0, kind="nullo",
        parts=[part(ANN, "opponent", 7, "limit", 6, -1), part(BOB, "declarer", 3, "limit", 4, 1),
               part(CY, "opponent", 6, "limit", 6, 0)],
        totals=[-1, 1, 0], rulings=BASE_RULINGS,
    )


def test_trump_wins_over_the_suit_led_and_a_discard_never_wins():
    # cy is void in spades; in Hearts its heart takes the spade trick, in Grand its discard loses
    hands = {
        BOB: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "AD", "KD", "QD", "JD", "TD"],
        CY: ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "9D", "8D", "7D", "6D", "5D"],
        ANN: ["3S", "2S", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C", "2C", "4D"],
    }
    for contract, winner in (("hearts", CY), ("grand", BOB)):
        t = Table()
        t.deal(hands=hands, manni=["KH", "AH", "3D", "2D"])
        t.act(BOB, "contract", contract)
        t.act(CY, "pass")
        t.act(ANN, "pass")
        t.act(BOB, "exchange")
        t.act(BOB, "play", "AS")
        t.act(CY, "play", "2H")
        events = t.act(ANN, "play", "3S")
        assert events[-1].winner == winner and G.to_act(t.state) == [winner]
    assert trick_winner(0, ["5D", "AD", "2S"], "S") == (2, "2S")
    assert trick_winner(1, ["5D", "AD", "2S"], None) == (2, "AD")
    assert trick_winner(2, ["5D", "3S", "2S"], "S") == (0, "3S")  # leader cy, then ann


# --- great contracts ------------------------------------------------------------------


def great_spec(declarer: str, others: list[str]) -> dict[str, list[str]]:
    """``declarer`` ('2' = cy) wins every round except the rounds listed in
    ``others`` (one seat per round, from the last clubs round backwards)."""
    rounds = {s: [declarer + "01" if declarer == "2" else declarer + "02"] * 4 for s in "SHDC"}
    slots = [(s, r) for s in "CDHS" for r in (3, 2, 1, 0)]
    for (s, r), seat in zip(slots, others):
        rest = "".join(c for c in "012" if c != seat)
        rounds[s][r] = seat + rest
    return rounds


@pytest.mark.parametrize(
    "others, tricks, kind, basis, scores",
    [
        (["1", "1"], [0, 2, 14], "great", "target", [-1, 1, 0]),
        (["1"], [0, 1, 15], "great-15", "fixed", [-2, -2, 4]),
        ([], [0, 0, 16], "great-16", "fixed", [-4, -4, 8]),
    ],
)
def test_a_steal_great_contract_with_14_15_and_16_tricks(others, tricks, kind, basis, scores):
    t = Table()
    t.deal(hands=rounds_deal(great_spec("2", others)))
    t.act(BOB, "contract", "spades")
    assert t.act(CY, "great", "hearts") == [GreatCalled(seat=CY, contract="hearts")]
    assert G.to_act(t.state) == [ANN]
    assert t.view(None)["great_call"]["calls"] == [{"player": "cy", "contract": "hearts"}]
    assert t.act(ANN, "pass") == [GreatPassed(seat=ANN)]
    assert G.phase(t.state) == "hold" and G.to_act(t.state) == [BOB]
    assert sorted(c.text() for c in G.legal_commands(t.state, BOB)) == ["hold grand", "hold hearts", "yield"]
    assert t.act(BOB, "yield") == [Yielded(seat=BOB)]
    v = t.view(None)
    assert v["declarer"] == "cy" and v["contract"] == "hearts" and v["chosen_contract"] == "spades"
    assert v["great_call"]["great"] and v["great_call"]["used"] == {"ann": False, "bob": False, "cy": True}
    assert G.to_act(t.state) == [CY]
    t.act(CY, "exchange")
    events = t.play_out()
    assert scored(events) == DealScored(
        deal=1, chooser=BOB, chosen="spades", contract="hearts", declarer=CY, great=True, held=False,
        exchanged=0, kind=kind,
        parts=[part(ANN, "opponent", tricks[0], basis, 1, scores[0]),
               part(BOB, "opponent", tricks[1], basis, 1, scores[1]),
               part(CY, "declarer", tricks[2], basis, 14, scores[2])],
        totals=scores, rulings=BASE_RULINGS + [RULING_GREAT, RULING_CHOSEN],
    )
    # the chooser's spades are used even though cy played great hearts; a great call uses no contract
    assert t.view()["used_contracts"] == {"ann": [], "bob": ["spades"], "cy": []}


def test_a_hold_over_two_great_calls():
    t = Table()
    t.deal(hands=rounds_deal(great_spec("1", ["0", "2"])))
    t.act(BOB, "contract", "diamonds")
    t.refuse(CY, "great", "clubs")  # below the chosen diamonds
    assert t.act(CY, "great", "spades") == [GreatCalled(seat=CY, contract="spades")]
    err = t.refuse(ANN, "great", "spades")  # a later caller names a strictly higher contract
    assert "higher" in err.message and "Grand > Hearts > Spades" in err.rule
    assert t.act(ANN, "great", "grand") == [GreatCalled(seat=ANN, contract="grand")]
    assert G.to_act(t.state) == [BOB]
    t.refuse(BOB, "hold", "hearts")  # below the great grand
    assert t.act(BOB, "hold", "grand") == [Held(seat=BOB, contract="grand")]
    v = t.view(None)
    assert v["declarer"] == "bob" and v["contract"] == "grand" and v["trump"] is None
    assert v["great_call"] == {
        "calls": [{"player": "cy", "contract": "spades"}, {"player": "ann", "contract": "grand"}],
        "held": True, "great": True, "used": {"ann": True, "bob": True, "cy": True},
    }
    t.act(BOB, "exchange")
    events = t.play_out()
    assert scored(events) == DealScored(
        deal=1, chooser=BOB, chosen="diamonds", contract="grand", declarer=BOB, great=True, held=True,
        exchanged=0, kind="great",
        parts=[part(ANN, "opponent", 1, "target", 1, 0), part(BOB, "declarer", 14, "target", 14, 0),
               part(CY, "opponent", 1, "target", 1, 0)],
        totals=[0, 0, 0], rulings=BASE_RULINGS + [RULING_GREAT, RULING_CHOSEN],
    )


def test_a_second_great_call_is_refused_in_a_later_deal():
    t = Table({"target_points": 99})
    t.deal()
    t.act(BOB, "contract", "clubs")
    t.act(CY, "great", "clubs")  # the first caller may keep the chooser's contract
    t.act(ANN, "pass")
    t.act(BOB, "yield")
    assert t.state.declarer == CY and t.state.contract == "clubs" and t.state.great
    t.act(CY, "exchange")
    t.play_out()
    # deal 2: cy chooses; bob calls great; cy, whose great call is used, cannot hold
    t.deal()
    t.act(CY, "contract", "hearts")
    t.act(ANN, "pass")
    t.act(BOB, "great", "grand")
    err = t.refuse(CY, "hold", "grand")
    assert "already made your great call" in err.message and "one great call per player per match" in err.rule
    assert [c.text() for c in G.legal_commands(t.state, CY)] == ["yield"]
    t.act(CY, "yield")
    t.act(BOB, "exchange")
    t.play_out()
    # deal 3: ann chooses; bob and cy have both used their great call
    t.deal()
    t.act(ANN, "contract", "spades")
    err = t.refuse(BOB, "great", "grand")
    assert "already made your great call" in err.message and "one great call" in err.rule
    assert [c.text() for c in G.legal_commands(t.state, BOB)] == ["pass"]
    t.act(BOB, "pass")
    t.refuse(CY, "great", "hearts")
    t.act(CY, "pass")
    assert t.state.declarer == ANN and not t.state.great


# --- the Manni exchange -----------------------------------------------------------------


def test_blind_manni_exchange_replaces_discards_with_the_top_cards():
    spec = dict(NORMAL_SPEC)
    spec["S"] = ["102", "120", "102", "012"]  # round 4: ann 5S, bob 4S, cy 3S
    spec["H"] = ["102", "102", "120", "102"]  # round 4: bob 5H wins, ann 4H, cy 3H
    t = Table()
    t.deal(hands=rounds_deal(spec))
    t.act(BOB, "contract", "spades")
    t.act(CY, "pass")
    t.act(ANN, "pass")
    assert "2S" not in t.state.hands[BOB] and t.state.manni == ("2S", "2H", "2D", "2C")
    err = t.refuse(CY, "exchange", "3S")
    assert "only the declarer" in err.message
    events = t.act(BOB, "exchange", "5h", "4S")
    assert events == [Exchanged(seat=BOB, discards=["4S", "5H"], taken=["2S", "2H"])]
    assert "2S" in t.state.hands[BOB] and "2H" in t.state.hands[BOB] and "5H" not in t.state.hands[BOB]
    assert len(t.state.hands[BOB]) == 16 and t.state.manni == ("2D", "2C")
    # hidden: the discards and the cards taken, from everyone but the declarer
    for viewer in (ANN, CY, None):
        r = G.redact(t.state, events[0], viewer)
        assert r.discards == ["??", "??"] and r.taken == ["??", "??"]
        v = G.view(t.state, viewer)
        assert "discards" not in v and "manni" not in v and "bob" not in v["hands"]
        assert v["exchanged"] == 2 and v["manni_count"] == 2
        assert G.describe(t.state, events[0], viewer) == "bob exchanges 2 cards with the Manni"
    assert G.redact(t.state, events[0], BOB) == events[0]
    assert G.view(t.state, BOB)["discards"] == ["4S", "5H"]
    assert G.describe(t.state, events[0], BOB).endswith("discards 4S 5H, takes 2S 2H")
    events = t.play_out()
    # bob's 2H now loses the last hearts round, which his 5H would have won: ann takes it
    assert winners(events) == [1, 1, 1, 0, 1, 1, 1, 0, 1, 2, 2, 0, 2, 0, 0, 1]
    s = scored(events)
    assert s.exchanged == 2 and s.rulings == BASE_RULINGS + [RULING_BLIND]
    assert [p.tricks for p in s.parts] == [5, 8, 3] and s.totals == [1, 0, -1]


def test_the_declarer_may_keep_the_hand():
    t = Table()
    t.deal()
    t.act(BOB, "contract", "nullo")
    hand = t.state.hands[BOB]
    assert t.act(BOB, "exchange") == [Exchanged(seat=BOB, discards=[], taken=[])]
    assert t.state.hands[BOB] == hand and len(t.state.manni) == 4 and t.state.exchanged == 0


# --- the match end ----------------------------------------------------------------------------


def test_match_ends_after_the_deal_reaching_ten_points():
    t = Table()
    t.deal(hands=rounds_deal(great_spec("2", [])))
    t.act(BOB, "contract", "grand")
    t.act(CY, "great", "grand")
    t.refuse(ANN, "great", "grand")  # nothing ranks above Grand
    t.act(ANN, "pass")
    t.act(BOB, "yield")
    t.act(CY, "exchange")
    assert scored(t.play_out()).totals == [-4, -4, 8]
    assert not G.is_finished(t.state) and G.can_deal(t.state) and G.next_dealer(t.state) == BOB
    # deal 2: cy chooses spades and takes 10 tricks: +2, reaching 10
    t.deal(hands=rounds_deal({
        "S": ["201", "201", "201", "201"],
        "H": ["201", "201", "201", "201"],
        "D": ["201", "201", "102", "102"],
        "C": ["012", "012", "012", "102"],
    }))
    assert G.to_act(t.state) == [CY]
    t.act(CY, "contract", "spades")
    t.act(ANN, "pass")
    t.act(BOB, "pass")
    t.act(CY, "exchange")
    events = t.play_out()
    assert events[-2].totals == [-5, -5, 10]
    assert events[-1] == MatchEnded(deal=2, reason="target", totals={"ann": -5, "bob": -5, "cy": 10},
                                    ranks={"ann": 2, "bob": 2, "cy": 1})
    assert G.is_finished(t.state) and not G.can_deal(t.state)
    result = G.result(t.state)
    assert result.scores == {"ann": -5, "bob": -5, "cy": 10} and result.ranks == {"ann": 2, "bob": 2, "cy": 1}
    assert result.higher_is_better
    err = t.refuse(ANN, "contract", "nullo")
    assert "match is over" in err.message
    with pytest.raises(IllegalCommand, match="match is over"):
        G.decide(t.state, StartDeal(deck=DECK_52))
    assert t.view(None)["status"] == "finished" and t.view(None)["end"] == "target"


def test_match_ends_after_eighteen_deals_with_every_contract_chosen_once():
    t = Table({"target_points": 1000})
    for deal in range(1, 19):
        assert G.can_deal(t.state) and not G.is_finished(t.state)
        t.deal(build_deck(G.next_dealer(t.state)))
        chooser = G.to_act(t.state)[0]
        assert chooser == deal % 3
        contract = G.legal_commands(t.state, chooser)[0]
        t.command(contract)
        while G.phase(t.state) == "great":
            t.act(G.to_act(t.state)[0], "pass")
        t.act(t.state.declarer, "exchange")
        t.play_out()
    assert G.is_finished(t.state)
    assert t.events[-1] == MatchEnded(deal=18, reason="deals", totals=t.view()["totals"],
                                      ranks=G.result(t.state).ranks)
    assert sum(isinstance(e, DealScored) for e in t.events) == 18
    assert {p: sorted(u) for p, u in t.view()["used_contracts"].items()} == {p: sorted(CONTRACTS) for p in PLAYERS}
    assert t.view(None)["end"] == "deals"


def test_match_deal_limit_option():
    t = Table({"max_deals": 1, "target_points": 1000})
    t.deal()
    t.act(BOB, "contract", "grand")
    t.act(CY, "pass")
    t.act(ANN, "pass")
    t.act(BOB, "exchange")
    events = t.play_out()
    assert isinstance(events[-1], MatchEnded) and events[-1].reason == "deals" and G.is_finished(t.state)
