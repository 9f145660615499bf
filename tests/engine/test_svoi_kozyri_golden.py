"""Scripted Svoi Kozyri deals with explicit decks, checked event by event."""

from __future__ import annotations

import msgspec
from svoi_kozyri_helpers import ANN3, BOB3, CY3, Table, build_deck, last_card_beat_deal, seed_for_dealer

from kartludo.engine.base import PUBLIC
from kartludo.engine.french import DECK_36
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI as G
from kartludo.engine.svoi_kozyri.rules import RULING_DEALS, RULING_EMPTY_PILE, RULING_PILE_KEPT, first_dealer
from kartludo.engine.svoi_kozyri.settle import end_of_deal
from kartludo.engine.svoi_kozyri.state import Phase
from kartludo.events.match import DealStarted, RulingAppealed, RulingDecided
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded, PickedUp, Played, SixesPassed, SixPass

ANN, BOB, CY, DAN = 0, 1, 2, 3
RANKS = ["6", "7", "8", "9", "T", "J", "Q", "K", "A"]


def suit_cards(suit, ranks=RANKS):
    return [r + suit for r in ranks]


# --- 2 players: the ladder, a one-card draw, a loss, the dealers ----------------------
#
# ann owns spades, bob hearts; diamonds and clubs are nobody's trump. ann leads a
# diamond; bob beats it with a heart (his trump) and adds a club; ann beats the club
# with a spade (her trump) and adds the next diamond; and so on up the ranks.

LADDER_ANN = suit_cards("S", RANKS[1:]) + ["6H"] + suit_cards("D")  # 6H goes to bob
LADDER_BOB = suit_cards("H", RANKS[1:]) + ["6S"] + suit_cards("C")  # 6S goes to ann


def play_ladder(t, last_bob="AC"):
    """ann leads 6D, then each beats with the own trump and adds the next card up;
    bob's final extra card (``last_bob``) empties his hand. Returns its events."""
    assert t.act(ANN, "play", "6D") == [Played(seat=ANN, card="6D", role="lead")]
    for i, r in enumerate(RANKS):
        assert t.act(BOB, "play", r + "H") == [Played(seat=BOB, card=r + "H", role="beat")]
        if r == "A":
            return t.act(BOB, "play", last_bob)
        assert t.act(BOB, "play", r + "C") == [Played(seat=BOB, card=r + "C", role="extra")]
        assert t.play(ANN, r + "S", RANKS[i + 1] + "D") == [
            Played(seat=ANN, card=r + "S", role="beat"),
            Played(seat=ANN, card=RANKS[i + 1] + "D", role="extra"),
        ]
    raise AssertionError("unreachable")


