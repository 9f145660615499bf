"""Laugavatnsmanni's automatic decisions: each trick's winner, the deal's scoring
(§5) and the match's end."""

from __future__ import annotations

from kartludo.engine.base import ranks_from_scores
from kartludo.engine.laugavatnsmanni.rules import (
    RULING_52,
    RULING_BLIND,
    RULING_CHOSEN,
    RULING_GREAT,
    RULING_LEAD,
    totals_by_name,
    trick_winner,
)
from kartludo.engine.laugavatnsmanni.state import SEATS, TRICKS, LvState, Phase
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import DealScored, MatchEnded, SeatScore, TrickWon


def automatic(s: LvState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.PLAY and len(s.trick) == SEATS:
        winner, card = trick_winner(s.leader, s.trick, s.trump)
        return [
            TrickWon(deal=s.deal, trick=s.tricks_played + 1, leader=s.leader, cards=list(s.trick), trump=s.trump,
                     winner=winner, card=card)
        ]
    if phase is Phase.SCORING:
        return [score_deal(s)]
    if phase is Phase.WAITING_DEAL and s.deal and match_over(s):
        return [_match_end(s)]
    return []


def match_over(s: LvState) -> bool:
    return max(s.totals) >= s.target_points or s.deal >= s.max_deals


def score_parts(contract: str, great: bool, declarer: int, tricks: list[int]) -> tuple[str, list[SeatScore]]:
    """The kind of scoring and each seat's part, from the tricks each seat took (§5)."""
    parts = []
    dt = tricks[declarer]
    if great and dt >= TRICKS - 1:
        kind = f"great-{dt}"
        win, lose = (8, -4) if dt == TRICKS else (4, -2)
        for seat in range(SEATS):
            mine = seat == declarer
            parts.append(SeatScore(seat=seat, role="declarer" if mine else "opponent", tricks=tricks[seat],
                                   basis="fixed", target=14 if mine else 1, score=win if mine else lose))
        return kind, parts
    if great:
        kind, basis, mine_t, other_t = "great", "target", 14, 1
    elif contract == "nullo":
        kind, basis, mine_t, other_t = "nullo", "limit", 4, 6
    else:
        kind, basis, mine_t, other_t = "normal", "target", 8, 4
    for seat in range(SEATS):
        mine = seat == declarer
        t = mine_t if mine else other_t
        score = t - tricks[seat] if basis == "limit" else tricks[seat] - t
        parts.append(SeatScore(seat=seat, role="declarer" if mine else "opponent", tricks=tricks[seat], basis=basis,
                               target=t, score=score))
    return kind, parts


def score_deal(s: LvState) -> DealScored:
    assert s.declarer is not None and s.contract is not None and s.chosen is not None
    tricks = [s.tricks(i) for i in range(SEATS)]
    kind, parts = score_parts(s.contract, s.great, s.declarer, tricks)
    totals = [s.totals[p.seat] + p.score for p in parts]
    rulings = [RULING_52, RULING_LEAD]
    if s.exchanged:
        rulings.append(RULING_BLIND)
    if s.great:
        rulings.extend((RULING_GREAT, RULING_CHOSEN))
    return DealScored(
        deal=s.deal,
        chooser=s.chooser,
        chosen=s.chosen,
        contract=s.contract,
        declarer=s.declarer,
        great=s.great,
        held=s.held,
        exchanged=s.exchanged or 0,
        kind=kind,
        parts=parts,
        totals=totals,
        rulings=rulings,
    )



def _match_end(s: LvState) -> MatchEnded:
    totals = totals_by_name(s)
    return MatchEnded(
        deal=s.deal,
        reason="target" if max(s.totals) >= s.target_points else "deals",
        totals=totals,
        ranks=ranks_from_scores(totals),
    )


