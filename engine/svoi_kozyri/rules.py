"""Svoi Kozyri rules: commands, ``decide``, ``evolve``, ``automatic`` and legality.

One checker (``_check``) both refuses commands and, run over every candidate,
lists the legal ones, so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import msgspec

from kartludo.engine.base import accepted, deal_command, decide_with, Command, IllegalCommand, StartDeal, check_deck, ranks_from_scores
from kartludo.engine.french import SUIT_NAMES, sort_cards
from kartludo.engine.svoi_kozyri.cards import (
    CARDS,
    DECK,
    DEFAULT_TRUMPS,
    beats,
    pickup_count,
    pickup_rule,
    sixes_to_pass,
)
from kartludo.engine.svoi_kozyri.state import PLAY_PHASES, Phase, SkState
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded, PickedUp, Played, SixesPassed, SixPass

_replace = msgspec.structs.replace

DEFAULT_DEALS = 8

# --- commands --------------------------------------------------------------------


class Play(Command, frozen=True, kw_only=True, tag="play"):
    """Put a card on the pile: a lead, a beat, the extra card or a free play
    (the engine knows which is due)."""

    card: str

    def args(self) -> list[str]:
        return [self.card]


class Pickup(Command, frozen=True, kw_only=True, tag="pickup"):
    """Take 3, 5 or all of the pile's top cards instead of beating."""


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Play, Pickup)

