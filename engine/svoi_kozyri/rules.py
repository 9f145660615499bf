"""Svoi Kozyri rule references (cited by refusals and settlements) and the questions
about a state that its commands, fold, settling and views all ask."""

from __future__ import annotations

import random

from kartludo.engine.base import DealRules
from kartludo.engine.svoi_kozyri.state import PLAY_PHASES, SkState

DEFAULT_DEALS = 8



R_SETUP = "svoi-kozyri §Cards, players, trumps"
R_TRUMPS = "svoi-kozyri §Cards, players, trumps (each player owns a different trump suit)"
R_DONE = "svoi-kozyri §Cards, players, trumps (the match is its fixed number of deals)"
R_DEAL = "svoi-kozyri §End of a deal (a deal ends before the next is dealt)"
R_DECK = "svoi-kozyri §Deal (a listed deck is the 36-card pack, top first)"
R_TURN = "svoi-kozyri §Play (clockwise; players who have left are skipped)"
R_LEFT = "svoi-kozyri §Play (a player who empties the hand leaves the deal)"
R_HELD = "svoi-kozyri §Play (a card from one's own hand)"
R_BEAT = (
    "svoi-kozyri §Play beat (a higher card of the top card's suit, or any card of one's own trump "
    "suit over another suit; over a top card of one's own trump suit only a higher trump)"
)
R_EXTRA = "svoi-kozyri §Play beat (after beating, the same player adds one more card, any card)"
R_LEAD = "svoi-kozyri §Play (the pile is empty: the player leads any card)"
R_FREE = (
    "svoi-kozyri §Play (after a last-card beat the next player plays any card onto the pile; "
    "RULING: the pile is not cleared)"
)

RULING_PILE_KEPT = "RULING §Play: after a last-card beat the pile is not cleared"
RULING_EMPTY_PILE = "RULING §End of a deal: an empty pile cannot be beaten, so a last single card there loses"
RULING_DEALS = "RULING §Cards, players, trumps: a match is 8 deals unless set at creation"


def label(s: SkState, seat: int) -> str:
    return s.players[seat] if 0 <= seat < len(s.players) else str(seat)





def first_dealer(seed: int | None, n: int) -> int:
    """The first dealer, drawn at random from the match's seed or, without one, its
    lot (both recorded at creation; the dealer is recorded again in deal 1)."""
    return random.Random(f"{seed}:first-dealer").randrange(n)



def next_dealer(state: SkState) -> int:
    return state.upcoming_dealer



def to_act(state: SkState) -> list[int]:
    return [state.turn] if state.phase in PLAY_PHASES else []



def losses_by_name(s: SkState, losses: tuple[int, ...] | None = None) -> dict[str, int]:
    losses = s.losses if losses is None else losses
    return {s.players[i]: losses[i] for i in range(s.n)}


DEAL_RULES = DealRules(done=R_DONE, in_progress=R_DEAL, deck=R_DECK)
