"""Uxinjo commands and the one checker that refuses them or lists them as legal.

``check`` both refuses commands and, run over every candidate, lists the legal ones,
so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from kartludo.engine.base import Command, IllegalCommand, StartDeal, check_deal
from kartludo.engine.commands import Arg, Card
from kartludo.engine.jx import AJX, JX, JX_DECK, PJX, is_card
from kartludo.engine.uxinjo.rules import (
    DEAL_RULES,
    R_ANSWER,
    R_COMMANDS,
    R_DISCARD,
    R_DONE,
    R_DRAW,
    R_ELTIRI,
    R_ELTIRI_AFTER,
    R_ELTIRI_HELD,
    R_JX,
    R_LAST,
    R_LEVU,
    R_LEVU_WINDOW,
    R_MUNT,
    R_SETUP,
    R_TAKE,
    R_TAKEN,
    R_TURN,
    R_WINDOW,
    who,
)
from kartludo.engine.uxinjo.settle import automatic
from kartludo.engine.uxinjo.state import KEPT, SEATS, Phase, UxState
from kartludo.events.base import Event
from kartludo.events.uxinjo import (
    Discarded,
    Drew,
    Exposed,
    LevuDeclared,
    MuntDeclared,
    Passed,
    Took,
)

JX_CARDS = "a Jx card (R1…B9, RX GX BX, RV GV BV, C, PJ, AJ)"


def read_card(word: str) -> str | None:
    code = word.upper()
    return code if is_card(code) else None



class Draw(Command, frozen=True, kw_only=True, tag="draw"):
    """A: draw the stock's top card."""

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "draw"


class Take(Command, frozen=True, kw_only=True, tag="take"):
    """B: take the newest discard."""

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "take"


class Discard(Command, frozen=True, kw_only=True, tag="discard"):
    """Discard a card (never a Jx, nor the card taken this turn)."""

    arguments: ClassVar[tuple[Arg, ...]] = (Card("card", read_card, JX_CARDS, "R5"),)

    card: str

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "discard " + self.card


class Munt(Command, frozen=True, kw_only=True, tag="munt"):
    """Declare a win: on one's own turn, or as a claim on another player's discard."""

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "munt"


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """Answer a claim window without claiming."""

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "pass"


class Levu(Command, frozen=True, kw_only=True, tag="levu"):
    """Raise the points needed this deal by one (first turn only)."""

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "levu"


class Eltiri(Command, frozen=True, kw_only=True, tag="eltiri"):
    """Expose a PJ or an AJ from the hand and draw a replacement."""

    arguments: ClassVar[tuple[Arg, ...]] = (Card("card", read_card, JX_CARDS, "PJ"),)

    card: str

    def text(self) -> str:  # ``Command.text``'s, written out: weighed for every candidate
        return "eltiri " + self.card


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Draw, Take, Discard, Munt, Pass, Levu, Eltiri)


def next_dealer(state: UxState) -> int:
    return 0 if state.deal == 0 else (state.dealer + 1) % SEATS


def to_act(state: UxState) -> list[int]:
    phase = state.phase
    if phase is Phase.TURN or phase is Phase.DISCARD:
        return [state.active]
    if phase is Phase.CLAIM:
        d = state.active
        return [s for s in ((d + 1) % SEATS, (d + 2) % SEATS) if state.answers[s] is None]
    return []


