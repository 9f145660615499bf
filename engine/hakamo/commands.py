"""Hakamo commands and the one checker that refuses them or lists them as legal.

``check`` both refuses commands and, run over every candidate, lists the legal ones,
so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from kartludo.engine.base import Command, IllegalCommand, StartDeal, check_deal
from kartludo.engine.commands import Arg, Card, Choice, Number, Sided
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.rules import (
    DEAL_RULES,
    R_AUCTION,
    R_BID,
    R_C,
    R_DEAL,
    R_DECLARE,
    R_DONE,
    R_FOLLOW,
    R_HELD,
    R_KASX,
    R_KUNULO,
    R_LAY,
    R_LAY_C,
    R_LEAD_JX,
    R_MAX,
    R_NO_KUNULO,
    R_PASS_FINAL,
    R_SETUP,
    R_SHARE,
    R_SHARE_TURN,
    R_TURN,
    lead_colour,
    next_dealer,
    to_act,
    who,
)
from kartludo.engine.hakamo.settle import automatic
from kartludo.engine.hakamo.state import MAX_BID, MIN_BID, SEAT_LABELS, SEATS, HkState, Phase
from kartludo.engine.jx import CENTRO, JX_DECK, colour, is_card
from kartludo.engine.phases import phase_words
from kartludo.events import hakamo as ev
from kartludo.events.base import Event

JX_CARDS = "a Jx card (R1…B9, RX GX BX, RV GV BV, C, PJ, AJ)"


def read_card(word: str) -> str | None:
    code = word.upper()
    return code if is_card(code) else None



class Bid(Command, frozen=True, kw_only=True, tag="bid"):
    """A GV bid in the auction for Deklaristo, or a share bid in the Kunulo auction."""

    arguments: ClassVar[tuple[Arg, ...]] = (Number("amount", 15),)

    amount: int


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """A final pass in either auction."""


class Keep(Command, frozen=True, kw_only=True, tag="keep"):
    """Keep the Kasxetoj unseen (both count as face down)."""


class Exchange(Command, frozen=True, kw_only=True, tag="exchange"):
    """Take the Kasxetoj into the hand, then ``lay`` two cards back."""


class Lay(Command, frozen=True, kw_only=True, tag="lay"):
    """Lay the new Kasxetoj: ``lay RX:up G3:down`` (upper first)."""

    arguments: ClassVar[tuple[Arg, ...]] = (
        Sided("upper", "upper_up", read_card, JX_CARDS, "RX:up", about=" (CARD:up or CARD:down, upper first)"),
        Sided("lower", "lower_up", read_card, JX_CARDS, "G3:down"),
    )

    upper: str
    upper_up: bool
    lower: str
    lower_up: bool


class Solo(Command, frozen=True, kw_only=True, tag="solo"):
    """Play without a Kunulo."""


class Recruit(Command, frozen=True, kw_only=True, tag="recruit"):
    """Open the descending auction for a Kunulo."""


class Resign(Command, frozen=True, kw_only=True, tag="resign"):
    """Give up the deal after nobody offered to be Kunulo."""


class Declare(Command, frozen=True, kw_only=True, tag="declare"):
    """Predict the Hakamisto: a seat (``declare Su``) or ``declare malhakama``."""

    arguments: ClassVar[tuple[Arg, ...]] = (
        Choice("target", "seat", {**{seat: i for i, seat in enumerate(SEAT_LABELS)}, "malhakama": None},
               f" ({', '.join(SEAT_LABELS)}) or malhakama", "Su"),
    )

    target: int | None


class Play(Command, frozen=True, kw_only=True, tag="play"):
    """Play a card to the trick."""

    arguments: ClassVar[tuple[Arg, ...]] = (Card("card", read_card, JX_CARDS, "B7"),)

    card: str


COMMAND_TYPES: tuple[type[Command], ...] = (
    StartDeal, Bid, Pass, Keep, Exchange, Lay, Solo, Recruit, Resign, Declare, Play,
)


_PHASE_VERBS: dict[Phase, tuple[tuple[type, ...], str, str]] = {
    Phase.AUCTION: ((Bid, Pass), "bid N or pass", R_AUCTION),
    Phase.KASXETOJ: ((Keep, Exchange), "keep or exchange", R_KASX),
    Phase.LAY: ((Lay,), "lay CARD:up|down CARD:up|down", R_LAY),
    Phase.KUNULO: ((Solo, Recruit), "solo or recruit", R_KUNULO),
    Phase.SHARES: ((Bid, Pass), "bid N (a share) or pass", R_SHARE_TURN),
    Phase.NO_KUNULO: ((Solo, Resign), "solo or resign", R_NO_KUNULO),
    Phase.DECLARATION: ((Declare,), "declare SEAT or declare malhakama", R_DECLARE),
    Phase.TRICKS: ((Play,), "play CARD", R_TURN),
}

_WHAT = {
    Phase.AUCTION: "to bid or pass",
    Phase.KASXETOJ: "the Deklaristo keeps or exchanges",
    Phase.LAY: "the Deklaristo lays the Kasxetoj",
    Phase.KUNULO: "the Deklaristo chooses solo or recruit",
    Phase.SHARES: "to bid a share or pass",
    Phase.NO_KUNULO: "the Deklaristo chooses solo or resign",
    Phase.DECLARATION: "the Deklaristo declares",
    Phase.TRICKS: "to play",
}


def check(state: HkState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return check_deal(state, cmd, deck=JX_DECK, rules=DEAL_RULES, dealer=next_dealer(state), pending=automatic)
    phase = state.phase
    if phase is Phase.FINISHED:
        raise IllegalCommand("the match is over", R_DONE)
    seat = cmd.seat
    if not 0 <= seat < SEATS:
        raise IllegalCommand(f"there is no seat {seat} (seats 0-3: Or, Su, Ok, No)", R_SETUP)
    if phase is Phase.WAITING_DEAL:
        raise IllegalCommand("no deal is in progress: the next deal must be dealt first", R_DEAL)
    if phase is Phase.PASSED_OUT or phase is Phase.SCORING:
        raise IllegalCommand("the deal is being settled", "hakamo §6, §7 (the engine counts and scores the deal)")
    allowed, verbs, rule = _PHASE_VERBS[phase]
    acting = to_act(state)
    if seat not in acting:
        if phase is Phase.AUCTION and state.passed[seat] or phase is Phase.SHARES and state.share_passed[seat]:
            if seat == state.deklaristo:
                raise IllegalCommand("the Deklaristo does not bid for Kunulo", R_SHARE_TURN)
            raise IllegalCommand("you passed, and a pass is final",
                                 R_PASS_FINAL if phase is Phase.AUCTION else R_SHARE_TURN)
        whose = who(state, acting[0]) if acting else "nobody"
        raise IllegalCommand(f"it is {whose}'s turn ({_WHAT[phase]}), not {who(state, seat)}'s", rule)
    if not isinstance(cmd, allowed):
        raise IllegalCommand(f"{cmd.text()!r} is not possible now ({phase_words(phase.value)}): {verbs}", rule)
    return _CHECKS[phase](state, cmd)



def _check_auction(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Pass):
        return [ev.Passed(seat=cmd.seat)]
    assert isinstance(cmd, Bid)
    amount = cmd.amount
    if amount < MIN_BID:
        raise IllegalCommand(f"a bid is at least {MIN_BID}, not {amount}", R_BID)
    if amount <= state.high:
        raise IllegalCommand(
            f"{who(state, state.high_seat)} bid {state.high}: bid at least {state.high + 1} or pass", R_BID
        )
    if amount > MAX_BID:
        raise IllegalCommand(f"a bid is at most {MAX_BID}, not {amount} (the project's bound on bids)", R_MAX)
    return [ev.Bid(seat=cmd.seat, amount=amount)]


def _check_kasxetoj(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Keep):
        return [ev.KasxetojKept(seat=cmd.seat)]
    return [ev.KasxetojTaken(seat=cmd.seat, cards=list(state.kasxetoj))]


def _check_lay(state: HkState, cmd: Lay) -> list[Event]:
    hand = state.hands[cmd.seat]
    need = [cmd.upper, cmd.lower]
    for card in dict.fromkeys(need):
        if hand.count(card) < need.count(card):
            have = "only one" if hand.count(card) == 1 else "no"
            raise IllegalCommand(f"you hold {have} {card}", R_LAY)
    if cmd.upper == CENTRO and cmd.upper_up or cmd.lower == CENTRO and cmd.lower_up:
        raise IllegalCommand("C may only be laid face down", R_LAY_C)
    return [ev.KasxetojLaid(seat=cmd.seat, upper=cmd.upper, upper_up=cmd.upper_up, lower=cmd.lower,
                            lower_up=cmd.lower_up)]


def _check_kunulo(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Solo):
        return [ev.Solo(seat=cmd.seat)]
    return [ev.Recruited(seat=cmd.seat)]


def max_share(state: HkState) -> int:
    return state.contract // 2


def _check_shares(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Pass):
        return [ev.SharePassed(seat=cmd.seat)]
    assert isinstance(cmd, Bid)
    share = cmd.amount
    top = max_share(state)
    if share < 1:
        raise IllegalCommand(f"a share bid is at least 1, not {share}", R_SHARE)
    if share > top:
        raise IllegalCommand(f"a share bid is at most half the contract {state.contract}: {top}, not {share}", R_SHARE)
    if state.share_low and share > state.share_low - 1:
        raise IllegalCommand(
            f"{who(state, state.share_seat)} bid {state.share_low}: bid at most {state.share_low - 1} or pass", R_SHARE
        )
    return [ev.ShareBid(seat=cmd.seat, share=share)]


def _check_no_kunulo(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Solo):
        return [ev.Solo(seat=cmd.seat)]
    return [ev.Resigned(seat=cmd.seat)]


def _check_declare(state: HkState, cmd: Declare) -> list[Event]:
    if cmd.target is not None and not 0 <= cmd.target < SEATS:
        raise IllegalCommand(f"there is no seat {cmd.target} to declare", R_DECLARE)
    return [ev.Declared(seat=cmd.seat, target=cmd.target)]


def _check_play(state: HkState, cmd: Play) -> list[Event]:
    card = cmd.card
    hand = state.hands[cmd.seat]
    if card not in hand:
        raise IllegalCommand(f"you do not hold {card}", R_HELD)
    copy = state.copy
    if not hc.playable(card, copy):
        raise IllegalCommand("C cannot be played: both Kasxetoj lie face down", R_C)
    f = hc.face(card, copy)
    lead = lead_colour(state)
    as_ = f" (C as {f})" if card == CENTRO else ""
    if lead is None:
        if hc.is_jx_face(f):
            raise IllegalCommand(f"{card}{as_} cannot be led: Jx are never led", R_LEAD_JX)
    elif colour(f) != lead and not hc.is_jx_face(f):
        follow = [c for c in hand if hc.playable(c, copy) and colour(hc.face(c, copy)) == lead]
        if follow:
            raise IllegalCommand(
                f"you must follow {lead} ({' '.join(dict.fromkeys(follow))}) or play a Jx, not {card}{as_}", R_FOLLOW
            )
    return [ev.Played(seat=cmd.seat, card=card)]


_CHECKS: dict[Phase, Callable[[HkState, Any], list[Event]]] = {
    Phase.AUCTION: _check_auction,
    Phase.KASXETOJ: _check_kasxetoj,
    Phase.LAY: _check_lay,
    Phase.KUNULO: _check_kunulo,
    Phase.SHARES: _check_shares,
    Phase.NO_KUNULO: _check_no_kunulo,
    Phase.DECLARATION: _check_declare,
    Phase.TRICKS: _check_play,
}


def candidates(state: HkState, seat: int) -> list[Command]:
    """Every command worth checking for ``seat`` now (a superset of the legal ones)."""
    phase = state.phase
    if phase is Phase.AUCTION:
        return [Pass(seat=seat), *(Bid(seat=seat, amount=n) for n in range(MIN_BID, MAX_BID + 1))]
    if phase is Phase.SHARES:
        return [Pass(seat=seat), *(Bid(seat=seat, amount=n) for n in range(1, max_share(state) + 1))]
    if phase is Phase.KASXETOJ:
        return [Keep(seat=seat), Exchange(seat=seat)]
    if phase is Phase.KUNULO or phase is Phase.NO_KUNULO:
        return [Solo(seat=seat), Recruit(seat=seat), Resign(seat=seat)]
    if phase is Phase.DECLARATION:
        return [Declare(seat=seat, target=t) for t in (*range(SEATS), None)]
    if phase is Phase.TRICKS:
        return [Play(seat=seat, card=c) for c in dict.fromkeys(state.hands[seat])]
    if phase is Phase.LAY:
        hand = state.hands[seat]
        out: list[Command] = []
        for u in dict.fromkeys(hand):
            for lo in dict.fromkeys(hand):
                if u == lo and hand.count(u) < 2:
                    continue
                for uu in (True, False):
                    for lu in (True, False):
                        out.append(Lay(seat=seat, upper=u, upper_up=uu, lower=lo, lower_up=lu))
        return out
    return []



#: the command each recorded action answers (``audit recheck`` re-judges it)
RECORDED: dict[type[Event], Callable[[Any], Command]] = {
    ev.Bid: lambda e: Bid(seat=e.seat, amount=e.amount),
    ev.Passed: lambda e: Pass(seat=e.seat),
    ev.KasxetojKept: lambda e: Keep(seat=e.seat),
    ev.KasxetojTaken: lambda e: Exchange(seat=e.seat),
    ev.KasxetojLaid: lambda e: Lay(seat=e.seat, upper=e.upper, upper_up=e.upper_up, lower=e.lower,
                                   lower_up=e.lower_up),
    ev.Solo: lambda e: Solo(seat=e.seat),
    ev.Recruited: lambda e: Recruit(seat=e.seat),
    ev.ShareBid: lambda e: Bid(seat=e.seat, amount=e.share),
    ev.SharePassed: lambda e: Pass(seat=e.seat),
    ev.Resigned: lambda e: Resign(seat=e.seat),
    ev.Declared: lambda e: Declare(seat=e.seat, target=e.target),
    ev.Played: lambda e: Play(seat=e.seat, card=e.card),
}


