"""Svoi Kozyri's fold: the state after ``MatchCreated`` and after each event. Never
validates: events are facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kartludo.engine.base import put, remove
from kartludo.engine.french import sort_cards
from kartludo.engine.svoi_kozyri.cards import DEFAULT_TRUMPS
from kartludo.engine.svoi_kozyri.rules import DEFAULT_DEALS, first_dealer
from kartludo.engine.svoi_kozyri.state import Phase, SkState
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, RulingDecided
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded, PickedUp, Played, SixesPassed

_replace = msgspec.structs.replace

def start(created: MatchCreated) -> SkState:
    options = dict(created.options)
    players = tuple(created.players)
    n = len(players)
    given = list(options.get("trumps", DEFAULT_TRUMPS))
    problem = None
    if len(given) < n:
        problem = (
            f"the match's trumps option names {len(given)} suit{'s' if len(given) != 1 else ''} "
            f"for {n} players: each player needs a trump suit"
        )
        given += ["?"] * (n - len(given))
    return SkState(
        players=players,
        options=options,
        ruleset=created.ruleset,
        trumps=tuple(given[:n]),
        deals=int(options.get("deals", DEFAULT_DEALS)),
        problem=problem,
        upcoming_dealer=first_dealer(created.seed if created.seed is not None else created.lot, n),
        hands=((),) * n,
        losses=(0,) * n,
    )





def evolve(state: SkState, event: Event) -> SkState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: SkState, e: DealStarted) -> SkState:
    n = s.n
    dealer = e.dealer
    hands: list[list[str]] = [[] for _ in range(n)]
    for i, card in enumerate(e.deck):
        hands[(dealer + 1 + i) % n].append(card)
    return _replace(
        s,
        phase=Phase.PASSING,
        deal=e.deal,
        dealer=dealer,
        upcoming_dealer=dealer,
        hands=tuple(sort_cards(h) for h in hands),
        pile=(),
        turn=-1,
        out=(),
        last_card_beats=0,
    )


def _sixes_passed(s: SkState, e: SixesPassed) -> SkState:
    hands = [list(h) for h in s.hands]
    for p in e.passes:
        hands[p.giver].remove(p.card)
        hands[p.receiver].append(p.card)
    return _replace(
        s,
        phase=Phase.LEAD,
        hands=tuple(sort_cards(h) for h in hands),
        turn=(s.dealer + 1) % s.n,
    )


def _played(s: SkState, e: Played) -> SkState:
    seat = e.seat
    hand = remove(s.hands[seat], e.card)
    hands = put(s.hands, seat, hand)
    out = s.out
    if not hand:
        out = out + (seat,)
    s = _replace(s, hands=hands, pile=s.pile + (e.card,), out=out)
    if e.role == "beat" and hand:
        return _replace(s, phase=Phase.EXTRA, turn=seat)
    if sum(1 for h in hands if h) <= 1:
        return _replace(s, phase=Phase.SETTLING, turn=-1)
    if e.role == "beat":  # beat with the last card: the next player plays freely
        return _replace(s, phase=Phase.FREE, turn=s.next_in(seat), last_card_beats=s.last_card_beats + 1)
    return _replace(s, phase=Phase.BEAT, turn=s.next_in(seat))


def _picked_up(s: SkState, e: PickedUp) -> SkState:
    seat = e.seat
    pile = s.pile[: len(s.pile) - len(e.cards)]
    s = _replace(s, hands=put(s.hands, seat, sort_cards(s.hands[seat] + tuple(e.cards))), pile=pile)
    return _replace(s, phase=Phase.BEAT if pile else Phase.LEAD, turn=s.next_in(seat))


def _deal_ended(s: SkState, e: DealEnded) -> SkState:
    losses = s.losses
    if e.outcome == "loss":
        losses = put(losses, e.last, losses[e.last] + 1)
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        completed=s.completed + 1,
        losses=losses,
        results=s.results + (e.last if e.outcome == "loss" else -1,),
        upcoming_dealer=e.next_dealer,
        turn=-1,
    )


def _match_ended(s: SkState, e: MatchEnded) -> SkState:
    return _replace(s, phase=Phase.FINISHED)


def _decided(s: SkState, e: RulingDecided) -> SkState:
    """A TD's adjusted score: each player's losses move by the adjustment (an uphold
    or overturn changes nothing here: the game makes no penalty rulings)."""
    if e.decision != "adjust":
        return s
    return _replace(s, losses=tuple(v + e.adjustment.get(p, 0) for p, v in zip(s.players, s.losses)))


#: RulingAppealed folds as a no-op, RulingDecided only for an adjusted score: Svoi Kozyri has no penalty rulings.
_EVOLVE: dict[type, Callable[[SkState, Any], SkState]] = {
    DealStarted: _deal_started,
    SixesPassed: _sixes_passed,
    Played: _played,
    PickedUp: _picked_up,
    DealEnded: _deal_ended,
    MatchEnded: _match_ended,
    RulingDecided: _decided,
}


