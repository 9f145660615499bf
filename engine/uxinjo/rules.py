"""Uxinjo rule references (cited by refusals, rulings and settlements) and the small
helpers every Uxinjo module shares."""

from __future__ import annotations

from typing import Any

from kartludo.engine.base import DealRules
from kartludo.engine.jx import ORDER
from kartludo.engine.uxinjo.state import SEAT_LABELS, SEATS

R_SETUP = "uxinjo §2.1"
R_DECK = "uxinjo §2.1 (a listed deck is the 38-card Jx deck, top first)"
R_COMMANDS = "uxinjo §Commands"
R_DEAL = "uxinjo §2.3 (a deal ends before the next is dealt)"
R_TURN = "uxinjo §2.2 (turn order: from the dealer, clockwise)"
R_DRAW = "uxinjo §2.2 A"
R_TAKE = "uxinjo §2.2 B"
R_TAKEN = "uxinjo §2.2 B (RULING: the taken card may not be discarded)"
R_JX = "uxinjo §2.2 (PJx and AJx are never discarded)"
R_DISCARD = "uxinjo §2.2"
R_LEVU = "uxinjo §4.2 (levu: first turn only, before discarding)"
R_ELTIRI = "uxinjo §3.1 (eltiri: only while the stock holds more than the two cards never drawn)"
R_ELTIRI_HELD = "uxinjo §3.1 (eltiri: expose a PJ or an AJ from your own hand)"
R_ELTIRI_AFTER = "uxinjo §3.1 (RULING: eltiri only after drawing or taking, with six cards)"
R_MUNT = "uxinjo §2.3 munt (on one's own turn after A, B or eltiri, or in a claim window)"
R_WINDOW = (
    "uxinjo §2.3 claim window (RULING: a draw or take counts as the next player's pass only "
    "once the other player has answered and nobody claimed)"
)
R_ANSWER = "uxinjo §2.3 claim window (each of the two players other than the discarder answers once: munt or pass)"
R_LEVU_WINDOW = (
    "uxinjo §4.2 (levu: during your own first turn, before discarding), §2.3 claim window (your turn begins "
    "once the window before it closes: by your explicit pass, or by your draw or take)"
)
R_LAST = "uxinjo §2.3 2 (the last claim window at stock exhaustion: answer munt or pass)"
R_DONE = "uxinjo §6 (the match is over)"
R_FOUL = "uxinjo §2.3 3, §6.1 (invalid munt = foul; RULING: points needed = 2 + 1 per valid levu)"
R_FOUL_CLAIM = (
    "uxinjo §2.3 3, §6.1 (invalid munt = foul; RULING: points needed = 2 + 1 per valid levu; "
    "claims are judged when the window closes, an invalid claim is void without foul only "
    "beside a valid one)"
)


def label(seat: int) -> str:
    return SEAT_LABELS[seat] if 0 <= seat < SEATS else str(seat)


def who(state: Any, seat: int) -> str:
    """A seat as people read it: the player's name first, the seat label beside it ("ann (Or)")."""
    if not 0 <= seat < SEATS or seat >= len(state.players):
        return str(seat)
    return f"{state.players[seat]} ({label(seat)})"




def add(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``hand`` with ``card`` in its sorted place (hands are kept in ``jx.ORDER``)."""
    return tuple(sorted(hand + (card,), key=ORDER.__getitem__))



RULING_NEEDED = "RULING §2.3: points needed = 2 + 1 per valid levu"
RULING_ALL_LEVU = "§4.2: all three declared levu, so every levu is void"
RULING_FINITO = "RULING §2.1: a transfer that would pass finito stops at it"
RULING_VOID_CLAIM = "RULING §2.3: an invalid claim beside a valid one in the same window is void, no foul"
RULING_LIFT = "RULING §6.1: a penalty lifts on any valid munt, also one in a deal drawn by two valid munts"
RULING_WILDS = "RULING §1: a wild never stands for a coloured number already in the hand"

DEAL_RULES = DealRules(done=R_DONE, in_progress=R_DEAL, deck=R_DECK)