def test_two_players_deal_sixes_and_a_one_card_draw():
    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=3)
    assert G.next_dealer(t.state) == BOB == first_dealer(t.created.seed, 2)
    assert G.standing(t.state) is None and G.can_deal(t.state)
    deck = build_deck(2, BOB, {ANN: LADDER_ANN, BOB: LADDER_BOB})
    # the dealer's left neighbour (ann) gets cards 1, 3, 5, … of the listed deck
    assert list(deck[0::2]) == LADDER_ANN and list(deck[1::2]) == LADDER_BOB
    events = t.deal({ANN: LADDER_ANN, BOB: LADDER_BOB})
    assert events == [
        DealStarted(deal=1, dealer=BOB, deck=list(deck)),
        SixesPassed(
            deal=1, trumps=["S", "H"],
            passes=[SixPass(card="6H", giver=ANN, receiver=BOB), SixPass(card="6S", giver=BOB, receiver=ANN)],
        ),
    ]
    # 6D and 6C are of suits nobody owns: they stay
    assert t.hand(ANN) == suit_cards("S")[::-1] + suit_cards("D")[::-1]
    assert t.hand(BOB) == suit_cards("H")[::-1] + suit_cards("C")[::-1]
    assert G.to_act(t.state) == [ANN] and t.view()["due"] == "lead"
    last = play_ladder(t)
    # bob's extra AC was his last card: only ann holds cards, her one card AS (her
    # trump) beats AC: a draw, and bob deals again
    assert last == [
        Played(seat=BOB, card="AC", role="extra"),
        DealEnded(
            deal=1, outcome="draw", last=ANN, hand=["AS"], top="AC", trump="S", beats=True, out=[BOB],
            losses={"ann": 0, "bob": 0}, next_dealer=BOB,
        ),
    ]
    assert G.describe(t.state, last[1], PUBLIC) == "deal 1 drawn: ann's last card AS beats AC; bob deals again"
    v = t.view(PUBLIC)
    assert v["phase"] == "waiting_deal" and v["losses"] == {"ann": 0, "bob": 0} and v["next_dealer"] == "bob"
    assert v["results"] == [{"deal": 1, "loser": None, "draw": True}]
    assert G.can_deal(t.state) and G.next_dealer(t.state) == BOB

    # deal 2, dealt by bob again: AS and AC swapped, so ann is left with AC under AS
    ann2 = [c if c != "AS" else "AC" for c in LADDER_ANN]
    bob2 = [c if c != "AC" else "AS" for c in LADDER_BOB]
    started = t.deal({ANN: ann2, BOB: bob2})
    assert started[0].deal == 2 and started[0].dealer == BOB
    last = play_ladder(t, last_bob="AS")
    assert last == [
        Played(seat=BOB, card="AS", role="extra"),
        DealEnded(
            deal=2, outcome="loss", last=ANN, hand=["AC"], top="AS", trump="S", beats=False, out=[BOB],
            losses={"ann": 1, "bob": 0}, next_dealer=ANN,
        ),
    ]
    assert G.describe(t.state, last[1], PUBLIC) == "deal 2: ann loses (last card AC does not beat AS) and deals next"
    assert t.view(PUBLIC)["losses"] == {"ann": 1, "bob": 0} and t.view(PUBLIC)["totals"] == {"ann": 1, "bob": 0}
    assert G.result(t.state) is None  # the match goes on (3 deals)
    standing = G.standing(t.state)
    assert standing.scores == {"ann": 1, "bob": 0} and standing.ranks == {"ann": 2, "bob": 1}
    assert standing.higher_is_better is False
    # the loser deals the next deal; bob (left of ann) leads
    assert G.next_dealer(t.state) == ANN
    started = t.deal({})
    assert started[0] == DealStarted(deal=3, dealer=ANN, deck=started[0].deck)
    assert G.to_act(t.state) == [BOB]


def test_match_ends_after_its_deals_with_fewest_losses_first():
    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=1)
    t.deal({ANN: [c if c != "AS" else "AC" for c in LADDER_ANN], BOB: [c if c != "AC" else "AS" for c in LADDER_BOB]})
    last = play_ladder(t, last_bob="AS")
    assert [type(e) for e in last] == [Played, DealEnded, MatchEnded]
    assert last[2] == MatchEnded(deals=1, losses={"ann": 1, "bob": 0}, draws=0, ranks={"ann": 2, "bob": 1})
    # the match's last deal: nobody deals next (described from the state before the event, as a replay does)
    assert G.describe(_before(t, last[1]), last[1], PUBLIC) == "deal 1: ann loses (last card AC does not beat AS)"
    assert G.is_finished(t.state) and not G.can_deal(t.state)
    r = G.result(t.state)
    assert r.scores == {"ann": 1, "bob": 0} and r.ranks == {"ann": 2, "bob": 1} and r.higher_is_better is False
    assert G.describe(t.state, last[2], PUBLIC) == "match ends after 1 deal: losses ann 1, bob 0"


def test_default_match_length_is_eight_deals_and_cited():
    t = Table(2, dealer=BOB, trumps=["S", "H"])
    assert t.state.deals == 8
    t.state = msgspec.structs.replace(t.state, completed=8, deal=8)
    assert G.automatic(t.state)[0].rulings == [RULING_DEALS]


# --- 3 players: sixes of an unowned suit, the last-card beat, skipping, a draw -----------


