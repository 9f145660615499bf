"""Uxinjo's automatic decisions: judging munts and claims (fouls, settlements, drawn
deals), the transfers they make, the match's end, and what the audit trail reads
from them (decisions without a penalty, penalties lifted or voided)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kartludo.engine.base import Decision, PenaltyChanges
from kartludo.engine.jx import AJX
from kartludo.engine.uxinjo.hand import HandScore, best_split
from kartludo.engine.uxinjo.rules import (
    R_FOUL,
    R_FOUL_CLAIM,
    RULING_ALL_LEVU,
    RULING_FINITO,
    RULING_LIFT,
    RULING_NEEDED,
    RULING_VOID_CLAIM,
    RULING_WILDS,
    add,
    label,
    who,
)
from kartludo.engine.uxinjo.state import SEATS, Phase, UxState, at_finito, marker, match_points, pay
from kartludo.events.base import Event
from kartludo.events.match import RulingDecided
from kartludo.events.uxinjo import DealDrawn, Foul, MatchEnded, Settled, Transfer


def automatic(s: UxState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.JUDGING:
        if s.exhausted:
            return [_drawn(s, "stock")]
        if s.claim:
            return [_judge_claims(s)]
        return [_judge_own(s)]
    if phase is Phase.WAITING_DEAL and s.deal and at_finito(s.markers):
        return [_match_end(s)]
    return []


def _judge_own(s: UxState) -> Event:
    seat = s.munts[0]
    if seat in s.deal_fouls:
        return _drawn(s, "foul")
    six = s.hands[seat]
    score = best_split(six, s.revealed, len(s.exposed[seat]))
    if score is None or score.points < s.needed:
        return _foul_event(s, seat, six, score, None)
    if s.source == "discard":
        return _settle(s, seat, "discard", s.taken_from, s.taken or "", six, score, [])
    return _settle(s, seat, "stock", None, s.drawn or "", six, score, [])


def _judge_claims(s: UxState) -> Event:
    card = s.discards[-1]
    valid: list[int] = []
    invalid: list[tuple[int, Any]] = []
    scores = {}
    for seat in s.munts:
        six = add(s.hands[seat], card)
        score = best_split(six, s.revealed, len(s.exposed[seat]))
        if score is not None and score.points >= s.needed:
            valid.append(seat)
            scores[seat] = (six, score)
        else:
            invalid.append((seat, (six, score)))
    if len(valid) >= 2:
        return _drawn(s, "double-munt", claimants=valid)
    if len(valid) == 1:
        winner = valid[0]
        six, score = scores[winner]
        return _settle(s, winner, "discard", s.active, card, six, score, [seat for seat, _ in invalid])
    for seat, (six, score) in invalid:
        if seat not in s.deal_fouls:
            return _foul_event(s, seat, six, score, card)
    return _drawn(s, "foul")


def _foul_event(s: UxState, seat: int, six: tuple[str, ...], score: HandScore | None, claimed: str | None) -> Foul:
    before = len(s.penalties[seat])
    if score is None:
        reason = "the six cards do not form two combinations"
    else:
        reason = f"{score.points} point{'s' if score.points != 1 else ''} < {s.needed} needed"
    facts: dict[str, Any] = {
        "cards": list(six),
        "claim": claimed is not None,
        "discard": claimed,
        "split": [list(t) for t in score.split] if score else None,
        "rows": dict(score.rows) if score else None,
        "points": score.points if score else None,
        "needed": s.needed,
        "levu": [s.players[x] for x in s.levu],
        "exposed": list(s.exposed[seat]),
        "reason": reason,
    }
    effect = {
        "penalties_before": before,
        "penalties_after": before + 1,
        "deal": "drawn",
        "scoring": f"transfers to {who(s, seat)} are void until {before + 1} valid munt{'s' if before else ''}",
    }
    return Foul(
        ruling_id=f"uxinjo-d{s.deal}-{label(seat)}",
        deal=s.deal,
        seat=seat,
        rule=R_FOUL_CLAIM if claimed is not None else R_FOUL,
        facts=facts,
        effect=effect,
    )




def _notes(s: UxState, transfers: list[Transfer], score: HandScore | None = None,
           void_claims: Sequence[int] = ()) -> list[str]:
    notes = []
    if len(s.levu) >= SEATS:
        notes.append(RULING_ALL_LEVU)
    elif s.levu and score is not None:
        notes.append(RULING_NEEDED)
    if score is not None and score.wilds:
        notes.append(RULING_WILDS)
    if void_claims:
        notes.append(RULING_VOID_CLAIM)
    if any(t.moved != t.amount and not t.void for t in transfers):
        notes.append(RULING_FINITO)
    return notes


def _levu_requests(s: UxState, winner: int) -> list[tuple[int, int, int, str]]:
    if len(s.levu) >= SEATS:  # all three declared: every levu is void
        return []
    out: list[tuple[int, int, int, str]] = []
    for seat in s.levu:
        if seat != winner:
            out.extend((seat, (seat + k) % SEATS, 1, "levu") for k in (1, 2))
    return out


def _transfers(s: UxState, requests: list[tuple[int, int, int, str]]) -> list[Transfer]:
    markers = s.markers
    out = []
    for payer, payee, amount, reason in requests:
        if amount <= 0:
            continue
        void = bool(s.penalties[payee])
        if void:
            moved = 0
        else:
            markers, moved = pay(markers, payer, payee, amount)
        out.append(Transfer(payer=payer, payee=payee, amount=amount, moved=moved, reason=reason, void=void))
    return out


def _settle(s: UxState, winner: int, win: str, discarder: int | None, card: str, six: tuple[str, ...],
            score: HandScore, void_claims: Sequence[int]) -> Settled:
    points = score.points
    requests: list[tuple[int, int, int, str]] = []
    if win == "discard":
        assert discarder is not None
        requests.append((discarder, winner, points, "discard"))
        ajx = s.exposed[discarder].count(AJX)
        if ajx:
            requests.append((discarder, winner, ajx, "e-ajx"))
    else:
        requests.extend(((winner + k) % SEATS, winner, points - 1, "stock") for k in (1, 2))
    requests.extend(_levu_requests(s, winner))
    lifted = s.penalties[winner][0] if s.penalties[winner] else None
    transfers = _transfers(s, requests)
    return Settled(
        deal=s.deal,
        winner=winner,
        win=win,
        discarder=discarder,
        card=card,
        hand=list(six),
        split=[list(t) for t in score.split],
        rows=dict(score.rows),
        points=points,
        needed=s.needed,
        transfers=transfers,
        lifted=lifted,
        void_claims=list(void_claims),
        levu=list(s.levu),
        rulings=_notes(s, transfers, score, void_claims),
    )


def _drawn(s: UxState, reason: str, claimants: list[int] | None = None) -> DealDrawn:
    """A drawn deal. Two valid munts on one discard each lift their declarer's oldest
    penalty (RULING: a penalty lifts on any valid munt), though neither scores; the
    deal's transfers to a penalised claimant are void all the same."""
    transfers = _transfers(s, _levu_requests(s, -1))
    claimants = list(claimants or [])
    lifted = [s.penalties[seat][0] for seat in claimants if s.penalties[seat]]
    notes = _notes(s, transfers)
    if lifted:
        notes.append(RULING_LIFT)
    return DealDrawn(
        deal=s.deal,
        reason=reason,
        claimants=claimants,
        transfers=transfers,
        levu=list(s.levu),
        rulings=notes,
        lifted=lifted,
    )


