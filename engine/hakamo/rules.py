"""Hakamo rule references (cited by refusals, rulings and scorings) and the questions
about a state that its commands, fold, scoring and views all ask."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kartludo.engine.base import DealRules
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.state import MAX_BID, SEAT_LABELS, SEATS, HkState, Phase
from kartludo.engine.jx import ORDER

R_SETUP = "hakamo §Cards and seats"
R_DONE = "hakamo §Cards and seats (a match is 8 deals; the match is over)"
R_DEAL = "hakamo §Deal (a deal ends before the next is dealt)"
R_DECK = "hakamo §Deal (a listed deck is the 38-card Jx deck, top first)"
R_AUCTION = "hakamo §1 auction (from the dealer, clockwise)"
R_BID = "hakamo §1 auction (a bid is at least 13 and at least 1 above the last)"
R_MAX = (
    f"hakamo §1 auction (the project's bound, not a rule of the game: no bid above {MAX_BID}, the most a GV "
    "could count with all 39 card points and every bonus listed; the highest GV a deal can reach is 42)"
)
R_PASS_FINAL = "hakamo §1 auction (a pass is final)"
R_KASX = "hakamo §2 Kasxetoj (the Deklaristo keeps or exchanges before seeing them)"
R_LAY = "hakamo §2 Kasxetoj (exchange: lay two of the 11 cards, upper first, each face up or down)"
R_LAY_C = "hakamo §2 Kasxetoj (C may only be laid face down)"
R_KUNULO = "hakamo §3 Kunulo (the Deklaristo plays solo or recruits)"
R_SHARE = (
    "hakamo §3 Kunulo (the first bid at most half the contract, rounded down, and at least 1; "
    "each later bid at least 1 below the last)"
)
R_SHARE_TURN = "hakamo §3 Kunulo (from the Deklaristo's left, clockwise; a pass is final)"
R_NO_KUNULO = "hakamo §3 Kunulo (all three passed: the Deklaristo plays solo or resigns)"
R_DECLARE = "hakamo §4 declaration (RULING: one seat, own included, or malhakama)"
R_TURN = "hakamo §5 tricks (clockwise from the leader; a Matisto's turn is skipped)"
R_LEAD_JX = "hakamo §5 tricks (Jx can never be led; a C copying a Jx is a Jx)"
R_FOLLOW = "hakamo §5 must follow (RULING: a Jx may always be played)"
R_C = (
    "hakamo §5 C (RULING: C is a copy of the upper Kasxetoj card if face up, else of the lower; "
    "with both face down C cannot be played)"
)
R_HELD = "hakamo §5 tricks (play a card from your hand)"

RULING_MATATIS = "RULING §Terms mati: the engine records matatis when the player to act has no legal card"
RULING_C = R_C.removeprefix("hakamo ")
RULING_FOLLOW = "RULING §5: a Jx may always be played"
RULING_FIRST_DISCARD = "RULING §5: only discards survived, so the first surviving card played takes the trick"
RULING_ORDER = "RULING §2: the face-up lower card sets the inversa colour(s) (a Jx: every colour)"
RULING_COUNT_C = "RULING §Terms: a taken C counts 1"
RULING_DECLARATION = "RULING §4: the Deklaristo declares one seat or malhakama"
RULING_GV_SEAT = "RULING §6: a Hakamisto exists and the declared seat is one of them, so GV = that seat's count"
RULING_BONUS = "RULING §6: bonuses are added only to a non-zero GV"
RULING_SCORE = "RULING §7: win +(B - S) / +S, loss -(B - S) / -S (S = 0 solo)"
RULING_RESIGN = "RULING §7: resigning costs the Deklaristo ceil(B/2)"

MATISTO_BONUS = {1: 2, 2: 4, 3: 8, 4: 16}
KEPT_BONUS = 2
MALHAKAMA_GV = 16
HAKAMI_MIN = 13


def label(seat: int | None) -> str:
    if seat is None:
        return "malhakama"
    return SEAT_LABELS[seat] if 0 <= seat < SEATS else str(seat)


def who(state: Any, seat: int | None) -> str:
    """A seat as people read it: the player's name first, the seat label beside it
    ("ann (Or)"); None is malhakama (nobody)."""
    if seat is None:
        return "malhakama"
    if not 0 <= seat < SEATS or seat >= len(state.players):
        return str(seat)
    return f"{state.players[seat]} ({label(seat)})"




def sort(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in ``jx.ORDER`` (how a hand is kept)."""
    return tuple(sorted(cards, key=ORDER.__getitem__))


def next_in(flags_out: tuple[bool, ...], after: int) -> int:
    """The next seat clockwise after ``after`` not marked out (-1 if none)."""
    for k in range(1, SEATS + 1):
        s = (after + k) % SEATS
        if not flags_out[s]:
            return s
    return -1




def next_dealer(state: HkState) -> int:
    if state.deal == 0:
        return 0
    return state.dealer if state.redeal else (state.dealer + 1) % SEATS



_ACTING = frozenset(
    (Phase.AUCTION, Phase.KASXETOJ, Phase.LAY, Phase.KUNULO, Phase.SHARES, Phase.NO_KUNULO, Phase.DECLARATION)
)


def to_act(state: HkState) -> list[int]:
    phase = state.phase
    if phase in _ACTING:
        return [state.turn]
    if phase is Phase.TRICKS and state.turn >= 0 and not mati_due(state):
        return [state.turn]
    return []


def lead_colour(state: HkState) -> str | None:
    return hc.lead_colour(state.trick, state.copy)


def legal_cards(state: HkState, seat: int) -> list[str]:
    return hc.legal_plays(state.hands[seat], lead_colour(state), state.copy)


def trick_complete(state: HkState) -> bool:
    return bool(state.trick) and len(state.trick) >= len(state.active)


def mati_due(state: HkState) -> bool:
    return state.turn >= 0 and not trick_complete(state) and not legal_cards(state, state.turn)


def counts(state: HkState) -> tuple[int, ...]:
    return tuple(hc.count(t) for t in state.taken)


DEAL_RULES = DealRules(done=R_DONE, in_progress=R_DEAL, deck=R_DECK)
