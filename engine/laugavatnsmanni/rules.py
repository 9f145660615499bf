"""Laugavatnsmanni rules: commands, ``decide``, ``evolve``, ``automatic`` and legality.

One checker (``_check``) both refuses commands and, run over every candidate,
lists the legal ones, so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import msgspec
from kartludo.engine.base import (
    accepted,
    deal_command,
    decide_with,
    Command,
    IllegalCommand,
    StartDeal,
    check_deck,
    ranks_from_scores,
)
from kartludo.engine.french import DECK_52, sort_cards, suit, value
from kartludo.engine.laugavatnsmanni.state import (
    CONTRACTS,
    GREAT_CONTRACTS,
    GREAT_RANK,
    HAND,
    MANNI,
    MAX_EXCHANGE,
    SEATS,
    TRICKS,
    TRUMP,
    LvState,
    Phase,
)
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import (
    CardPlayed,
    ContractChosen,
    DealScored,
    Exchanged,
    GreatCalled,
    GreatPassed,
    Held,
    MatchEnded,
    SeatScore,
    TrickWon,
    Yielded,
)
from kartludo.events.match import DealStarted, MatchCreated

_replace = msgspec.structs.replace

# --- commands --------------------------------------------------------------------


class Contract(Command, frozen=True, kw_only=True, tag="contract"):
    """The chooser names this deal's contract."""

    contract: str

    def args(self) -> list[str]:
        return [self.contract]


class Great(Command, frozen=True, kw_only=True, tag="great"):
    """An opponent of the chooser calls great, naming a Grand or suit contract."""

    contract: str

    def args(self) -> list[str]:
        return [self.contract]


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """An opponent of the chooser does not call great."""


class Hold(Command, frozen=True, kw_only=True, tag="hold"):
    """The chooser becomes the great declarer of this contract."""

    contract: str

    def args(self) -> list[str]:
        return [self.contract]


class Yield(Command, frozen=True, kw_only=True, tag="yield"):
    """The chooser lets the last great caller play."""


class Exchange(Command, frozen=True, kw_only=True, tag="exchange"):
    """The declarer discards these cards (0-4) and takes as many from the Manni.

    ``parse_command`` lists the cards in hand order, as ``legal_commands`` does."""

    cards: tuple[str, ...] = ()

    def args(self) -> list[str]:
        return list(self.cards)


class Play(Command, frozen=True, kw_only=True, tag="play"):
    card: str

    def args(self) -> list[str]:
        return [self.card]


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Contract, Great, Pass, Hold, Yield, Exchange, Play)

# --- rule references (cited by refusals and settlements) ---------------------------

R_SEATS = "laugavatnsmanni §1 (three players, seats 0-2 clockwise)"
R_DEAL = "laugavatnsmanni §1 (a deal is played out before the next is dealt)"
R_DECK = "laugavatnsmanni §1 (a listed deck is the 52-card pack, top first)"
R_COMMANDS = "laugavatnsmanni §Commands"
R_DONE = "laugavatnsmanni §1 match end (after the deal reaching the target total, or after the last deal)"
R_CHOOSE = "laugavatnsmanni §2 (the player left of the dealer chooses the contract)"
R_USED = "laugavatnsmanni §2 (each player chooses each of the six contracts exactly once)"
R_CONTRACTS = "laugavatnsmanni §2 (the six contracts: nullo, grand, spades, hearts, diamonds, clubs)"
R_GREAT_WHEN = (
    "laugavatnsmanni §3 (RULING: great calls come right after a Grand or suit contract is chosen, "
    "before the exchange)"
)
R_GREAT_NULLO = "laugavatnsmanni §3 (RULING: never a great call over Nullo; Nullo is never a great contract)"
R_GREAT_ORDER = (
    "laugavatnsmanni §3 (RULING: the chooser's two opponents, clockwise from the chooser's left, "
    "each call great or pass)"
)
R_GREAT_ONCE = "laugavatnsmanni §3 (RULING: one great call per player per match; a hold uses it too)"
R_GREAT_RANK = (
    "laugavatnsmanni §3 (RULING: Grand > Hearts > Spades > Diamonds > Clubs; the first caller names a "
    "contract at least as high as the chosen one, a later caller a strictly higher one)"
)
R_GREAT_UNUSED = (
    "laugavatnsmanni §3 (RULING: a great call or a hold names a suit or Grand contract the caller has not yet "
    "chosen as chooser in this match)"
)
R_HOLD = (
    "laugavatnsmanni §3 (RULING: after a great call the chooser holds, naming a contract at least as "
    "high as the great one, or yields)"
)
R_EXCHANGE = "laugavatnsmanni §4 (RULING: only the declarer exchanges, 0-4 cards, discarding first, blind)"
R_LEAD = "laugavatnsmanni §4 (RULING: the declarer leads the first trick; each trick's winner leads the next)"
R_TURN = "laugavatnsmanni §4 (play goes clockwise from the trick's leader)"
R_HOLDS = "laugavatnsmanni §4 (a player plays a card from their hand)"
R_FOLLOW = "laugavatnsmanni §4 must follow suit (a void player may play any card)"
R_SCORE = "laugavatnsmanni §5 (the deal is scored after its 16 tricks)"