# --- rule references (cited by refusals and settlements) ---------------------------

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


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _remove(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


# --- setup -----------------------------------------------------------------------


def first_dealer(seed: int, n: int) -> int:
    """The first dealer, drawn at random from the match seed (and recorded in deal 1)."""
    return random.Random(f"{seed}:first-dealer").randrange(n)


def start(created: MatchCreated) -> SkState:
    options = dict(created.options)
    players = tuple(created.players)
    n = len(players)
    given = list(options.get("trumps", DEFAULT_TRUMPS))
    problem = None
    if len(given) < n:
        problem = (
            f"the match's trumps option names {len(given)} suit{'s' if len(given) != 1 else ''} "
            f"for {n} players: each player needs a trump suit"
        )
        given += ["?"] * (n - len(given))
    return SkState(
        players=players,
        options=options,
        ruleset=created.ruleset,
        trumps=tuple(given[:n]),
        deals=int(options.get("deals", DEFAULT_DEALS)),
        problem=problem,
        upcoming_dealer=first_dealer(created.seed, n),
        hands=((),) * n,
        losses=(0,) * n,
    )


def next_dealer(state: SkState) -> int:
    return state.upcoming_dealer


def can_deal(state: SkState) -> bool:
    return state.phase is Phase.WAITING_DEAL and state.problem is None and state.completed < state.deals


def to_act(state: SkState) -> list[int]:
    return [state.turn] if state.phase in PLAY_PHASES else []


# --- decide ----------------------------------------------------------------------


def decide(state: SkState, command: Command) -> list[Event]:
    return decide_with(_check, evolve, automatic, state, command)


def _check(state: SkState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return _check_deal(state, cmd)
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


def _check_deal(state: SkState, cmd: StartDeal) -> list[Event]:
    if state.phase is Phase.FINISHED:
        raise IllegalCommand("the match is over: no further deal", R_DONE)
    if state.problem is not None:
        raise IllegalCommand(state.problem, R_TRUMPS)
    if not can_deal(state):
        raise IllegalCommand(f"deal {state.deal} is still in progress", R_DEAL)
    check_deck(cmd.deck, DECK, R_DECK)
    return [DealStarted(deal=state.deal + 1, dealer=next_dealer(state), deck=list(cmd.deck), shuffle=cmd.shuffle)]


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


def legal_commands(state: SkState, seat: int) -> list[Command]:
    if state.phase not in PLAY_PHASES or seat != state.turn:
        return []
    return accepted(_check, state, candidates(state, seat))


_COMMAND_FOR: dict[type, Callable[[Any], Command]] = {
    DealStarted: deal_command,
    Played: lambda e: Play(seat=e.seat, card=e.card),
    PickedUp: lambda e: Pickup(seat=e.seat),
}


def command_for(event: Event) -> Command | None:
    make = _COMMAND_FOR.get(type(event))
    return None if make is None else make(event)


# --- evolve ----------------------------------------------------------------------


def evolve(state: SkState, event: Event) -> SkState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: SkState, e: DealStarted) -> SkState:
    n = s.n
    dealer = e.dealer
    hands: list[list[str]] = [[] for _ in range(n)]
    for i, card in enumerate(e.deck):
        hands[(dealer + 1 + i) % n].append(card)
    return _replace(
        s,
        phase=Phase.PASSING,
        deal=e.deal,
        dealer=dealer,
        upcoming_dealer=dealer,
        hands=tuple(sort_cards(h) for h in hands),
        pile=(),
        turn=-1,
        out=(),
        last_card_beats=0,
    )


def _sixes_passed(s: SkState, e: SixesPassed) -> SkState:
    hands = [list(h) for h in s.hands]
    for p in e.passes:
        hands[p.giver].remove(p.card)
        hands[p.receiver].append(p.card)
    return _replace(
        s,
        phase=Phase.LEAD,
        hands=tuple(sort_cards(h) for h in hands),
        turn=(s.dealer + 1) % s.n,
    )


def _played(s: SkState, e: Played) -> SkState:
    seat = e.seat
    hand = _remove(s.hands[seat], e.card)
    hands = _put(s.hands, seat, hand)
    out = s.out
    if not hand:
        out = out + (seat,)
    s = _replace(s, hands=hands, pile=s.pile + (e.card,), out=out)
    if e.role == "beat" and hand:
        return _replace(s, phase=Phase.EXTRA, turn=seat)
    if sum(1 for h in hands if h) <= 1:
        return _replace(s, phase=Phase.SETTLING, turn=-1)
    if e.role == "beat":  # beat with the last card: the next player plays freely
        return _replace(s, phase=Phase.FREE, turn=s.next_in(seat), last_card_beats=s.last_card_beats + 1)
    return _replace(s, phase=Phase.BEAT, turn=s.next_in(seat))


def _picked_up(s: SkState, e: PickedUp) -> SkState:
    seat = e.seat
    pile = s.pile[: len(s.pile) - len(e.cards)]
    s = _replace(s, hands=_put(s.hands, seat, sort_cards(s.hands[seat] + tuple(e.cards))), pile=pile)
    return _replace(s, phase=Phase.BEAT if pile else Phase.LEAD, turn=s.next_in(seat))


def _deal_ended(s: SkState, e: DealEnded) -> SkState:
    losses = s.losses
    if e.outcome == "loss":
        losses = _put(losses, e.last, losses[e.last] + 1)
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        completed=s.completed + 1,
        losses=losses,
        results=s.results + (e.last if e.outcome == "loss" else -1,),
        upcoming_dealer=e.next_dealer,
        turn=-1,
    )


def _match_ended(s: SkState, e: MatchEnded) -> SkState:
    return _replace(s, phase=Phase.FINISHED)


#: RulingAppealed / RulingDecided fold as no-ops: Svoi Kozyri has no penalty rulings.
_EVOLVE: dict[type, Callable[[SkState, Any], SkState]] = {
    DealStarted: _deal_started,
    SixesPassed: _sixes_passed,
    Played: _played,
    PickedUp: _picked_up,
    DealEnded: _deal_ended,
    MatchEnded: _match_ended,
}


# --- automatic -------------------------------------------------------------------


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


def losses_by_name(s: SkState, losses: tuple[int, ...] | None = None) -> dict[str, int]:
    losses = s.losses if losses is None else losses
    return {s.players[i]: losses[i] for i in range(s.n)}


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
    losses = s.losses if beat else _put(s.losses, last, s.losses[last] + 1)
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