def test_three_players_last_card_beat_frees_the_next_player():
    t, events = last_card_beat_deal()
    # ann's 6H and 6D went to their owners; 6S is her own; 6C (clubs: nobody's) stayed
    assert events[1] == SixesPassed(
        deal=1, trumps=["S", "H", "D"],
        passes=[SixPass(card="6H", giver=ANN, receiver=BOB), SixPass(card="6D", giver=ANN, receiver=CY)],
    )
    # cy deals: ann (left of cy) gets cards 1, 4, 7, …, bob 2, 5, 8, …, cy 3, 6, 9, …
    assert events[0].deck[0::3] == ANN3 and events[0].deck[1::3] == BOB3 and events[0].deck[2::3] == CY3
    played = [e.card for e in t.events if isinstance(e, Played)]
    assert played[0] == "6C" and played.count("6C") == 1  # ann kept the unowned six and led it
    pile_before = list(t.state.pile)
    assert t.act(ANN, "play", "TS") == [Played(seat=ANN, card="TS", role="beat")]
    # ann beat with her last card: she leaves, and bob need not beat TS: he plays any
    # card onto the pile, which is not cleared (RULING)
    assert t.state.out == (ANN,) and t.state.pile == tuple(pile_before + ["TS"])
    assert G.to_act(t.state) == [BOB] and t.view()["due"] == "free"
    assert sorted(c.text() for c in G.legal_commands(t.state, BOB)) == ["play JH", "play KS", "play QS"]
    assert "RULING: the pile is not cleared" in t.refuse(BOB, "pickup").rule
    assert "left this deal" in t.refuse(ANN, "play", "TS").message
    assert t.act(BOB, "play", "QS") == [Played(seat=BOB, card="QS", role="free")]
    assert t.view()["due"] == "beat" and G.to_act(t.state) == [CY]
    t.play(CY, "JD", "AD")
    # ann has left: bob, not ann, must beat AD
    assert G.to_act(t.state) == [BOB]
    t.act(BOB, "play", "JH")
    events = t.act(BOB, "play", "KS")
    # only cy holds cards: her one card AS beats KS (same suit, higher): a draw
    assert events == [
        Played(seat=BOB, card="KS", role="extra"),
        DealEnded(
            deal=1, outcome="draw", last=CY, hand=["AS"], top="KS", trump="D", beats=True, out=[ANN, BOB],
            losses={"ann": 0, "bob": 0, "cy": 0}, next_dealer=CY, rulings=[RULING_PILE_KEPT],
        ),
    ]
    assert G.next_dealer(t.state) == CY
    assert len(t.state.pile) + sum(len(h) for h in t.state.hands) == 36


def test_three_player_hand_sizes_after_the_sixes_differ():
    t = Table(3, dealer=CY, trumps=["S", "H", "D"])
    t.deal({ANN: ANN3, BOB: BOB3, CY: CY3})
    assert [len(h) for h in t.state.hands] == [10, 13, 13]
    assert t.hand(ANN) == ["TS", "9S", "8S", "7S", "6S", "TC", "9C", "8C", "7C", "6C"]


# --- 4 players: every six passes, each beat rule, each pick-up size ------------------------

ANN4 = ["7D", "7S", "6H", "TD", "AS", "KS", "TS", "QH", "JH"]
BOB4 = ["8D", "9S", "7H", "9C", "8S", "9H", "AD", "6D", "TH"]
CY4 = ["6C", "8C", "TC", "QS", "9D", "JS", "KD", "QD", "JD"]
DAN4 = ["6S", "8H", "7C", "AC", "KC", "QC", "JC", "AH", "KH"]


def four_player_table():
    t = Table(4, dealer=DAN)
    events = t.deal({ANN: ANN4, BOB: BOB4, CY: CY4, DAN: DAN4})
    return t, events


def test_four_players_every_owned_six_goes_to_its_owner():
    t, events = four_player_table()
    assert events[1] == SixesPassed(
        deal=1, trumps=["S", "H", "D", "C"],
        passes=[
            SixPass(card="6H", giver=ANN, receiver=BOB), SixPass(card="6D", giver=BOB, receiver=CY),
            SixPass(card="6C", giver=CY, receiver=DAN), SixPass(card="6S", giver=DAN, receiver=ANN),
        ],
    )
    assert "6S" in t.hand(ANN) and "6H" in t.hand(BOB) and "6D" in t.hand(CY) and "6C" in t.hand(DAN)
    assert [len(h) for h in t.state.hands] == [9, 9, 9, 9]
    assert G.describe(t.state, events[1], PUBLIC).startswith("sixes passed to their suits' owners: 6H ann→bob")
    assert G.to_act(t.state) == [ANN]  # left of the dealer (dan)


