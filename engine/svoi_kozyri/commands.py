"""Svoi Kozyri commands and the one checker that refuses them or lists them as legal.

``check`` both refuses commands and, run over every candidate, lists the legal ones,
so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from kartludo.engine.base import Command, IllegalCommand, StartDeal, check_deal
from kartludo.engine.commands import Arg, Card
from kartludo.engine.french import SUIT_NAMES
from kartludo.engine.svoi_kozyri.cards import CARDS, DECK, beats, pickup_count, pickup_rule
from kartludo.engine.svoi_kozyri.rules import (
    DEAL_RULES,
    R_BEAT,
    R_DEAL,
    R_DONE,
    R_EXTRA,
    R_FREE,
    R_HELD,
    R_LEAD,
    R_LEFT,
    R_SETUP,
    R_TRUMPS,
    R_TURN,
    label,
    next_dealer,
)
from kartludo.engine.svoi_kozyri.settle import automatic
from kartludo.engine.svoi_kozyri.state import PLAY_PHASES, Phase, SkState
from kartludo.events.base import Event
from kartludo.events.svoi_kozyri import PickedUp, Played

CARDS_36 = "a card of the 36-card pack (A K Q J T 9 8 7 6 of S H D C, e.g. QH, TS, 6C)"


def read_card(word: str) -> str | None:
    """A card as typed: ``qh`` -> ``QH``; ``10H`` -> ``TH``."""
    code = word.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    return code if code in CARDS else None



class Play(Command, frozen=True, kw_only=True, tag="play"):
    """Put a card on the pile: a lead, a beat, the extra card or a free play
    (the engine knows which is due)."""

    arguments: ClassVar[tuple[Arg, ...]] = (Card("card", read_card, CARDS_36, "QH"),)

    card: str


class Pickup(Command, frozen=True, kw_only=True, tag="pickup"):
    """Take 3, 5 or all of the pile's top cards instead of beating."""


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Play, Pickup)


def check(state: SkState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        if state.problem is not None:  # options that fit no table (recorded before set-ups were checked)
            raise IllegalCommand(state.problem, R_TRUMPS)
        return check_deal(state, cmd, deck=DECK, rules=DEAL_RULES, dealer=next_dealer(state), pending=automatic)
    phase = state.phase
    if phase is Phase.FINISHED:
        raise IllegalCommand("the match is over", R_DONE)
    seat = cmd.seat
    if not 0 <= seat < state.n:
        seats = ", ".join(f"{i} {p}" for i, p in enumerate(state.players))
        raise IllegalCommand(f"there is no seat {seat} (seats: {seats})", R_SETUP)
    if phase is Phase.WAITING_DEAL:
        raise IllegalCommand("no deal is in progress: the next deal must be dealt first", R_DEAL)
    if phase not in PLAY_PHASES:
        raise IllegalCommand("the engine is settling the deal", R_DEAL)
    if seat in state.out:
        raise IllegalCommand(f"{label(state, seat)} has emptied the hand and left this deal", R_LEFT)
    if seat != state.turn:
        raise IllegalCommand(f"it is {label(state, state.turn)}'s turn, not {label(state, seat)}'s", R_TURN)
    check = _CHECKS.get(type(cmd))
    if check is None:
        raise IllegalCommand(f"{cmd.text()!r} is not a Svoi Kozyri command (play CARD, pickup)", R_SETUP)
    return check(state, cmd)


def why_not_beat(card: str, top: str, trump: str) -> str:
    """Why ``card`` does not beat ``top`` for the owner of ``trump`` (a refusal's message)."""
    if top[1] == trump:
        return (
            f"{card} does not beat {top}: {top} is of your trump suit ({SUIT_NAMES[trump]}), "
            f"so only a higher {SUIT_NAMES[trump][:-1]} beats it"
        )
    if card[1] == top[1]:
        return f"{card} does not beat {top}: a card of the same suit must be higher"
    return (
        f"{card} does not beat {top}: it is neither a higher {SUIT_NAMES[top[1]][:-1]} "
        f"nor of your trump suit ({SUIT_NAMES[trump]})"
    )


def _check_play(state: SkState, cmd: Play) -> list[Event]:
    seat, card = cmd.seat, cmd.card
    if card not in CARDS:
        raise IllegalCommand(f"{card!r} is not a card of the 36-card pack", R_HELD)
    if card not in state.hands[seat]:
        raise IllegalCommand(f"you do not hold {card}", R_HELD)
    phase = state.phase
    if phase is Phase.BEAT:
        top = state.pile[-1]
        if not beats(card, top, state.trumps[seat]):
            raise IllegalCommand(why_not_beat(card, top, state.trumps[seat]) + " (or pick up)", R_BEAT)
    return [Played(seat=seat, card=card, role=phase.value)]


def _check_pickup(state: SkState, cmd: Pickup) -> list[Event]:
    phase = state.phase
    if phase is Phase.LEAD:
        raise IllegalCommand("the pile is empty: nothing to pick up, lead any card", R_LEAD)
    if phase is Phase.EXTRA:
        raise IllegalCommand("you have just beaten: add one more card (any card) on top", R_EXTRA)
    if phase is Phase.FREE:
        raise IllegalCommand(
            "the previous player beat with the last card: play any card onto the pile (no pick-up)", R_FREE
        )
    seat = cmd.seat
    top = state.pile[-1]
    rule = pickup_rule(top, state.trumps[seat])
    k = pickup_count(rule, len(state.pile))
    return [PickedUp(seat=seat, top=top, rule=rule, cards=list(state.pile[-k:]))]


_CHECKS: dict[type, Callable[[SkState, Any], list[Event]]] = {
    Play: _check_play,
    Pickup: _check_pickup,
}


def candidates(state: SkState, seat: int) -> list[Command]:
    """Every command worth checking for ``seat`` (a superset of the legal ones)."""
    out: list[Command] = [Pickup(seat=seat)]
    if 0 <= seat < state.n:
        out.extend(Play(seat=seat, card=c) for c in state.hands[seat])
    return out


#: the command each recorded action answers (``audit recheck`` re-judges it)
RECORDED: dict[type[Event], Callable[[Any], Command]] = {
    Played: lambda e: Play(seat=e.seat, card=e.card),
    PickedUp: lambda e: Pickup(seat=e.seat),
}
