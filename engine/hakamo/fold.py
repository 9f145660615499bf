"""Hakamo's fold: the state after ``MatchCreated`` and after each event. Never
validates: events are facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kartludo.engine.base import put, remove
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.rules import next_in, sort
from kartludo.engine.hakamo.state import HAND, SEATS, HkState, Phase
from kartludo.events import hakamo as ev
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, RulingDecided

_replace = msgspec.structs.replace



def evolve(state: HkState, event: Event) -> HkState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: HkState, e: DealStarted) -> HkState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], [], []]
    for i in range(SEATS * HAND):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    return _replace(
        s,
        phase=Phase.AUCTION,
        deal=e.deal,
        dealer=dealer,
        redeal=False,
        hands=tuple(sort(h) for h in hands),
        kasxetoj=(deck[36], deck[37]),
        upper_up=False,
        lower_up=False,
        kept=None,
        copy=None,
        trump_mode=hc.TRUMP_NONE,
        trump=None,
        inversa="",
        turn=dealer,
        bids=(),
        high=0,
        high_seat=-1,
        passed=(False,) * SEATS,
        deklaristo=-1,
        contract=0,
        share_bids=(),
        share_low=0,
        share_seat=-1,
        share_passed=(False,) * SEATS,
        kunulo=-1,
        share=0,
        solo=False,
        resigned=False,
        declared=False,
        target=None,
        tricks=0,
        leader=-1,
        trick=(),
        taken=((), (), (), ()),
        cancelled=(),
        matistos=(),
        mati_cards=(),
        end=None,
        last_trick=None,
    )


def _won_auction(s: HkState, seat: int, amount: int, **kw: Any) -> HkState:
    return _replace(s, phase=Phase.KASXETOJ, deklaristo=seat, contract=amount, turn=seat, **kw)


def _bid(s: HkState, e: ev.Bid) -> HkState:
    seat = e.seat
    bids = s.bids + ((seat, e.amount),)
    if all(s.passed[o] for o in range(SEATS) if o != seat):
        return _won_auction(s, seat, e.amount, bids=bids, high=e.amount, high_seat=seat)
    return _replace(s, bids=bids, high=e.amount, high_seat=seat, turn=next_in(s.passed, seat))


def _passed(s: HkState, e: ev.Passed) -> HkState:
    seat = e.seat
    passed = put(s.passed, seat, True)
    bids = s.bids + ((seat, -1),)
    left = [o for o in range(SEATS) if not passed[o]]
    if not left:
        return _replace(s, phase=Phase.PASSED_OUT, passed=passed, bids=bids, turn=-1)
    if left == [s.high_seat]:
        return _won_auction(s, s.high_seat, s.high, passed=passed, bids=bids)
    return _replace(s, passed=passed, bids=bids, turn=next_in(passed, seat))


def _passed_out(s: HkState, e: ev.PassedOut) -> HkState:
    return _replace(s, phase=Phase.WAITING_DEAL, redeal=True, turn=-1)


def _kept(s: HkState, e: ev.KasxetojKept) -> HkState:
    return _replace(
        s, phase=Phase.KUNULO, kept=True, upper_up=False, lower_up=False, copy=None,
        trump_mode=hc.TRUMP_NONE, trump=None, inversa="",
    )


def _taken(s: HkState, e: ev.KasxetojTaken) -> HkState:
    seat = e.seat
    return _replace(
        s, phase=Phase.LAY, kept=False, kasxetoj=(), hands=put(s.hands, seat, sort(s.hands[seat] + tuple(e.cards)))
    )


def _laid(s: HkState, e: ev.KasxetojLaid) -> HkState:
    seat = e.seat
    hand = remove(remove(s.hands[seat], e.upper), e.lower)
    mode, trump = hc.trump_of(e.upper, e.upper_up)
    return _replace(
        s,
        phase=Phase.KUNULO,
        hands=put(s.hands, seat, hand),
        kasxetoj=(e.upper, e.lower),
        upper_up=e.upper_up,
        lower_up=e.lower_up,
        copy=hc.copy_of(e.upper, e.upper_up, e.lower, e.lower_up),
        trump_mode=mode,
        trump=trump,
        inversa=hc.inversa_of(e.lower, e.lower_up),
    )


def _to_declaration(s: HkState, **kw: Any) -> HkState:
    return _replace(s, phase=Phase.DECLARATION, turn=s.deklaristo, **kw)


def _solo(s: HkState, e: ev.Solo) -> HkState:
    return _to_declaration(s, solo=True, kunulo=-1, share=0)


def _recruited(s: HkState, e: ev.Recruited) -> HkState:
    d = s.deklaristo
    return _replace(
        s, phase=Phase.SHARES, turn=(d + 1) % SEATS, share_passed=tuple(o == d for o in range(SEATS)),
        share_bids=(), share_low=0, share_seat=-1,
    )


def _share_bid(s: HkState, e: ev.ShareBid) -> HkState:
    seat = e.seat
    bids = s.share_bids + ((seat, e.share),)
    if all(s.share_passed[o] for o in range(SEATS) if o != seat):
        return _to_declaration(s, share_bids=bids, share_low=e.share, share_seat=seat, kunulo=seat, share=e.share)
    return _replace(s, share_bids=bids, share_low=e.share, share_seat=seat, turn=next_in(s.share_passed, seat))


def _share_passed(s: HkState, e: ev.SharePassed) -> HkState:
    seat = e.seat
    passed = put(s.share_passed, seat, True)
    bids = s.share_bids + ((seat, -1),)
    left = [o for o in range(SEATS) if not passed[o]]
    if not left:
        return _replace(s, phase=Phase.NO_KUNULO, share_passed=passed, share_bids=bids, turn=s.deklaristo)
    if left == [s.share_seat]:
        return _to_declaration(s, share_passed=passed, share_bids=bids, kunulo=s.share_seat, share=s.share_low)
    return _replace(s, share_passed=passed, share_bids=bids, turn=next_in(passed, seat))


def _resigned(s: HkState, e: ev.Resigned) -> HkState:
    return _replace(s, phase=Phase.SCORING, resigned=True, end="resigned", turn=-1)


def _declared(s: HkState, e: ev.Declared) -> HkState:
    d = s.deklaristo
    return _replace(s, phase=Phase.TRICKS, declared=True, target=e.target, leader=d, turn=d, trick=())


def _next_to_play(s: HkState, after: int, trick: tuple[tuple[int, str], ...], matistos: tuple[int, ...]) -> int:
    played = {seat for seat, _ in trick}
    for k in range(1, SEATS):
        o = (after + k) % SEATS
        if o not in matistos and o not in played:
            return o
    return -1


def _played(s: HkState, e: ev.Played) -> HkState:
    seat = e.seat
    trick = s.trick + ((seat, e.card),)
    return _replace(
        s,
        hands=put(s.hands, seat, remove(s.hands[seat], e.card)),
        trick=trick,
        turn=_next_to_play(s, seat, trick, s.matistos),
    )


def _matatis(s: HkState, e: ev.Matatis) -> HkState:
    seat = e.seat
    matistos = s.matistos + (seat,)
    base = _replace(s, hands=put(s.hands, seat, ()), mati_cards=s.mati_cards + tuple(e.hand), matistos=matistos)
    if e.lead:
        return _replace(base, phase=Phase.SCORING, end="lead-matatis", turn=-1)
    return _replace(base, turn=_next_to_play(s, seat, s.trick, matistos))


def _trick_ended(s: HkState, e: ev.TrickEnded) -> HkState:
    taken = s.taken
    if e.winner is not None:
        taken = put(taken, e.winner, s.taken[e.winner] + tuple(e.taken))
    cancelled = s.cancelled + tuple(p.card for p in e.plays if p.cancelled)
    tricks = s.tricks + 1
    base = _replace(s, taken=taken, cancelled=cancelled, tricks=tricks, trick=(), last_trick=e)
    if e.stops or e.winner is None or tricks >= HAND:
        end = "all-cancelled" if e.winner is None else "nine-tricks"
        return _replace(base, phase=Phase.SCORING, end=end, turn=-1, leader=-1)
    return _replace(base, leader=e.winner, turn=e.winner)


def _scored(s: HkState, e: ev.DealScored) -> HkState:
    points = [0] * SEATS
    for a in e.awards:
        points[a.seat] += a.points
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        totals=tuple(t + p for t, p in zip(s.totals, points)),
        history=s.history + (tuple(points),),
        counted=s.counted + 1,
        turn=-1,
        redeal=False,
    )


def _match_ended(s: HkState, e: ev.MatchEnded) -> HkState:
    return _replace(s, phase=Phase.FINISHED)


def _decided(s: HkState, e: RulingDecided) -> HkState:
    """A TD's adjusted score: each player's totals move by the adjustment (an uphold
    or overturn changes nothing here: the game makes no penalty rulings)."""
    if e.decision != "adjust":
        return s
    return _replace(s, totals=tuple(v + e.adjustment.get(p, 0) for p, v in zip(s.players, s.totals)))


#: RulingAppealed folds as a no-op, RulingDecided only for an adjusted score: Hakamo has no penalty rulings.
_EVOLVE: dict[type, Callable[[HkState, Any], HkState]] = {
    DealStarted: _deal_started,
    ev.Bid: _bid,
    ev.Passed: _passed,
    ev.PassedOut: _passed_out,
    ev.KasxetojKept: _kept,
    ev.KasxetojTaken: _taken,
    ev.KasxetojLaid: _laid,
    ev.Solo: _solo,
    ev.Recruited: _recruited,
    ev.ShareBid: _share_bid,
    ev.SharePassed: _share_passed,
    ev.Resigned: _resigned,
    ev.Declared: _declared,
    ev.Played: _played,
    ev.Matatis: _matatis,
    ev.TrickEnded: _trick_ended,
    ev.DealScored: _scored,
    ev.MatchEnded: _match_ended,
    RulingDecided: _decided,
}



def start(created: MatchCreated) -> HkState:
    return HkState(players=tuple(created.players), options=dict(created.options), ruleset=created.ruleset)