def test_four_players_beats_and_pick_ups():
    t, _ = four_player_table()
    assert t.act(ANN, "play", "7D") == [Played(seat=ANN, card="7D", role="lead")]
    # same suit, higher
    t.refuse(BOB, "play", "9S")  # ann's trump suit is no trump for bob
    assert "do not hold 6D" in t.refuse(BOB, "play", "6D").message  # passed to cy
    assert t.act(BOB, "play", "8D") == [Played(seat=BOB, card="8D", role="beat")]
    assert t.view()["due"] == "extra" and G.to_act(t.state) == [BOB]
    t.refuse(BOB, "pickup")
    assert t.act(BOB, "play", "9S") == [Played(seat=BOB, card="9S", role="extra")]
    # own trump over another suit
    assert t.play(CY, "6D", "8C") == [Played(seat=CY, card="6D", role="beat"), Played(seat=CY, card="8C", role="extra")]
    # the top card is dan's own trump: only a higher club beats it
    assert "only a higher club" in t.refuse(DAN, "play", "7C").message
    assert "only a higher club" in t.refuse(DAN, "play", "AH").message
    legal = [c.text() for c in G.legal_commands(t.state, DAN)]
    assert legal == ["pickup", "play AC", "play JC", "play KC", "play QC"]
    assert t.view()["pickup"] == {"rule": "5", "count": 5}
    # pick-up is allowed although a beat is possible; own trump, not the ace: 5 cards
    assert t.act(DAN, "pickup") == [PickedUp(seat=DAN, top="8C", rule="5", cards=["7D", "8D", "9S", "6D", "8C"])]
    # the pile is now empty: ann leads any card
    assert t.state.pile == () and t.view()["due"] == "lead" and G.to_act(t.state) == [ANN]
    assert "nothing to pick up" in t.refuse(ANN, "pickup").message
    t.act(ANN, "play", "7S")
    t.play(BOB, "7H", "9C")
    t.play(CY, "TC", "QS")
    # not dan's trump: the top 3 cards
    assert t.act(DAN, "pickup") == [PickedUp(seat=DAN, top="QS", rule="3", cards=["9C", "TC", "QS"])]
    assert t.state.pile == ("7S", "7H") and G.to_act(t.state) == [ANN] and t.view()["due"] == "beat"
    # a short pile: 3 asked, 2 there
    assert t.act(ANN, "pickup") == [PickedUp(seat=ANN, top="7H", rule="3", cards=["7S", "7H"])]
    assert t.state.pile == () and G.to_act(t.state) == [BOB] and t.view()["due"] == "lead"
    t.act(BOB, "play", "8S")
    t.play(CY, "9D", "JS")
    t.play(DAN, "6C", "8H")
    t.play(ANN, "6S", "TD")
    t.play(BOB, "9H", "AD")
    # the ace of cy's own trump: nothing beats it, a pick-up takes the whole pile
    assert "only a higher diamond" in t.refuse(CY, "play", "KD").message
    assert [c.text() for c in G.legal_commands(t.state, CY)] == ["pickup"]
    pile = list(t.state.pile)
    assert len(pile) == 9
    events = t.act(CY, "pickup")
    assert events == [PickedUp(seat=CY, top="AD", rule="all", cards=pile)]
    assert G.describe(t.state, events[0], PUBLIC).startswith("cy picks up 9 cards (AD is the ace of their trump)")
    assert t.state.pile == () and G.to_act(t.state) == [DAN] and t.view()["due"] == "lead"
    assert [len(h) for h in t.state.hands] == [7, 2, 12, 15]  # 9-2-1+2-2, 9-7, 9-6+9, 9+5+3-2
    assert sum(len(h) for h in t.state.hands) == 36


def test_a_short_pile_under_an_own_trump_top_card():
    """Five asked (own trump, not the ace), three there."""
    t, _ = four_player_table()
    t.act(ANN, "play", "JH")  # bob's trump suit: only a higher heart beats it
    assert t.view()["pickup"] == {"rule": "5", "count": 1}
    assert t.act(BOB, "pickup") == [PickedUp(seat=BOB, top="JH", rule="5", cards=["JH"])]
    assert G.to_act(t.state) == [CY] and t.view()["due"] == "lead"


# --- the end of a deal on an empty pile (RULING) -------------------------------------------


def test_a_last_single_card_on_an_empty_pile_loses():
    """The RULING's case cannot arise in play (the last card out always lands on the
    pile); the settlement still applies it to any state that has it."""
    t, _ = four_player_table()
    s = msgspec.structs.replace(
        t.state, phase=Phase.SETTLING, pile=(), hands=((), (), ("AD",), ()), out=(ANN, BOB, DAN),
        turn=-1,
    )
    ended = end_of_deal(s)
    assert ended.outcome == "loss" and ended.last == CY and ended.beats is False and ended.top is None
    assert ended.rulings == [RULING_EMPTY_PILE] and ended.next_dealer == CY
    assert ended.losses == {"ann": 0, "bob": 0, "cy": 1, "dan": 0}