def decisions(event: Event, players: Sequence[str]) -> list[Decision]:
    """What a settlement or drawn deal voided without a penalty: each invalid claim beside
    the valid one (RULING §2.3), and each levu when all three declared one (§4.2). Facts
    name players, as every other fact does (the key keeps the seat label, like ruling ids)."""
    if not isinstance(event, (Settled, DealDrawn)):
        return []
    out = []
    d = event.deal
    if isinstance(event, Settled):
        for seat in event.void_claims:
            out.append(Decision(
                key=f"uxinjo-d{d}-{label(seat)}-void-claim", seat=seat, rule=RULING_VOID_CLAIM,
                facts={"claim_on": event.card,
                       "discarder": players[event.discarder] if event.discarder is not None else None,
                       "valid_claim_by": players[event.winner], "points_needed": event.needed},
                effect={"claim": "void", "foul": False, "penalties": "unchanged"},
            ))
    if len(event.levu) >= SEATS:
        facts: dict[str, Any] = {"levu": [players[x] for x in event.levu]}
        if isinstance(event, Settled):
            facts["points_needed"] = event.needed
        for seat in event.levu:
            out.append(Decision(
                key=f"uxinjo-d{d}-{label(seat)}-levu-void", seat=seat, rule=RULING_ALL_LEVU, facts=facts,
                effect={"levu": "void", "points_needed_raised_by": 0, "levu_penalty": "none"},
            ))
    return out


def markers_by_name(s: UxState) -> dict[str, dict[str, int]]:
    names = s.players
    return {
        names[a]: {names[b]: marker(s.markers, a, b) for b in range(SEATS) if b != a} for a in range(SEATS)
    }


def foul_counts(s: UxState) -> dict[str, int]:
    return {s.players[i]: s.fouls[i] for i in range(SEATS)}


def _match_end(s: UxState) -> MatchEnded:
    mp = match_points(s.markers)
    return MatchEnded(
        deal=s.deal,
        markers=markers_by_name(s),
        mp={s.players[i]: mp[i] for i in range(SEATS)},
        fouls=foul_counts(s),
    )




def penalty_changes(event: Event, before: UxState, after: UxState) -> PenaltyChanges | None:
    """A foul's penalty stands from its ruling (§6.1); a settlement or drawn deal voids
    each transfer to a penalised player and a winner's valid munt lifts its oldest
    penalty; an overturn ends the overturned penalty, and lifts any penalty the
    recomputation moved an earlier lift onto (see ``fold.recompute``)."""
    if isinstance(event, Foul):
        return PenaltyChanges(started=[event.ruling_id])
    if isinstance(event, (Settled, DealDrawn)):
        voided = [(t.payer, t.payee, t.amount, t.reason) for t in event.transfers if t.void]
        if isinstance(event, Settled):
            lifted = [event.lifted] if event.lifted else []
        else:
            lifted = list(event.lifted)
        if not voided and not lifted:
            return None
        return PenaltyChanges(lifted=lifted, reason="a valid munt lifted the penalty", transfers=voided)
    if isinstance(event, RulingDecided) and before.penalties != after.penalties:
        gone: list[str] = []
        for was, now in zip(before.penalties, after.penalties):
            kept = set(now)
            gone.extend(rid for rid in was if rid not in kept)
        return PenaltyChanges(
            ended=[rid for rid in gone if rid == event.ruling_id],
            lifted=[rid for rid in gone if rid != event.ruling_id],
            reason=f"the {event.decision} of {event.ruling_id} moved a valid munt's lift onto this penalty")
    return None
