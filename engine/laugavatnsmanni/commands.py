"""Laugavatnsmanni commands and the one checker that refuses them or lists them as legal.

``check`` both refuses commands and, run over every candidate, lists the legal ones,
so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any, ClassVar

from kartludo.engine.base import Command, IllegalCommand, StartDeal, check_deal
from kartludo.engine.commands import Arg, Card, Cards, Word
from kartludo.engine.french import DECK_52, is_card, sort_cards, suit
from kartludo.engine.laugavatnsmanni.rules import (
    DEAL_RULES,
    R_CHOOSE,
    R_COMMANDS,
    R_CONTRACTS,
    R_DEAL,
    R_DONE,
    R_EXCHANGE,
    R_FOLLOW,
    R_GREAT_NULLO,
    R_GREAT_ONCE,
    R_GREAT_ORDER,
    R_GREAT_RANK,
    R_GREAT_UNUSED,
    R_GREAT_WHEN,
    R_HOLD,
    R_HOLDS,
    R_LEAD,
    R_SCORE,
    R_SEATS,
    R_TURN,
    R_USED,
    name,
    next_dealer,
    unused,
)
from kartludo.engine.laugavatnsmanni.settle import automatic
from kartludo.engine.laugavatnsmanni.state import (
    CONTRACTS,
    GREAT_CONTRACTS,
    GREAT_RANK,
    MAX_EXCHANGE,
    SEATS,
    TRUMP,
    LvState,
    Phase,
)
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import (
    CardPlayed,
    ContractChosen,
    Exchanged,
    GreatCalled,
    GreatPassed,
    Held,
    Yielded,
)

CARDS_52 = "a card (rank A K Q J T 9 … 2 + suit S H D C, e.g. AS, TH, 2C)"


def read_card(word: str) -> str | None:
    code = word.upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    return code if is_card(code) else None



#: a contract's name; an unknown one is the rules' to refuse (§2)
CONTRACT = Word("contract", "contract", CONTRACTS, "hearts")


class Contract(Command, frozen=True, kw_only=True, tag="contract"):
    """The chooser names this deal's contract."""

    arguments: ClassVar[tuple[Arg, ...]] = (CONTRACT,)

    contract: str


class Great(Command, frozen=True, kw_only=True, tag="great"):
    """An opponent of the chooser calls great, naming a Grand or suit contract."""

    arguments: ClassVar[tuple[Arg, ...]] = (CONTRACT,)

    contract: str


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """An opponent of the chooser does not call great."""


class Hold(Command, frozen=True, kw_only=True, tag="hold"):
    """The chooser becomes the great declarer of this contract."""

    arguments: ClassVar[tuple[Arg, ...]] = (CONTRACT,)

    contract: str


class Yield(Command, frozen=True, kw_only=True, tag="yield"):
    """The chooser lets the last great caller play."""


class Exchange(Command, frozen=True, kw_only=True, tag="exchange"):
    """The declarer discards these cards (0-4) and takes as many from the Manni.

    ``parse`` lists distinct cards in hand order, as ``legal_commands`` does."""

    arguments: ClassVar[tuple[Arg, ...]] = (Cards("cards", read_card, CARDS_52, "3D 2C", order=sort_cards),)

    cards: tuple[str, ...] = ()


class Play(Command, frozen=True, kw_only=True, tag="play"):
    """Play a card to the trick."""

    arguments: ClassVar[tuple[Arg, ...]] = (Card("card", read_card, CARDS_52, "AS"),)

    card: str


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Contract, Great, Pass, Hold, Yield, Exchange, Play)


