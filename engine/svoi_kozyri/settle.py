"""Svoi Kozyri's automatic decisions: passing the sixes, the end of a deal and of
the match."""

from __future__ import annotations

from kartludo.engine.base import put, ranks_from_scores
from kartludo.engine.svoi_kozyri.cards import beats, sixes_to_pass
from kartludo.engine.svoi_kozyri.rules import (
    DEFAULT_DEALS,
    RULING_DEALS,
    RULING_EMPTY_PILE,
    RULING_PILE_KEPT,
    losses_by_name,
)
from kartludo.engine.svoi_kozyri.state import Phase, SkState
from kartludo.events.base import Event
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded, SixesPassed, SixPass


def automatic(s: SkState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.PASSING:
        passes = [SixPass(card=c, giver=g, receiver=r) for c, g, r in sixes_to_pass(s.hands, s.trumps)]
        return [SixesPassed(deal=s.deal, trumps=list(s.trumps), passes=passes)]
    if phase is Phase.SETTLING:
        return [end_of_deal(s)]
    if phase is Phase.WAITING_DEAL and s.deal and s.completed >= s.deals:
        return [_match_end(s)]
    return []



def end_of_deal(s: SkState) -> DealEnded:
    """Only one player still holds cards: that player loses, unless the one card
    left beats the top card (a draw; RULING: an empty pile cannot be beaten)."""
    holding = s.holding()
    last = holding[0]
    hand = s.hands[last]
    top = s.top
    trump = s.trumps[last]
    rulings = [RULING_PILE_KEPT] if s.last_card_beats else []
    single = len(hand) == 1
    beat = single and top is not None and beats(hand[0], top, trump)
    if single and top is None:
        rulings.append(RULING_EMPTY_PILE)
    losses = s.losses if beat else put(s.losses, last, s.losses[last] + 1)
    return DealEnded(
        deal=s.deal,
        outcome="draw" if beat else "loss",
        last=last,
        hand=list(hand),
        top=top,
        trump=trump,
        beats=beat,
        out=list(s.out),
        losses=losses_by_name(s, losses),
        next_dealer=s.dealer if beat else last,
        rulings=rulings,
    )


def _match_end(s: SkState) -> MatchEnded:
    losses = losses_by_name(s)
    return MatchEnded(
        deals=s.completed,
        losses=losses,
        draws=sum(1 for r in s.results if r < 0),
        ranks=ranks_from_scores(losses, higher_is_better=False),
        rulings=[RULING_DEALS] if s.deals == DEFAULT_DEALS else [],
    )