RULING_52 = "RULING §1: the full 52-card pack, 16 cards each and a 4-card Manni, 16 tricks"
RULING_LEAD = "RULING §4: the declarer leads the first trick"
RULING_BLIND = "RULING §4: the Manni exchange is blind (discards first, then the Manni's top cards unseen)"
RULING_GREAT = (
    "RULING §3: great calls by the chooser's opponents in turn (the first at least the chosen contract, "
    "a later one higher), then the chooser's hold or yield"
)
RULING_CHOSEN = "RULING §2: the chooser's contract counts as chosen even when the deal becomes a great contract"


# --- small helpers -----------------------------------------------------------------


def name(state: LvState, seat: int | None) -> str:
    if seat is None or not 0 <= seat < SEATS:
        return str(seat)
    return state.players[seat]


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _without(hand: tuple[str, ...], cards) -> tuple[str, ...]:
    gone = set(cards)
    return tuple(c for c in hand if c not in gone)


def next_dealer(state: LvState) -> int:
    return 0 if state.deal == 0 else (state.dealer + 1) % SEATS


def can_deal(state: LvState) -> bool:
    return state.phase is Phase.WAITING_DEAL


def to_act(state: LvState) -> list[int]:
    if state.phase in _ACTING and state.turn >= 0:
        return [state.turn]
    return []


_ACTING = frozenset((Phase.CONTRACT, Phase.GREAT, Phase.HOLD, Phase.EXCHANGE, Phase.PLAY))


def beats(card: str, best: str, trump: str | None) -> bool:
    """Whether ``card`` beats the trick's ``best`` card so far (which is of the suit
    led or a trump)."""
    if suit(card) == suit(best):
        return value(card) > value(best)
    return suit(card) == trump