def test_appeals_fold_as_no_ops():
    t, _ = four_player_table()
    before = t.state
    t.apply([RulingAppealed(ruling_id="x", by="ann", reason="why"),
             RulingDecided(ruling_id="x", by="td", decision="overturn", reason="no")])
    assert t.state == before


def test_first_dealer_is_drawn_from_the_seed_and_recorded():
    seen = set()
    for seed in range(40):
        t = Table(3, seed=seed)
        events = t.deal({})
        assert events[0].dealer == first_dealer(seed, 3)
        seen.add(events[0].dealer)
    assert seen == {0, 1, 2}
    assert seed_for_dealer(4, 2) != seed_for_dealer(4, 1)
    assert sorted(DECK_36) == sorted(build_deck(4, 1, {}))


def test_a_last_card_beat_that_ends_the_deal_frees_nobody():
    """Issue 15: bob beats with his last card and only ann still holds cards, so the deal
    ends at once: the log must not say that the next player plays freely."""
    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=2)
    # bob gives 6S away and receives nothing: 17 cards against ann's 19
    t.deal({ANN: suit_cards("S", RANKS[1:]) + suit_cards("D") + ["AC"],
            BOB: ["6S"] + suit_cards("H") + suit_cards("C", RANKS[:-1])})
    t.act(ANN, "play", "6D")
    for i, r in enumerate(RANKS[:-1]):
        t.play(BOB, r + "H", r + "C")
        t.play(ANN, r + "S", RANKS[i + 1] + "D")
    before = t.state
    last = t.act(BOB, "play", "AH")
    assert last == [
        Played(seat=BOB, card="AH", role="beat"),
        DealEnded(deal=1, outcome="loss", last=ANN, hand=["AS", "AC"], top="AH", trump="S", beats=False,
                  out=[BOB], losses={"ann": 1, "bob": 0}, next_dealer=ANN),
    ]
    line = G.describe(before, last[0], PUBLIC)
    assert line == "bob beats AD with AH: last card, leaves the deal; only ann still holds cards"
    assert "plays freely" not in line


def test_a_last_card_beat_that_leaves_two_players_frees_the_next():
    t, _ = last_card_beat_deal()
    before = t.state
    [beat] = t.act(ANN, "play", "TS")
    assert G.describe(before, beat, PUBLIC) == (
        "ann beats KD with TS: last card, leaves the deal; the next player plays freely")


def test_a_drawn_deal_counts_as_one_of_the_matchs_deals():
    """RULING (Svoi Kozyri, added): a drawn deal is one of the match's deals."""
    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=1)
    t.deal({ANN: LADDER_ANN, BOB: LADDER_BOB})
    last = play_ladder(t)
    assert [type(e) for e in last] == [Played, DealEnded, MatchEnded]
    assert last[1].outcome == "draw"
    assert G.describe(_before(t, last[1]), last[1], PUBLIC) == "deal 1 drawn: ann's last card AS beats AC"
    assert last[2] == MatchEnded(deals=1, losses={"ann": 0, "bob": 0}, draws=1, ranks={"ann": 1, "bob": 1})
    assert G.is_finished(t.state)
    # the log says why nobody has a loss after the match's one deal
    assert G.describe(t.state, last[2], PUBLIC) == (
        "match ends after 1 deal (it was drawn: a drawn deal counts as one of the match's deals): losses ann 0, bob 0")
    ended = MatchEnded(deals=8, losses={"ann": 3, "bob": 2}, draws=3, ranks={"ann": 2, "bob": 1})
    assert G.describe(t.state, ended, PUBLIC) == ("match ends after 8 deals (3 of them drawn: a drawn deal counts as "
                                                  "one of the match's deals): losses ann 3, bob 2")


def _before(t, event):
    """The state just before ``event`` (the one a replay describes it from)."""
    state = G.start(t.created)
    for e in t.events[:t.events.index(event)]:
        state = G.evolve(state, e)
    return state


def test_a_deal_that_is_not_the_last_names_the_next_dealer_from_the_state_before():
    t = Table(2, dealer=BOB, trumps=["S", "H"], deals=2)
    t.deal({ANN: LADDER_ANN, BOB: LADDER_BOB})
    ended = play_ladder(t)[1]
    assert G.describe(_before(t, ended), ended, PUBLIC) == "deal 1 drawn: ann's last card AS beats AC; bob deals again"
