"""Laugavatnsmanni's fold: the state after ``MatchCreated`` and after each event.
Never validates: events are facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kartludo.engine.base import put
from kartludo.engine.french import sort_cards
from kartludo.engine.laugavatnsmanni.rules import without
from kartludo.engine.laugavatnsmanni.state import HAND, MANNI, SEATS, TRICKS, LvState, Phase
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import (
    CardPlayed,
    ContractChosen,
    DealScored,
    Exchanged,
    GreatCalled,
    GreatPassed,
    Held,
    MatchEnded,
    TrickWon,
    Yielded,
)
from kartludo.events.match import DealStarted, MatchCreated, RulingDecided

_replace = msgspec.structs.replace



def evolve(state: LvState, event: Event) -> LvState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: LvState, e: DealStarted) -> LvState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], []]
    for i in range(HAND * SEATS):
        hands[(dealer + 1 + i // 4) % SEATS].append(deck[i])
    chooser = (dealer + 1) % SEATS
    return _replace(
        s,
        phase=Phase.CONTRACT,
        deal=e.deal,
        dealer=dealer,
        chooser=chooser,
        turn=chooser,
        hands=tuple(sort_cards(h) for h in hands),
        manni=tuple(deck[HAND * SEATS : HAND * SEATS + MANNI]),
        discards=(),
        exchanged=None,
        chosen=None,
        contract=None,
        great_calls=(),
        great=False,
        held=False,
        declarer=None,
        leader=-1,
        trick=(),
        won=((), (), ()),
        tricks_played=0,
        last_trick=None,
        scores=None,
    )


def _contract_chosen(s: LvState, e: ContractChosen) -> LvState:
    seat = e.seat
    used = put(s.used, seat, s.used[seat] + (e.contract,))
    if e.contract == "nullo":
        return _replace(s, used=used, chosen=e.contract, contract=e.contract, phase=Phase.EXCHANGE,
                        declarer=seat, turn=seat)
    return _replace(s, used=used, chosen=e.contract, contract=e.contract, phase=Phase.GREAT,
                    turn=(seat + 1) % SEATS)


def _great_answered(s: LvState, seat: int) -> LvState:
    if seat == (s.chooser + 1) % SEATS:
        return _replace(s, turn=(seat + 1) % SEATS)
    if s.great_calls:
        return _replace(s, phase=Phase.HOLD, turn=s.chooser)
    return _replace(s, phase=Phase.EXCHANGE, declarer=s.chooser, turn=s.chooser)


def _great_called(s: LvState, e: GreatCalled) -> LvState:
    s = _replace(s, great_used=put(s.great_used, e.seat, True), great_calls=s.great_calls + ((e.seat, e.contract),))
    return _great_answered(s, e.seat)


def _great_passed(s: LvState, e: GreatPassed) -> LvState:
    return _great_answered(s, e.seat)


def _held(s: LvState, e: Held) -> LvState:
    return _replace(
        s,
        great_used=put(s.great_used, e.seat, True),
        contract=e.contract,
        great=True,
        held=True,
        declarer=e.seat,
        phase=Phase.EXCHANGE,
        turn=e.seat,
    )


def _yielded(s: LvState, e: Yielded) -> LvState:
    seat, contract = s.great_calls[-1]
    return _replace(s, contract=contract, great=True, declarer=seat, phase=Phase.EXCHANGE, turn=seat)


def _exchanged(s: LvState, e: Exchanged) -> LvState:
    seat = e.seat
    k = len(e.discards)
    hand = sort_cards(without(s.hands[seat], e.discards) + tuple(e.taken))
    return _replace(
        s,
        hands=put(s.hands, seat, hand),
        manni=s.manni[k:],
        discards=tuple(e.discards),
        exchanged=k,
        phase=Phase.PLAY,
        leader=seat,
        turn=seat,
    )


def _card_played(s: LvState, e: CardPlayed) -> LvState:
    seat = e.seat
    hand = s.hands[seat]
    i = hand.index(e.card)
    trick = s.trick + (e.card,)
    return _replace(
        s,
        hands=put(s.hands, seat, hand[:i] + hand[i + 1 :]),
        trick=trick,
        turn=-1 if len(trick) == SEATS else (seat + 1) % SEATS,
    )


def _trick_won(s: LvState, e: TrickWon) -> LvState:
    w = e.winner
    played = s.tricks_played + 1
    done = played == TRICKS
    return _replace(
        s,
        won=put(s.won, w, s.won[w] + s.trick),
        last_trick=(e.leader, w, s.trick),
        trick=(),
        tricks_played=played,
        leader=w,
        turn=-1 if done else w,
        phase=Phase.SCORING if done else Phase.PLAY,
    )


def _deal_scored(s: LvState, e: DealScored) -> LvState:
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        turn=-1,
        totals=tuple(e.totals),
        scores=tuple(p.score for p in sorted(e.parts, key=lambda p: p.seat)),
    )


def _match_ended(s: LvState, e: MatchEnded) -> LvState:
    return _replace(s, phase=Phase.FINISHED, turn=-1, end=e.reason)


def _decided(s: LvState, e: RulingDecided) -> LvState:
    """A TD's adjusted score: each player's totals move by the adjustment (an uphold
    or overturn changes nothing here: the game makes no penalty rulings)."""
    if e.decision != "adjust":
        return s
    return _replace(s, totals=tuple(v + e.adjustment.get(p, 0) for p, v in zip(s.players, s.totals)))


#: RulingAppealed folds as a no-op, RulingDecided only for an adjusted score: Laugavatnsmanni has no penalty rulings.
_EVOLVE: dict[type, Callable[[LvState, Any], LvState]] = {
    DealStarted: _deal_started,
    ContractChosen: _contract_chosen,
    GreatCalled: _great_called,
    GreatPassed: _great_passed,
    Held: _held,
    Yielded: _yielded,
    Exchanged: _exchanged,
    CardPlayed: _card_played,
    TrickWon: _trick_won,
    DealScored: _deal_scored,
    MatchEnded: _match_ended,
    RulingDecided: _decided,
}



def start(created: MatchCreated) -> LvState:
    options = dict(created.options)
    return LvState(
        players=tuple(created.players),
        options=options,
        ruleset=created.ruleset,
        target_points=int(options.get("target_points", 10)),
        max_deals=int(options.get("max_deals", 18)),
    )