def trick_winner(leader: int, cards: tuple[str, ...] | list[str], trump: str | None) -> tuple[int, str]:
    """The seat taking a trick (``cards`` in play order from ``leader``) and its card."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    return (leader + best) % SEATS, cards[best]


def unused(state: LvState, seat: int) -> list[str]:
    return [c for c in CONTRACTS if c not in state.used[seat]]


# --- decide ----------------------------------------------------------------------


def decide(state: LvState, command: Command) -> list[Event]:
    return decide_with(_check, evolve, automatic, state, command)


def _check(state: LvState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return _check_deal(state, cmd)
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


def _check_deal(state: LvState, cmd: StartDeal) -> list[Event]:
    if state.phase is Phase.FINISHED:
        raise IllegalCommand("the match is over: no further deal", R_DONE)
    if not can_deal(state):
        raise IllegalCommand(f"deal {state.deal} is still in progress", R_DEAL)
    check_deck(cmd.deck, DECK_52, R_DECK)
    return [DealStarted(deal=state.deal + 1, dealer=next_dealer(state), deck=list(cmd.deck), shuffle=cmd.shuffle)]


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


def legal_commands(state: LvState, seat: int) -> list[Command]:
    if seat not in to_act(state):
        return []
    return accepted(_check, state, candidates(state, seat))


_COMMAND_FOR: dict[type, Callable[[Any], Command]] = {
    DealStarted: deal_command,
    ContractChosen: lambda e: Contract(seat=e.seat, contract=e.contract),
    GreatCalled: lambda e: Great(seat=e.seat, contract=e.contract),
    GreatPassed: lambda e: Pass(seat=e.seat),
    Held: lambda e: Hold(seat=e.seat, contract=e.contract),
    Yielded: lambda e: Yield(seat=e.seat),
    Exchanged: lambda e: Exchange(seat=e.seat, cards=tuple(e.discards)),
    CardPlayed: lambda e: Play(seat=e.seat, card=e.card),
}


def command_for(event: Event) -> Command | None:
    make = _COMMAND_FOR.get(type(event))
    return None if make is None else make(event)


# --- evolve ----------------------------------------------------------------------


def evolve(state: LvState, event: Event) -> LvState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: LvState, e: DealStarted) -> LvState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], []]
    for i in range(HAND * SEATS):
        hands[(dealer + 1 + i // 4) % SEATS].append(deck[i])
    chooser = (dealer + 1) % SEATS
    return _replace(
        s,
        phase=Phase.CONTRACT,
        deal=e.deal,
        dealer=dealer,
        chooser=chooser,
        turn=chooser,
        hands=tuple(sort_cards(h) for h in hands),
        manni=tuple(deck[HAND * SEATS : HAND * SEATS + MANNI]),
        discards=(),
        exchanged=None,
        chosen=None,
        contract=None,
        great_calls=(),
        great=False,
        held=False,
        declarer=None,
        leader=-1,
        trick=(),
        won=((), (), ()),
        tricks_played=0,
        last_trick=None,
        scores=None,
    )


def _contract_chosen(s: LvState, e: ContractChosen) -> LvState:
    seat = e.seat
    used = _put(s.used, seat, s.used[seat] + (e.contract,))
    if e.contract == "nullo":
        return _replace(s, used=used, chosen=e.contract, contract=e.contract, phase=Phase.EXCHANGE,
                        declarer=seat, turn=seat)
    return _replace(s, used=used, chosen=e.contract, contract=e.contract, phase=Phase.GREAT,
                    turn=(seat + 1) % SEATS)


def _great_answered(s: LvState, seat: int) -> LvState:
    if seat == (s.chooser + 1) % SEATS:
        return _replace(s, turn=(seat + 1) % SEATS)
    if s.great_calls:
        return _replace(s, phase=Phase.HOLD, turn=s.chooser)
    return _replace(s, phase=Phase.EXCHANGE, declarer=s.chooser, turn=s.chooser)


def _great_called(s: LvState, e: GreatCalled) -> LvState:
    s = _replace(s, great_used=_put(s.great_used, e.seat, True), great_calls=s.great_calls + ((e.seat, e.contract),))
    return _great_answered(s, e.seat)


def _great_passed(s: LvState, e: GreatPassed) -> LvState:
    return _great_answered(s, e.seat)


def _held(s: LvState, e: Held) -> LvState:
    return _replace(
        s,
        great_used=_put(s.great_used, e.seat, True),
        contract=e.contract,
        great=True,
        held=True,
        declarer=e.seat,
        phase=Phase.EXCHANGE,
        turn=e.seat,
    )


def _yielded(s: LvState, e: Yielded) -> LvState:
    seat, contract = s.great_calls[-1]
    return _replace(s, contract=contract, great=True, declarer=seat, phase=Phase.EXCHANGE, turn=seat)


def _exchanged(s: LvState, e: Exchanged) -> LvState:
    seat = e.seat
    k = len(e.discards)
    hand = sort_cards(_without(s.hands[seat], e.discards) + tuple(e.taken))
    return _replace(
        s,
        hands=_put(s.hands, seat, hand),
        manni=s.manni[k:],
        discards=tuple(e.discards),
        exchanged=k,
        phase=Phase.PLAY,
        leader=seat,
        turn=seat,
    )


def _card_played(s: LvState, e: CardPlayed) -> LvState:
    seat = e.seat
    hand = s.hands[seat]
    i = hand.index(e.card)
    trick = s.trick + (e.card,)
    return _replace(
        s,
        hands=_put(s.hands, seat, hand[:i] + hand[i + 1 :]),
        trick=trick,
        turn=-1 if len(trick) == SEATS else (seat + 1) % SEATS,
    )


def _trick_won(s: LvState, e: TrickWon) -> LvState:
    w = e.winner
    played = s.tricks_played + 1
    done = played == TRICKS
    return _replace(
        s,
        won=_put(s.won, w, s.won[w] + s.trick),
        last_trick=(e.leader, w, s.trick),
        trick=(),
        tricks_played=played,
        leader=w,
        turn=-1 if done else w,
        phase=Phase.SCORING if done else Phase.PLAY,
    )


def _deal_scored(s: LvState, e: DealScored) -> LvState:
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        turn=-1,
        totals=tuple(e.totals),
        scores=tuple(p.score for p in sorted(e.parts, key=lambda p: p.seat)),
    )


def _match_ended(s: LvState, e: MatchEnded) -> LvState:
    return _replace(s, phase=Phase.FINISHED, turn=-1, end=e.reason)


#: RulingAppealed / RulingDecided fold as no-ops: Laugavatnsmanni has no penalty rulings.
_EVOLVE: dict[type, Callable[[LvState, Any], LvState]] = {
    DealStarted: _deal_started,
    ContractChosen: _contract_chosen,
    GreatCalled: _great_called,
    GreatPassed: _great_passed,
    Held: _held,
    Yielded: _yielded,
    Exchanged: _exchanged,
    CardPlayed: _card_played,
    TrickWon: _trick_won,
    DealScored: _deal_scored,
    MatchEnded: _match_ended,
}


# --- automatic -------------------------------------------------------------------


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


def totals_by_name(s: LvState) -> dict[str, int]:
    return {s.players[i]: s.totals[i] for i in range(SEATS)}


def _match_end(s: LvState) -> MatchEnded:
    totals = totals_by_name(s)
    return MatchEnded(
        deal=s.deal,
        reason="target" if max(s.totals) >= s.target_points else "deals",
        totals=totals,
        ranks=ranks_from_scores(totals),
    )


def start(created: MatchCreated) -> LvState:
    options = dict(created.options)
    return LvState(
        players=tuple(created.players),
        options=options,
        ruleset=created.ruleset,
        target_points=int(options.get("target_points", 10)),
        max_deals=int(options.get("max_deals", 18)),
    )