def check(state: LvState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return check_deal(state, cmd, deck=DECK_52, rules=DEAL_RULES, dealer=next_dealer(state), pending=automatic)
    phase = state.phase
    if phase is Phase.FINISHED:
        raise IllegalCommand("the match is over", R_DONE)
    if not 0 <= cmd.seat < SEATS:
        raise IllegalCommand(f"there is no seat {cmd.seat} (seats 0-2)", R_SEATS)
    if phase is Phase.WAITING_DEAL:
        raise IllegalCommand("no deal is in progress: the next deal must be dealt first", R_DEAL)
    if phase is Phase.SCORING:
        raise IllegalCommand("the deal is being scored", R_SCORE)
    check = _CHECKS.get(type(cmd))
    if check is None:
        raise IllegalCommand(f"{cmd.text()!r} is not a Laugavatnsmanni command", R_COMMANDS)
    return check(state, cmd)



def _known(contract: str) -> None:
    if contract not in TRUMP:
        raise IllegalCommand(f"there is no contract {contract!r} (contracts: {', '.join(CONTRACTS)})", R_CONTRACTS)


def _check_contract(state: LvState, cmd: Contract) -> list[Event]:
    seat = cmd.seat
    if state.phase is not Phase.CONTRACT:
        raise IllegalCommand(f"the contract of deal {state.deal} is already chosen ({state.chosen})", R_CHOOSE)
    if seat != state.turn:
        raise IllegalCommand(
            f"{name(state, state.turn)}, left of the dealer, chooses the contract, not {name(state, seat)}", R_CHOOSE
        )
    _known(cmd.contract)
    if cmd.contract in state.used[seat]:
        raise IllegalCommand(
            f"you already chose {cmd.contract} in this match (still to choose: {', '.join(unused(state, seat))})",
            R_USED,
        )
    return [ContractChosen(seat=seat, contract=cmd.contract)]


def _great_round(state: LvState, seat: int, verb: str) -> None:
    """Refuse ``verb`` (great or pass) unless it is ``seat``'s turn in the great-call round."""
    phase = state.phase
    if phase is not Phase.GREAT:
        if state.chosen == "nullo" and phase in (Phase.EXCHANGE, Phase.PLAY):
            raise IllegalCommand(f"no great call over Nullo (no {verb})", R_GREAT_NULLO)
        if phase is Phase.HOLD:
            if seat == state.chooser:
                raise IllegalCommand(f"answer the great call with hold CONTRACT or yield (no {verb})", R_HOLD)
            raise IllegalCommand(f"the great-call round is over: {name(state, state.chooser)} holds or yields", R_HOLD)
        raise IllegalCommand(f"{verb} belongs to the great-call round, right after a Grand or suit contract",
                             R_GREAT_WHEN)
    if seat == state.chooser:
        raise IllegalCommand(
            "the chooser does not call great: the opponents call first, then the chooser may hold or yield",
            R_GREAT_ORDER,
        )
    if seat != state.turn:
        raise IllegalCommand(f"it is {name(state, state.turn)}'s turn to call great or pass", R_GREAT_ORDER)


def _check_great(state: LvState, cmd: Great) -> list[Event]:
    seat = cmd.seat
    _great_round(state, seat, "great call")
    if state.great_used[seat]:
        raise IllegalCommand("you already made your great call in this match (one per player): pass", R_GREAT_ONCE)
    contract = cmd.contract
    if contract == "nullo":
        raise IllegalCommand("Nullo is never a great contract", R_GREAT_NULLO)
    _known(contract)
    _not_chosen(state, seat, contract, "great call", "pass")
    current = state.great_contract
    if current is not None:
        if GREAT_RANK[contract] <= GREAT_RANK[current]:
            raise IllegalCommand(
                f"great {current} was already called: a later great call must name a higher contract", R_GREAT_RANK
            )
    elif GREAT_RANK[contract] < GREAT_RANK[state.chosen or "clubs"]:
        raise IllegalCommand(
            f"a great call names a contract ranked at least as high as {state.chosen}", R_GREAT_RANK
        )
    return [GreatCalled(seat=seat, contract=contract)]


def _great_floor(state: LvState, seat: int) -> int:
    """The lowest great rank ``seat`` may name now: at least the chosen contract for the
    first great call and for a hold over it, above the last great call for a later caller."""
    current = state.great_contract
    if current is None:
        return GREAT_RANK[state.chosen or "clubs"]
    return GREAT_RANK[current] + (seat != state.chooser)


def _not_chosen(state: LvState, seat: int, contract: str, what: str, instead: str) -> None:
    """Refuse a great call or hold naming a contract ``seat`` has already chosen as chooser
    (the chooser's contract of this deal included)."""
    if contract not in state.used[seat]:
        return
    floor = _great_floor(state, seat)
    left = [c for c in GREAT_CONTRACTS if c not in state.used[seat] and GREAT_RANK[c] >= floor]
    tail = "" if left else f", and none is left to you: {instead}"
    raise IllegalCommand(
        f"you already chose {contract} in this match: a {what} names a contract you have not chosen{tail}",
        R_GREAT_UNUSED,
    )


def _check_pass(state: LvState, cmd: Pass) -> list[Event]:
    _great_round(state, cmd.seat, "pass")
    return [GreatPassed(seat=cmd.seat)]


def _hold_answer(state: LvState, seat: int, verb: str) -> None:
    if state.phase is not Phase.HOLD:
        if state.chosen == "nullo" and state.phase in (Phase.EXCHANGE, Phase.PLAY):
            raise IllegalCommand(f"no great call over Nullo, so nothing to {verb}", R_GREAT_NULLO)
        if state.phase is not Phase.GREAT:
            raise IllegalCommand(f"{verb} answers a great call after the great-call round; there is none to answer",
                                 R_HOLD)
    if seat != state.chooser:
        raise IllegalCommand(f"only the chooser, {name(state, state.chooser)}, may {verb}", R_HOLD)
    if state.phase is Phase.GREAT:  # the opponents have not all answered yet
        turn = name(state, state.turn)
        if state.great_calls:
            raise IllegalCommand(
                f"{turn} must first answer the great call (great or pass); then {name(state, seat)} may {verb}",
                R_GREAT_ORDER,
            )
        raise IllegalCommand(f"nobody has called great yet: {turn} calls great or passes first", R_GREAT_ORDER)


def _check_hold(state: LvState, cmd: Hold) -> list[Event]:
    seat = cmd.seat
    _hold_answer(state, seat, "hold")
    if state.great_used[seat]:
        raise IllegalCommand("you already made your great call in this match, so you cannot hold: yield",
                             R_GREAT_ONCE)
    if cmd.contract == "nullo":
        raise IllegalCommand("Nullo is never a great contract", R_GREAT_NULLO)
    _known(cmd.contract)
    _not_chosen(state, seat, cmd.contract, "hold", "yield")
    current = state.great_contract or "clubs"
    if GREAT_RANK[cmd.contract] < GREAT_RANK[current]:
        raise IllegalCommand(f"a hold names a contract ranked at least as high as great {current}", R_HOLD)
    return [Held(seat=seat, contract=cmd.contract)]


def _check_yield(state: LvState, cmd: Yield) -> list[Event]:
    _hold_answer(state, cmd.seat, "yield")
    return [Yielded(seat=cmd.seat)]


def _check_exchange(state: LvState, cmd: Exchange) -> list[Event]:
    seat = cmd.seat
    if state.phase is not Phase.EXCHANGE:
        if state.phase is Phase.PLAY:
            raise IllegalCommand("the Manni exchange is over: the tricks are being played", R_EXCHANGE)
        raise IllegalCommand("the exchange comes once the contract and any great calls are settled", R_EXCHANGE)
    if seat != state.declarer:
        raise IllegalCommand(f"only the declarer, {name(state, state.declarer)}, exchanges with the Manni",
                             R_EXCHANGE)
    cards = cmd.cards
    if len(cards) > MAX_EXCHANGE:
        raise IllegalCommand(f"at most {MAX_EXCHANGE} cards may be exchanged ({len(cards)} given)", R_EXCHANGE)
    if len(set(cards)) != len(cards):
        twice = sorted({c for c in cards if cards.count(c) > 1})
        raise IllegalCommand(f"{' '.join(twice)} listed twice", R_EXCHANGE)
    hand = state.hands[seat]
    missing = [c for c in cards if c not in hand]
    if missing:
        raise IllegalCommand(f"you do not hold {' '.join(missing)}", R_EXCHANGE)
    discards = list(sort_cards(cards))
    return [Exchanged(seat=seat, discards=discards, taken=list(state.manni[: len(discards)]))]


def _check_play(state: LvState, cmd: Play) -> list[Event]:
    seat = cmd.seat
    if state.phase is not Phase.PLAY:
        if state.phase is Phase.EXCHANGE:
            raise IllegalCommand(f"the declarer, {name(state, state.declarer)}, exchanges with the Manni first",
                                 R_EXCHANGE)
        raise IllegalCommand("no trick is being played: the contract is not settled yet", R_LEAD)
    if seat != state.turn:
        if not state.trick:
            who = "the declarer " if state.tricks_played == 0 else "the last trick's winner "
            raise IllegalCommand(f"{who}{name(state, state.turn)} leads, not {name(state, seat)}", R_LEAD)
        raise IllegalCommand(f"it is {name(state, state.turn)}'s turn to play, not {name(state, seat)}'s", R_TURN)
    hand = state.hands[seat]
    card = cmd.card
    if card not in hand:
        raise IllegalCommand(f"you do not hold {card}", R_HOLDS)
    if state.trick:
        led = suit(state.trick[0])
        if suit(card) != led:
            follow = [c for c in hand if suit(c) == led]
            if follow:
                raise IllegalCommand(
                    f"you must follow suit ({state.trick[0]} was led): you hold {' '.join(follow)}", R_FOLLOW
                )
    return [CardPlayed(seat=seat, card=card)]


_CHECKS: dict[type, Callable[[LvState, Any], list[Event]]] = {
    Contract: _check_contract,
    Great: _check_great,
    Pass: _check_pass,
    Hold: _check_hold,
    Yield: _check_yield,
    Exchange: _check_exchange,
    Play: _check_play,
}


def candidates(state: LvState, seat: int) -> list[Command]:
    """Every command worth checking for ``seat`` now (a superset of the legal ones)."""
    phase = state.phase
    if phase is Phase.CONTRACT:
        return [Contract(seat=seat, contract=c) for c in CONTRACTS]
    if phase is Phase.GREAT:
        return [Pass(seat=seat), *(Great(seat=seat, contract=c) for c in CONTRACTS)]
    if phase is Phase.HOLD:
        return [Yield(seat=seat), *(Hold(seat=seat, contract=c) for c in CONTRACTS)]
    hand = state.hands[seat] if 0 <= seat < SEATS else ()
    if phase is Phase.EXCHANGE:
        return [Exchange(seat=seat, cards=combo) for k in range(MAX_EXCHANGE + 1) for combo in combinations(hand, k)]
    if phase is Phase.PLAY:
        return [Play(seat=seat, card=c) for c in hand]
    return []



#: the command each recorded action answers (``audit recheck`` re-judges it)
RECORDED: dict[type[Event], Callable[[Any], Command]] = {
    ContractChosen: lambda e: Contract(seat=e.seat, contract=e.contract),
    GreatCalled: lambda e: Great(seat=e.seat, contract=e.contract),
    GreatPassed: lambda e: Pass(seat=e.seat),
    Held: lambda e: Hold(seat=e.seat, contract=e.contract),
    Yielded: lambda e: Yield(seat=e.seat),
    Exchanged: lambda e: Exchange(seat=e.seat, cards=tuple(e.discards)),
    CardPlayed: lambda e: Play(seat=e.seat, card=e.card),
}


