"""Uxinjo's fold: the state after ``MatchCreated`` and after each event. Never
validates: events are facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from kartludo.engine.base import put, remove
from kartludo.engine.jx import ORDER
from kartludo.engine.uxinjo.rules import add
from kartludo.engine.uxinjo.state import (
    KEPT,
    SEATS,
    AdjustRow,
    LedgerRow,
    PenaltyRow,
    Phase,
    SettleRow,
    UxState,
    adjusted_markers,
    at_finito,
    move,
    pay,
)
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, RulingAppealed, RulingDecided
from kartludo.events.uxinjo import (
    DealDrawn,
    Discarded,
    Drew,
    Exposed,
    Foul,
    LevuDeclared,
    MatchEnded,
    MuntDeclared,
    Passed,
    Settled,
    Took,
    Transfer,
)

_replace = msgspec.structs.replace

# --- evolve ----------------------------------------------------------------------


def evolve(state: UxState, event: Event) -> UxState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: UxState, e: DealStarted) -> UxState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], []]
    for i in range(15):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    return _replace(
        s,
        phase=Phase.TURN,
        deal=e.deal,
        dealer=dealer,
        hands=tuple(tuple(sorted(h, key=ORDER.__getitem__)) for h in hands),
        stock=tuple(deck[15:]),
        revealed=deck[36],
        discards=(),
        exposed=((), (), ()),
        active=dealer,
        first_turn_done=(False, False, False),
        levu=(),
        source=None,
        drawn=None,
        taken=None,
        taken_from=None,
        answers=(None, None, None),
        munts=(),
        claim=False,
        deal_fouls=(),
        exhausted=False,
    )


def _drew(s: UxState, e: Drew) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.DISCARD,
        active=seat,
        answers=(None, None, None),
        hands=put(s.hands, seat, add(s.hands[seat], e.card)),
        stock=s.stock[1:],
        source="stock",
        drawn=e.card,
        taken=None,
        taken_from=None,
    )


def _took(s: UxState, e: Took) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.DISCARD,
        active=seat,
        answers=(None, None, None),
        hands=put(s.hands, seat, add(s.hands[seat], e.card)),
        discards=s.discards[:-1],
        source="discard",
        drawn=None,
        taken=e.card,
        taken_from=(seat + 2) % SEATS,
    )


def _discarded(s: UxState, e: Discarded) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.CLAIM,
        hands=put(s.hands, seat, remove(s.hands[seat], e.card)),
        discards=s.discards + (e.card,),
        first_turn_done=put(s.first_turn_done, seat, True),
        source=None,
        drawn=None,
        taken=None,
        taken_from=None,
        answers=(None, None, None),
    )


def _levu(s: UxState, e: LevuDeclared) -> UxState:
    return _replace(s, levu=s.levu + (e.seat,))


def _exposed(s: UxState, e: Exposed) -> UxState:
    seat = e.seat
    hand = add(remove(s.hands[seat], e.card), e.replacement)
    return _replace(
        s,
        hands=put(s.hands, seat, hand),
        exposed=put(s.exposed, seat, s.exposed[seat] + (e.card,)),
        stock=s.stock[1:],
        source="stock",
        drawn=e.replacement,
        # ``taken`` stays: the card taken this turn may still not be discarded (§2.2 B)
    )


def _munt(s: UxState, e: MuntDeclared) -> UxState:
    if not e.claim:
        return _replace(s, phase=Phase.JUDGING, munts=(e.seat,), claim=False)
    answers = put(s.answers, e.seat, "munt")
    return _window_answered(s, answers, s.munts + (e.seat,))


def _passed(s: UxState, e: Passed) -> UxState:
    return _window_answered(s, put(s.answers, e.seat, "pass"), s.munts)


def _window_answered(s: UxState, answers: tuple[str | None, ...], munts: tuple[int, ...]) -> UxState:
    d = s.active
    if answers[(d + 1) % SEATS] is None or answers[(d + 2) % SEATS] is None:
        return _replace(s, answers=answers, munts=munts, claim=bool(munts))
    if munts:
        return _replace(s, phase=Phase.JUDGING, answers=answers, munts=munts, claim=True)
    if len(s.stock) <= KEPT:
        return _replace(s, phase=Phase.JUDGING, answers=answers, exhausted=True)
    return _replace(s, phase=Phase.TURN, active=(d + 1) % SEATS, answers=(None, None, None))


def _foul(s: UxState, e: Foul) -> UxState:
    seat = e.seat
    return _replace(
        s,
        penalties=put(s.penalties, seat, s.penalties[seat] + (e.ruling_id,)),
        fouls=put(s.fouls, seat, s.fouls[seat] + 1),
        deal_fouls=s.deal_fouls + (seat,),
        ledger=s.ledger.add(PenaltyRow(e.ruling_id, seat)),
    )


def _apply_moves(s: UxState, transfers: list[Transfer]) -> tuple[int, int, int]:
    markers = s.markers
    for t in transfers:
        if t.moved:
            markers = move(markers, t.payee, t.payer, t.moved)
    return markers


def _ledger_row(munts: tuple[int, ...], transfers: list[Transfer]) -> SettleRow:
    return SettleRow(munts, tuple((t.payer, t.payee, t.amount, t.reason) for t in transfers))


def _lift(penalties: tuple[tuple[str, ...], ...],
          lifted: list[str]) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...]]:
    """``penalties`` without the ``lifted`` ruling ids, and the seats they were lifted from."""
    seats = tuple(seat for seat in range(SEATS) if any(rid in penalties[seat] for rid in lifted))
    for seat in seats:
        penalties = put(penalties, seat, tuple(r for r in penalties[seat] if r not in lifted))
    return penalties, seats


def _settled(s: UxState, e: Settled) -> UxState:
    penalties = s.penalties
    if e.lifted is not None:
        penalties = put(penalties, e.winner, tuple(r for r in penalties[e.winner] if r != e.lifted))
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        markers=_apply_moves(s, e.transfers),
        penalties=penalties,
        ledger=s.ledger.add(_ledger_row((e.winner,), e.transfers)),
        active=-1,
        munts=(),
        answers=(None, None, None),
    )


def _deal_drawn(s: UxState, e: DealDrawn) -> UxState:
    """A drawn deal; valid munts in it (two on one discard) lift what it records."""
    penalties, lifters = _lift(s.penalties, e.lifted) if e.lifted else (s.penalties, ())
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        markers=_apply_moves(s, e.transfers),
        penalties=penalties,
        ledger=s.ledger.add(_ledger_row(lifters, e.transfers)),
        active=-1,
        munts=(),
        answers=(None, None, None),
        exhausted=False,
    )


def _match_ended(s: UxState, e: MatchEnded) -> UxState:
    return _replace(s, phase=Phase.FINISHED, end="finito")


def _appealed(s: UxState, e: RulingAppealed) -> UxState:
    return s if e.ruling_id in s.appealed else _replace(s, appealed=s.appealed + (e.ruling_id,))


def _decided(s: UxState, e: RulingDecided) -> UxState:
    """An overturned foul: recompute markers and penalties as if it never penalised.
    An adjusted score: the markers move by the award, within bounds (a ledger row, so a
    later overturn's recomputation keeps it). Either one that leaves a marker at finito
    between deals ends the match there, as a played settlement would; during a deal,
    the match ends when that deal is settled (``settle.automatic``)."""
    rid = e.ruling_id
    if e.decision == "adjust":
        award = tuple(e.adjustment.get(p, 0) for p in s.players)
        ledger = s.ledger.add(AdjustRow((award[0], award[1], award[2])))
        markers, penalties = recompute(ledger.rows(), frozenset(s.overturned))
        s = _replace(s, ledger=ledger, markers=markers, penalties=penalties)
        if s.phase is Phase.WAITING_DEAL and at_finito(markers):
            s = _replace(s, phase=Phase.FINISHED, end="adjust")
        return s
    if e.decision != "overturn" or rid in s.overturned:
        return s
    rows = s.ledger.rows()
    seat = next((row.seat for row in rows if type(row) is PenaltyRow and row.ruling_id == rid), None)
    if seat is None:  # not a foul: nothing to undo
        return s
    overturned = s.overturned + (rid,)
    markers, penalties = recompute(rows, frozenset(overturned))
    s = _replace(s, overturned=overturned, markers=markers, penalties=penalties,
                 fouls=put(s.fouls, seat, s.fouls[seat] - 1))
    if s.phase is Phase.WAITING_DEAL and at_finito(markers):
        s = _replace(s, phase=Phase.FINISHED, end="overturn")
    return s


def recompute(ledger: Sequence[LedgerRow],
              overturned: frozenset[str]) -> tuple[tuple[int, int, int], tuple[tuple[str, ...], ...]]:
    """Replay the ledger: transfers in order with finito capping, each voided by its
    payee's active penalties, each valid munt lifting its declarer's oldest penalty,
    each adjusted score moving the markers within bounds."""
    markers: tuple[int, int, int] = (0, 0, 0)
    active: list[tuple[str, ...]] = [(), (), ()]
    for row in ledger:
        if isinstance(row, AdjustRow):
            markers = adjusted_markers(markers, row.award)
        elif isinstance(row, PenaltyRow):
            if row.ruling_id not in overturned:
                active[row.seat] = active[row.seat] + (row.ruling_id,)
        else:
            for payer, payee, amount, _reason in row.transfers:
                if not active[payee]:
                    markers, _ = pay(markers, payer, payee, amount)
            for seat in row.munts:
                if active[seat]:
                    active[seat] = active[seat][1:]
    return markers, tuple(active)


_EVOLVE: dict[type, Callable[[UxState, Any], UxState]] = {
    DealStarted: _deal_started,
    Drew: _drew,
    Took: _took,
    Discarded: _discarded,
    LevuDeclared: _levu,
    Exposed: _exposed,
    MuntDeclared: _munt,
    Passed: _passed,
    Foul: _foul,
    Settled: _settled,
    DealDrawn: _deal_drawn,
    MatchEnded: _match_ended,
    RulingAppealed: _appealed,
    RulingDecided: _decided,
}



def start(created: MatchCreated) -> UxState:
    options = dict(created.options)
    return UxState(
        players=tuple(created.players),
        options=options,
        ruleset=created.ruleset,
        needed_base=int(options.get("needed_base", 2)),
    )
