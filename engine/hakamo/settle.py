"""Hakamo's automatic decisions: a passed-out deal, matatis, each trick's end, the
deal's scoring (§6-7) and the match's end."""

from __future__ import annotations

import msgspec

from kartludo.engine.base import ranks_from_scores
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.rules import (
    HAKAMI_MIN,
    KEPT_BONUS,
    MALHAKAMA_GV,
    MATISTO_BONUS,
    RULING_BONUS,
    RULING_C,
    RULING_COUNT_C,
    RULING_DECLARATION,
    RULING_FIRST_DISCARD,
    RULING_FOLLOW,
    RULING_GV_SEAT,
    RULING_MATATIS,
    RULING_ORDER,
    RULING_RESIGN,
    RULING_SCORE,
    mati_due,
    trick_complete,
)
from kartludo.engine.hakamo.state import DEALS, SEATS, HkState, Phase
from kartludo.engine.jx import CENTRO, colour
from kartludo.events import hakamo as ev
from kartludo.events.base import Event


def automatic(s: HkState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.TRICKS:
        if trick_complete(s):
            return [_trick_end(s)]
        if mati_due(s):
            return [_matatis_event(s)]
        return []
    if phase is Phase.SCORING:
        return [_score(s)]
    if phase is Phase.PASSED_OUT:
        return [ev.PassedOut(deal=s.deal, dealer=s.dealer)]
    if phase is Phase.WAITING_DEAL and s.counted >= DEALS:
        return [_match_end(s)]
    return []


def _matatis_event(s: HkState) -> ev.Matatis:
    seat = s.turn
    hand = s.hands[seat]
    lead = not s.trick
    copy = s.copy
    parts = []
    if any(c in ("PJ", "AJ") for c in hand):
        parts.append("Jx, which are never led" if lead else "Jx")
    if CENTRO in hand:
        if copy is None:
            parts.append("C, which cannot be played with both Kasxetoj face down")
        else:
            parts.append(f"C as {copy}, a Jx, which is never led")
    reason = ("to lead, holding only " if lead else "to play, holding only ") + " and ".join(parts)
    return ev.Matatis(
        deal=s.deal, trick=s.tricks + 1, seat=seat, hand=list(hand), lead=lead, reason=reason,
        rule=RULING_MATATIS,
    )


def _trick_end(s: HkState) -> ev.TrickEnded:
    seats = [seat for seat, _ in s.trick]
    cards = [card for _, card in s.trick]
    r = hc.resolve(cards, s.copy, s.trump_mode, s.trump, s.inversa)
    plays = [
        ev.TrickCard(seat=seats[i], card=cards[i], face=r.faces[i], role=r.roles[i], cancelled=r.cancelled[i])
        for i in range(len(cards))
    ]
    cancels = [
        ev.Cancel(seats=[seats[i] for i in idx], cards=[cards[i] for i in idx], why=why) for idx, why in r.groups
    ]
    winner = None if r.winner is None else seats[r.winner]
    taken = [cards[i] for i in range(len(cards)) if not r.cancelled[i]] if winner is not None else []
    rulings = []
    if CENTRO in cards:
        rulings.append(RULING_C)
    if any(p.role in ("trump", "lead") and not p.cancelled and p.face[0] in s.inversa for p in plays):
        rulings.append(RULING_ORDER)
    if r.by_first_discard:
        rulings.append(RULING_FIRST_DISCARD)
    if any(p.role in ("PJ", "AJ") for p in plays[1:]) and _jx_over_follow(s, plays):
        rulings.append(RULING_FOLLOW)
    return ev.TrickEnded(
        deal=s.deal,
        trick=s.tricks + 1,
        leader=seats[0],
        lead=r.lead,
        trump=r.trump,
        plays=plays,
        cancels=cancels,
        winner=winner,
        taken=taken,
        points=hc.count(taken),
        stops=winner is None,
        rulings=rulings,
    )


def _jx_over_follow(s: HkState, plays: list[ev.TrickCard]) -> bool:
    """Whether a Jx was played by someone who (as the trick shows) still held the
    lead colour afterwards. Only the public part of this is knowable later; the
    engine knows the hands, so it checks the seat's remaining hand now."""
    lead = plays[0].face[0] if plays else None
    for p in plays[1:]:
        if p.role in ("PJ", "AJ") and lead is not None:
            rest = s.hands[p.seat]
            if any(hc.playable(c, s.copy) and colour(hc.face(c, s.copy)) == lead for c in rest):
                return True
    return False


def _score(s: HkState) -> ev.DealScored:
    d, k = s.deklaristo, s.kunulo
    B, S = s.contract, s.share
    common = ev.DealScored(
        deal=s.deal,
        counted=s.counted + 1,
        deklaristo=d,
        kunulo=k if k >= 0 else None,
        contract=B,
        share=S,
        solo=s.solo,
        resigned=s.resigned,
        kept=s.kept,
        end=s.end or "",
        tricks=s.tricks,
        matistos=list(s.matistos),
        target=None,
        awards=[],
    )
    if s.resigned:
        cost = -(-B // 2)
        return msgspec.structs.replace(
            common,
            awards=[ev.Award(seat=d, role="deklaristo", points=-cost, formula=f"-ceil(B/2) = -ceil({B}/2) = -{cost}")],
            rulings=[RULING_RESIGN],
        )
    rows = [
        ev.Count(seat=o, cards=len(s.taken[o]), vs=sum(1 for c in s.taken[o] if c[1:] == "V"),
                 count=hc.count(s.taken[o]))
        for o in range(SEATS)
    ]
    top = max(r.count for r in rows)
    hakamistos = [r.seat for r in rows if r.count == top] if top >= HAKAMI_MIN else []
    rulings = [RULING_DECLARATION]
    target = s.target
    if target is not None:
        if target in hakamistos:
            case, base = "declared-hakamisto", rows[target].count
            rulings.append(RULING_GV_SEAT)
        elif hakamistos:
            case, base = "declared-not-hakamisto", 0
        else:
            case, base = "declared-no-hakamisto", 0
    elif not hakamistos:
        case, base = "malhakama", MALHAKAMA_GV
    else:
        case, base = "malhakama-hakamisto", 0
    bonus: dict[str, int] = {}
    if s.kept:
        bonus["kept"] = KEPT_BONUS
    if s.matistos:
        bonus["matistos"] = MATISTO_BONUS[min(len(s.matistos), 4)]
        rulings.append(RULING_MATATIS)
    if bonus:
        rulings.append(RULING_BONUS)
    applied, void = (bonus, {}) if base else ({}, bonus)
    gv = base + sum(applied.values())
    won = gv >= B
    sign = 1 if won else -1
    sg = "+" if won else "-"
    awards = [
        ev.Award(seat=d, role="deklaristo", points=sign * (B - S),
                 formula=f"{sg}(B - S) = {sg}({B} - {S}) = {sg}{B - S}")
    ]
    if k >= 0:
        awards.append(ev.Award(seat=k, role="kunulo", points=sign * S, formula=f"{sg}S = {sg}{S}"))
    if any(CENTRO in t for t in s.taken):
        rulings.append(RULING_COUNT_C)
    rulings.append(RULING_SCORE)
    return msgspec.structs.replace(
        common,
        target=target,
        counts=rows,
        top=top,
        hakamistos=hakamistos,
        gv_case=case,
        gv_base=base,
        bonuses=applied,
        bonuses_void=void,
        gv=gv,
        won=won,
        awards=awards,
        rulings=rulings,
    )


def _match_end(s: HkState) -> ev.MatchEnded:
    totals = {s.players[i]: s.totals[i] for i in range(SEATS)}
    return ev.MatchEnded(deals=s.deal, totals=totals, ranks=ranks_from_scores(totals))