def check(state: UxState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return check_deal(state, cmd, deck=JX_DECK, rules=DEAL_RULES, dealer=next_dealer(state), pending=automatic)
    phase = state.phase
    if phase is Phase.FINISHED:
        raise IllegalCommand("the match is over", R_DONE)
    seat = cmd.seat
    if not 0 <= seat < SEATS:
        raise IllegalCommand(f"there is no seat {seat} (seats 0-2: Or, Su, Ok)", R_SETUP)
    if phase is Phase.WAITING_DEAL:
        raise IllegalCommand("no deal is in progress: the next deal must be dealt first", R_SETUP)
    if phase is Phase.JUDGING:
        raise IllegalCommand("the deal is being settled", "uxinjo §2.3")
    check = _CHECKS.get(type(cmd))
    if check is None:
        raise IllegalCommand(f"{cmd.text()!r} is not an Uxinjo command", R_COMMANDS)
    return check(state, cmd)


def _not_your_turn(state: UxState, seat: int) -> IllegalCommand:
    if state.phase is Phase.CLAIM:
        if seat == state.active:
            return IllegalCommand("the others are answering the claim window on your discard", R_ANSWER)
        return IllegalCommand("a claim window is open: answer munt or pass", R_ANSWER)
    return IllegalCommand(f"it is {who(state, state.active)}'s turn, not {who(state, seat)}'s", R_TURN)


def _window_turn_start(state: UxState, seat: int, verb: str) -> bool:
    """Whether ``seat`` may draw/take now; True when it also closes a claim window."""
    phase = state.phase
    if phase is Phase.TURN:
        if seat != state.active:
            raise _not_your_turn(state, seat)
        return False
    if phase is Phase.DISCARD:
        if seat != state.active:
            raise _not_your_turn(state, seat)
        raise IllegalCommand(f"you already have six cards: discard, munt or eltiri (no {verb})", R_DISCARD)
    # claim window
    d = state.active
    nxt, other = (d + 1) % SEATS, (d + 2) % SEATS
    if seat != nxt:
        raise _not_your_turn(state, seat)
    if state.last_window:
        raise IllegalCommand(f"the stock is exhausted: no {verb}, answer munt or pass", R_LAST)
    if state.answers[nxt] is not None:
        raise IllegalCommand(f"wait for {who(state, other)} to answer the claim window", R_WINDOW)
    if state.answers[other] == "munt":
        raise IllegalCommand(
            f"{who(state, other)} has claimed munt on {state.discards[-1]}: answer munt or pass (no {verb}); "
            "the claims are judged once you answer",
            R_WINDOW,
        )
    if state.answers[other] != "pass":
        raise IllegalCommand(
            f"the claim window is open: answer munt or pass ({verb} counts as a pass only once "
            f"{who(state, other)} has passed)",
            R_WINDOW,
        )
    return True


def _check_draw(state: UxState, cmd: Command) -> list[Event]:
    window = _window_turn_start(state, cmd.seat, "draw")
    if len(state.stock) <= KEPT:
        raise IllegalCommand("the stock holds only the two cards never drawn", R_DRAW)
    return [Drew(seat=cmd.seat, card=state.stock[0], window_pass=window)]


def _check_take(state: UxState, cmd: Command) -> list[Event]:
    window = _window_turn_start(state, cmd.seat, "take")
    if not state.discards:
        raise IllegalCommand("the discard pile is empty", R_TAKE)
    return [Took(seat=cmd.seat, card=state.discards[-1], window_pass=window)]


def _own_six(state: UxState, seat: int, verb: str) -> None:
    if state.phase is not Phase.DISCARD or seat != state.active:
        if seat != state.active or state.phase is Phase.CLAIM:
            raise _not_your_turn(state, seat)
        raise IllegalCommand(f"draw or take first, then {verb}", R_ELTIRI_AFTER if verb == "eltiri" else R_DISCARD)


def _check_discard(state: UxState, cmd: Discard) -> list[Event]:
    _own_six(state, cmd.seat, "discard")
    card = cmd.card
    if not is_card(card):
        raise IllegalCommand(f"{card!r} is not a card of the Jx deck", R_DISCARD)
    if card in JX:
        raise IllegalCommand(f"{card} can never be discarded", R_JX)
    if card not in state.hands[cmd.seat]:
        raise IllegalCommand(f"you do not hold {card}", R_DISCARD)
    if card == state.taken:
        raise IllegalCommand(f"{card} was taken from the discard pile this turn: discard another card", R_TAKEN)
    return [Discarded(seat=cmd.seat, card=card)]


def _check_levu(state: UxState, cmd: Command) -> list[Event]:
    seat = cmd.seat
    if state.phase is Phase.CLAIM and seat != state.active:
        raise IllegalCommand(
            "a claim window is open: answer munt or pass first; levu works once your turn begins, after an "
            "explicit pass (when the window closes) or after you draw or take", R_LEVU_WINDOW)
    if state.phase is Phase.CLAIM or seat != state.active:
        raise _not_your_turn(state, seat)
    if state.first_turn_done[seat]:
        raise IllegalCommand("levu may be declared only during your first turn of the deal", R_LEVU)
    if seat in state.levu:
        raise IllegalCommand("you already declared levu this deal", R_LEVU)
    return [LevuDeclared(seat=seat)]


def _check_eltiri(state: UxState, cmd: Eltiri) -> list[Event]:
    _own_six(state, cmd.seat, "eltiri")
    card = cmd.card
    if card not in JX:
        raise IllegalCommand(f"eltiri exposes a PJ or an AJ, not {card!r}", R_ELTIRI_HELD)
    if card not in state.hands[cmd.seat]:
        raise IllegalCommand(f"you do not hold {card}: eltiri exposes a PJ or an AJ from your own hand",
                             R_ELTIRI_HELD)
    if len(state.stock) <= KEPT:
        raise IllegalCommand("the stock holds only the two cards never drawn: no replacement", R_ELTIRI)
    return [Exposed(seat=cmd.seat, card=card, replacement=state.stock[0])]


def _check_munt(state: UxState, cmd: Command) -> list[Event]:
    seat = cmd.seat
    if state.phase is Phase.DISCARD:
        if seat != state.active:
            raise IllegalCommand("munt out of turn only on a discard, in its claim window", R_MUNT)
        return [MuntDeclared(seat=seat)]
    if state.phase is Phase.CLAIM:
        if seat == state.active:
            raise IllegalCommand("you cannot claim your own discard", R_MUNT)
        if state.answers[seat] is not None:
            raise IllegalCommand("you already answered this claim window", R_ANSWER)
        return [MuntDeclared(seat=seat, claim=True)]
    if seat == state.active:
        raise IllegalCommand("draw or take first: munt needs six cards", R_MUNT)
    raise IllegalCommand("munt out of turn only on a discard, in its claim window", R_MUNT)


def _check_pass(state: UxState, cmd: Command) -> list[Event]:
    seat = cmd.seat
    if state.phase is not Phase.CLAIM:
        raise IllegalCommand("pass answers a claim window; there is none open", R_ANSWER)
    if seat == state.active:
        raise IllegalCommand("the discarder does not answer its own claim window", R_ANSWER)
    if state.answers[seat] is not None:
        raise IllegalCommand("you already answered this claim window", R_ANSWER)
    return [Passed(seat=seat)]


_CHECKS: dict[type, Callable[[UxState, Any], list[Event]]] = {
    Draw: _check_draw,
    Take: _check_take,
    Discard: _check_discard,
    Levu: _check_levu,
    Eltiri: _check_eltiri,
    Munt: _check_munt,
    Pass: _check_pass,
}


def candidates(state: UxState, seat: int) -> list[Command]:
    """Every command worth checking for ``seat`` now (a superset of the legal ones):
    only the verbs the phase can accept (``check`` refuses every other verb in it), so
    bots and rollouts do not build and refuse a dozen commands per turn. Nor the commands
    ``check`` is sure to refuse for the seat's own cards and turn: a levu after its
    first turn or a second levu, a Jx or the card just taken as a discard, an eltiri of
    a Jx not held."""
    phase = state.phase
    seated = 0 <= seat < SEATS
    levu = seated and not state.first_turn_done[seat] and seat not in state.levu
    if phase is Phase.TURN:
        return [Draw(seat=seat), Take(seat=seat), Levu(seat=seat)] if levu else [Draw(seat=seat), Take(seat=seat)]
    if phase is Phase.CLAIM:
        return [Draw(seat=seat), Take(seat=seat), Munt(seat=seat), Pass(seat=seat)]
    if phase is Phase.DISCARD:
        out: list[Command] = [Munt(seat=seat), Levu(seat=seat)] if levu else [Munt(seat=seat)]
        if seated:
            hand, taken = state.hands[seat], state.taken
            out.extend(Discard(seat=seat, card=c) for c in dict.fromkeys(hand) if c not in JX and c != taken)
            out.extend(Eltiri(seat=seat, card=c) for c in (PJX, AJX) if c in hand)
        return out
    return []  # between deals, judging, finished: only the table's deal


def every_candidate(state: UxState, seat: int) -> list[Command]:
    """Every player command ``seat`` could type now, whatever the phase (the tests hold
    ``candidates`` to it)."""
    out: list[Command] = [Draw(seat=seat), Take(seat=seat), Munt(seat=seat), Pass(seat=seat), Levu(seat=seat)]
    if 0 <= seat < SEATS:
        out.extend(Discard(seat=seat, card=c) for c in dict.fromkeys(state.hands[seat]))
    out.extend((Eltiri(seat=seat, card=PJX), Eltiri(seat=seat, card=AJX)))
    return out


#: the command each recorded action answers (``audit recheck`` re-judges it)
RECORDED: dict[type[Event], Callable[[Any], Command]] = {
    Drew: lambda e: Draw(seat=e.seat),
    Took: lambda e: Take(seat=e.seat),
    Discarded: lambda e: Discard(seat=e.seat, card=e.card),
    LevuDeclared: lambda e: Levu(seat=e.seat),
    Exposed: lambda e: Eltiri(seat=e.seat, card=e.card),
    MuntDeclared: lambda e: Munt(seat=e.seat),
    Passed: lambda e: Pass(seat=e.seat),
}
