"""Uxinjo rules: commands, ``decide``, ``evolve``, ``automatic`` and legality.

One checker (``_check``) both refuses commands and, run over every candidate,
lists the legal ones, so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from kartludo.engine.base import (
    Command,
    Decision,
    IllegalCommand,
    StartDeal,
    accepted,
    check_deck,
    deal_command,
    decide_with,
)
from kartludo.engine.jx import AJX, JX, JX_DECK, ORDER, PJX, is_card
from kartludo.engine.uxinjo.hand import best_split
from kartludo.engine.uxinjo.state import (
    KEPT,
    SEAT_LABELS,
    SEATS,
    Phase,
    UxState,
    at_finito,
    match_points,
    marker,
    move,
    pay,
)
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, RulingAppealed, RulingDecided
from kartludo.events.uxinjo import (
    DealDrawn,
    Discarded,
    Drew,
    Exposed,
    Foul,
    LevuDeclared,
    MatchEnded,
    MuntDeclared,
    Passed,
    Settled,
    Took,
    Transfer,
)

_replace = msgspec.structs.replace

# --- commands --------------------------------------------------------------------


class Draw(Command, frozen=True, kw_only=True, tag="draw"):
    """A: draw the stock's top card."""


class Take(Command, frozen=True, kw_only=True, tag="take"):
    """B: take the newest discard."""


class Discard(Command, frozen=True, kw_only=True, tag="discard"):
    card: str

    def args(self) -> list[str]:
        return [self.card]


class Munt(Command, frozen=True, kw_only=True, tag="munt"):
    """Declare a win: on one's own turn, or as a claim on another player's discard."""


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """Answer a claim window without claiming."""


class Levu(Command, frozen=True, kw_only=True, tag="levu"):
    """Raise the points needed this deal by one (first turn only)."""


class Eltiri(Command, frozen=True, kw_only=True, tag="eltiri"):
    card: str

    def args(self) -> list[str]:
        return [self.card]


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Draw, Take, Discard, Munt, Pass, Levu, Eltiri)

# --- rule references (cited by refusals and rulings) ------------------------------

R_SETUP = "uxinjo §2.1"
R_DECK = "uxinjo §2.1 (a listed deck is the 38-card Jx deck, top first)"
R_COMMANDS = "uxinjo §Commands"
R_TURN = "uxinjo §2.2 (turn order: from the dealer, clockwise)"
R_DRAW = "uxinjo §2.2 A"
R_TAKE = "uxinjo §2.2 B"
R_TAKEN = "uxinjo §2.2 B (RULING: the taken card may not be discarded)"
R_JX = "uxinjo §2.2 (PJx and AJx are never discarded)"
R_DISCARD = "uxinjo §2.2"
R_LEVU = "uxinjo §4.2 (levu: first turn only, before discarding)"
R_ELTIRI = "uxinjo §3.1 (eltiri: only while the stock holds more than the two cards never drawn)"
R_ELTIRI_HELD = "uxinjo §3.1 (eltiri: expose a PJ or an AJ from your own hand)"
R_MUNT = "uxinjo §2.3 munt (on one's own turn after A, B or eltiri, or in a claim window)"
R_WINDOW = (
    "uxinjo §2.3 claim window (RULING: a draw or take counts as the next player's pass only "
    "once the other player has answered and nobody claimed)"
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


# --- small tuple helpers -----------------------------------------------------------


def _add(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    return tuple(sorted(hand + (card,), key=ORDER.__getitem__))


def _remove(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def next_dealer(state: UxState) -> int:
    return 0 if state.deal == 0 else (state.dealer + 1) % SEATS


def can_deal(state: UxState) -> bool:
    return state.phase is Phase.WAITING_DEAL


def to_act(state: UxState) -> list[int]:
    phase = state.phase
    if phase is Phase.TURN or phase is Phase.DISCARD:
        return [state.active]
    if phase is Phase.CLAIM:
        d = state.active
        return [s for s in ((d + 1) % SEATS, (d + 2) % SEATS) if state.answers[s] is None]
    return []


# --- decide ----------------------------------------------------------------------


def decide(state: UxState, command: Command) -> list[Event]:
    return decide_with(_check, evolve, automatic, state, command)


def _check(state: UxState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return _check_deal(state, cmd)
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


def _check_deal(state: UxState, cmd: StartDeal) -> list[Event]:
    if state.phase is Phase.FINISHED:
        raise IllegalCommand("the match is over: no further deal", R_DONE)
    if not can_deal(state):
        raise IllegalCommand(f"deal {state.deal} is still in progress", "uxinjo §2.3 (a deal ends before the next is dealt)")
    check_deck(cmd.deck, JX_DECK, R_DECK)
    return [DealStarted(deal=state.deal + 1, dealer=next_dealer(state), deck=list(cmd.deck), shuffle=cmd.shuffle)]


def _not_your_turn(state: UxState, seat: int) -> IllegalCommand:
    if state.phase is Phase.CLAIM:
        if seat == state.active:
            return IllegalCommand("the others are answering the claim window on your discard", R_WINDOW)
        return IllegalCommand("a claim window is open: answer munt or pass", R_WINDOW)
    return IllegalCommand(f"it is {label(state.active)}'s turn, not {label(seat)}'s", R_TURN)


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
        raise IllegalCommand(f"wait for {label(other)} to answer the claim window", R_WINDOW)
    if state.answers[other] == "munt":
        raise IllegalCommand(
            f"{label(other)} has claimed munt on {state.discards[-1]}: answer munt or pass (no {verb}); "
            "the claims are judged once you answer",
            R_WINDOW,
        )
    if state.answers[other] != "pass":
        raise IllegalCommand(
            f"the claim window is open: answer munt or pass ({verb} counts as a pass only once "
            f"{label(other)} has passed)",
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
        raise IllegalCommand(f"draw or take first, then {verb}", R_DISCARD)


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
            raise IllegalCommand("you already answered this claim window", R_WINDOW)
        return [MuntDeclared(seat=seat, claim=True)]
    if seat == state.active:
        raise IllegalCommand("draw or take first: munt needs six cards", R_MUNT)
    raise IllegalCommand("munt out of turn only on a discard, in its claim window", R_MUNT)


def _check_pass(state: UxState, cmd: Command) -> list[Event]:
    seat = cmd.seat
    if state.phase is not Phase.CLAIM:
        raise IllegalCommand("pass answers a claim window; there is none open", R_WINDOW)
    if seat == state.active:
        raise IllegalCommand("the discarder does not answer its own claim window", R_WINDOW)
    if state.answers[seat] is not None:
        raise IllegalCommand("you already answered this claim window", R_WINDOW)
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
    """Every command worth checking for ``seat`` (a superset of the legal ones)."""
    out: list[Command] = [Draw(seat=seat), Take(seat=seat), Munt(seat=seat), Pass(seat=seat), Levu(seat=seat)]
    if 0 <= seat < SEATS:
        out.extend(Discard(seat=seat, card=c) for c in dict.fromkeys(state.hands[seat]))
    out.extend((Eltiri(seat=seat, card=PJX), Eltiri(seat=seat, card=AJX)))
    return out


def legal_commands(state: UxState, seat: int) -> list[Command]:
    phase = state.phase
    if phase is Phase.WAITING_DEAL or phase is Phase.JUDGING or phase is Phase.FINISHED:
        return []
    if seat not in to_act(state):
        return []
    return accepted(_check, state, candidates(state, seat))


_COMMAND_FOR: dict[type, Callable[[Any], Command]] = {
    DealStarted: deal_command,
    Drew: lambda e: Draw(seat=e.seat),
    Took: lambda e: Take(seat=e.seat),
    Discarded: lambda e: Discard(seat=e.seat, card=e.card),
    LevuDeclared: lambda e: Levu(seat=e.seat),
    Exposed: lambda e: Eltiri(seat=e.seat, card=e.card),
    MuntDeclared: lambda e: Munt(seat=e.seat),
    Passed: lambda e: Pass(seat=e.seat),
}


def command_for(event: Event) -> Command | None:
    make = _COMMAND_FOR.get(type(event))
    return None if make is None else make(event)


# --- evolve ----------------------------------------------------------------------


def evolve(state: UxState, event: Event) -> UxState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: UxState, e: DealStarted) -> UxState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], []]
    for i in range(15):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    return _replace(
        s,
        phase=Phase.TURN,
        deal=e.deal,
        dealer=dealer,
        hands=tuple(tuple(sorted(h, key=ORDER.__getitem__)) for h in hands),
        stock=tuple(deck[15:]),
        revealed=deck[36],
        discards=(),
        exposed=((), (), ()),
        active=dealer,
        first_turn_done=(False, False, False),
        levu=(),
        source=None,
        drawn=None,
        taken=None,
        taken_from=None,
        answers=(None, None, None),
        munts=(),
        claim=False,
        deal_fouls=(),
        exhausted=False,
    )


def _drew(s: UxState, e: Drew) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.DISCARD,
        active=seat,
        answers=(None, None, None),
        hands=_put(s.hands, seat, _add(s.hands[seat], e.card)),
        stock=s.stock[1:],
        source="stock",
        drawn=e.card,
        taken=None,
        taken_from=None,
    )


def _took(s: UxState, e: Took) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.DISCARD,
        active=seat,
        answers=(None, None, None),
        hands=_put(s.hands, seat, _add(s.hands[seat], e.card)),
        discards=s.discards[:-1],
        source="discard",
        drawn=None,
        taken=e.card,
        taken_from=(seat + 2) % SEATS,
    )


def _discarded(s: UxState, e: Discarded) -> UxState:
    seat = e.seat
    return _replace(
        s,
        phase=Phase.CLAIM,
        hands=_put(s.hands, seat, _remove(s.hands[seat], e.card)),
        discards=s.discards + (e.card,),
        first_turn_done=_put(s.first_turn_done, seat, True),
        source=None,
        drawn=None,
        taken=None,
        taken_from=None,
        answers=(None, None, None),
    )


def _levu(s: UxState, e: LevuDeclared) -> UxState:
    return _replace(s, levu=s.levu + (e.seat,))


def _exposed(s: UxState, e: Exposed) -> UxState:
    seat = e.seat
    hand = _add(_remove(s.hands[seat], e.card), e.replacement)
    return _replace(
        s,
        hands=_put(s.hands, seat, hand),
        exposed=_put(s.exposed, seat, s.exposed[seat] + (e.card,)),
        stock=s.stock[1:],
        source="stock",
        drawn=e.replacement,
        # ``taken`` stays: the card taken this turn may still not be discarded (§2.2 B)
    )


def _munt(s: UxState, e: MuntDeclared) -> UxState:
    if not e.claim:
        return _replace(s, phase=Phase.JUDGING, munts=(e.seat,), claim=False)
    answers = _put(s.answers, e.seat, "munt")
    return _window_answered(s, answers, s.munts + (e.seat,))


def _passed(s: UxState, e: Passed) -> UxState:
    return _window_answered(s, _put(s.answers, e.seat, "pass"), s.munts)


def _window_answered(s: UxState, answers: tuple[str | None, ...], munts: tuple[int, ...]) -> UxState:
    d = s.active
    if answers[(d + 1) % SEATS] is None or answers[(d + 2) % SEATS] is None:
        return _replace(s, answers=answers, munts=munts, claim=bool(munts))
    if munts:
        return _replace(s, phase=Phase.JUDGING, answers=answers, munts=munts, claim=True)
    if len(s.stock) <= KEPT:
        return _replace(s, phase=Phase.JUDGING, answers=answers, exhausted=True)
    return _replace(s, phase=Phase.TURN, active=(d + 1) % SEATS, answers=(None, None, None))


def _foul(s: UxState, e: Foul) -> UxState:
    seat = e.seat
    return _replace(
        s,
        penalties=_put(s.penalties, seat, s.penalties[seat] + (e.ruling_id,)),
        fouls=s.fouls + ((e.ruling_id, seat),),
        deal_fouls=s.deal_fouls + (seat,),
        ledger=s.ledger + (("penalty", e.ruling_id, seat),),
    )


def _apply_moves(s: UxState, transfers: list[Transfer]) -> tuple[int, int, int]:
    markers = s.markers
    for t in transfers:
        if t.moved:
            markers = move(markers, t.payee, t.payer, t.moved)
    return markers


def _ledger_row(winner: int, transfers: list[Transfer]) -> tuple[Any, ...]:
    return ("settle", winner, tuple((t.payer, t.payee, t.amount, t.reason) for t in transfers))


def _settled(s: UxState, e: Settled) -> UxState:
    penalties = s.penalties
    if e.lifted is not None:
        penalties = _put(penalties, e.winner, tuple(r for r in penalties[e.winner] if r != e.lifted))
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        markers=_apply_moves(s, e.transfers),
        penalties=penalties,
        ledger=s.ledger + (_ledger_row(e.winner, e.transfers),),
        active=-1,
        munts=(),
        answers=(None, None, None),
    )


def _deal_drawn(s: UxState, e: DealDrawn) -> UxState:
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        markers=_apply_moves(s, e.transfers),
        ledger=s.ledger + (_ledger_row(-1, e.transfers),),
        active=-1,
        munts=(),
        answers=(None, None, None),
        exhausted=False,
    )


def _match_ended(s: UxState, e: MatchEnded) -> UxState:
    return _replace(s, phase=Phase.FINISHED, end="finito")


def _appealed(s: UxState, e: RulingAppealed) -> UxState:
    return s if e.ruling_id in s.appealed else _replace(s, appealed=s.appealed + (e.ruling_id,))


def _decided(s: UxState, e: RulingDecided) -> UxState:
    """An overturned foul: recompute markers and penalties as if it never penalised."""
    rid = e.ruling_id
    if e.decision != "overturn" or rid in s.overturned or all(r != rid for r, _ in s.fouls):
        return s
    overturned = s.overturned + (rid,)
    markers, penalties = recompute(s.ledger, frozenset(overturned))
    s = _replace(s, overturned=overturned, markers=markers, penalties=penalties)
    if s.phase is Phase.WAITING_DEAL and at_finito(markers):
        s = _replace(s, phase=Phase.FINISHED, end="overturn")
    return s


def recompute(ledger, overturned: frozenset[str]) -> tuple[tuple[int, int, int], tuple[tuple[str, ...], ...]]:
    """Replay the ledger: transfers in order with finito capping, each voided by its
    payee's active penalties, each winner's munt lifting its oldest penalty."""
    markers: tuple[int, int, int] = (0, 0, 0)
    active: list[tuple[str, ...]] = [(), (), ()]
    for row in ledger:
        if row[0] == "penalty":
            _, rid, seat = row
            if rid not in overturned:
                active[seat] = active[seat] + (rid,)
            continue
        _, winner, transfers = row
        for payer, payee, amount, _reason in transfers:
            if not active[payee]:
                markers, _ = pay(markers, payer, payee, amount)
        if winner >= 0 and active[winner]:
            active[winner] = active[winner][1:]
    return markers, tuple(active)


_EVOLVE: dict[type, Callable[[UxState, Any], UxState]] = {
    DealStarted: _deal_started,
    Drew: _drew,
    Took: _took,
    Discarded: _discarded,
    LevuDeclared: _levu,
    Exposed: _exposed,
    MuntDeclared: _munt,
    Passed: _passed,
    Foul: _foul,
    Settled: _settled,
    DealDrawn: _deal_drawn,
    MatchEnded: _match_ended,
    RulingAppealed: _appealed,
    RulingDecided: _decided,
}


# --- automatic -------------------------------------------------------------------


def automatic(s: UxState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.JUDGING:
        if s.exhausted:
            return [_drawn(s, "stock")]
        if s.claim:
            return [_judge_claims(s)]
        return [_judge_own(s)]
    if phase is Phase.WAITING_DEAL and s.deal and at_finito(s.markers):
        return [_match_end(s)]
    return []


def _judge_own(s: UxState) -> Event:
    seat = s.munts[0]
    if seat in s.deal_fouls:
        return _drawn(s, "foul")
    six = s.hands[seat]
    score = best_split(six, s.revealed, len(s.exposed[seat]))
    if score is None or score.points < s.needed:
        return _foul_event(s, seat, six, score, None)
    if s.source == "discard":
        return _settle(s, seat, "discard", s.taken_from, s.taken or "", six, score, [])
    return _settle(s, seat, "stock", None, s.drawn or "", six, score, [])


def _judge_claims(s: UxState) -> Event:
    card = s.discards[-1]
    valid: list[int] = []
    invalid: list[tuple[int, Any]] = []
    scores = {}
    for seat in s.munts:
        six = _add(s.hands[seat], card)
        score = best_split(six, s.revealed, len(s.exposed[seat]))
        if score is not None and score.points >= s.needed:
            valid.append(seat)
            scores[seat] = (six, score)
        else:
            invalid.append((seat, (six, score)))
    if len(valid) >= 2:
        return _drawn(s, "double-munt", claimants=valid)
    if len(valid) == 1:
        winner = valid[0]
        six, score = scores[winner]
        return _settle(s, winner, "discard", s.active, card, six, score, [seat for seat, _ in invalid])
    for seat, (six, score) in invalid:
        if seat not in s.deal_fouls:
            return _foul_event(s, seat, six, score, card)
    return _drawn(s, "foul")


def _foul_event(s: UxState, seat: int, six, score, claimed: str | None) -> Foul:
    before = len(s.penalties[seat])
    if score is None:
        reason = "the six cards do not form two combinations"
    else:
        reason = f"{score.points} point{'s' if score.points != 1 else ''} < {s.needed} needed"
    facts: dict[str, Any] = {
        "cards": list(six),
        "claim": claimed is not None,
        "discard": claimed,
        "split": [list(t) for t in score.split] if score else None,
        "rows": dict(score.rows) if score else None,
        "points": score.points if score else None,
        "needed": s.needed,
        "levu": [label(x) for x in s.levu],
        "exposed": list(s.exposed[seat]),
        "reason": reason,
    }
    effect = {
        "penalties_before": before,
        "penalties_after": before + 1,
        "deal": "drawn",
        "scoring": f"transfers to {label(seat)} are void until {before + 1} valid munt{'s' if before else ''}",
    }
    return Foul(
        ruling_id=f"uxinjo-d{s.deal}-{label(seat)}",
        deal=s.deal,
        seat=seat,
        rule=R_FOUL_CLAIM if claimed is not None else R_FOUL,
        facts=facts,
        effect=effect,
    )


RULING_NEEDED = "RULING §2.3: points needed = 2 + 1 per valid levu"
RULING_ALL_LEVU = "§4.2: all three declared levu, so every levu is void"
RULING_FINITO = "RULING §2.1: a transfer that would pass finito stops at it"
RULING_VOID_CLAIM = "RULING §2.3: an invalid claim beside a valid one in the same window is void, no foul"
RULING_WILDS = "RULING §1: a wild never stands for a coloured number already in the hand"


def _notes(s: UxState, transfers: list[Transfer], score=None, void_claims=()) -> list[str]:
    notes = []
    if len(s.levu) >= SEATS:
        notes.append(RULING_ALL_LEVU)
    elif s.levu and score is not None:
        notes.append(RULING_NEEDED)
    if score is not None and score.wilds:
        notes.append(RULING_WILDS)
    if void_claims:
        notes.append(RULING_VOID_CLAIM)
    if any(t.moved != t.amount and not t.void_by for t in transfers):
        notes.append(RULING_FINITO)
    return notes


def _levu_requests(s: UxState, winner: int) -> list[tuple[int, int, int, str]]:
    if len(s.levu) >= SEATS:  # all three declared: every levu is void
        return []
    out = []
    for l in s.levu:
        if l != winner:
            out.extend((l, (l + k) % SEATS, 1, "levu") for k in (1, 2))
    return out


def _transfers(s: UxState, requests: list[tuple[int, int, int, str]]) -> list[Transfer]:
    markers = s.markers
    out = []
    for payer, payee, amount, reason in requests:
        if amount <= 0:
            continue
        void = list(s.penalties[payee])
        if void:
            moved = 0
        else:
            markers, moved = pay(markers, payer, payee, amount)
        out.append(Transfer(payer=payer, payee=payee, amount=amount, moved=moved, reason=reason, void_by=void))
    return out


def _settle(s: UxState, winner: int, win: str, discarder: int | None, card: str, six, score, void_claims) -> Settled:
    points = score.points
    requests: list[tuple[int, int, int, str]] = []
    if win == "discard":
        assert discarder is not None
        requests.append((discarder, winner, points, "discard"))
        ajx = s.exposed[discarder].count(AJX)
        if ajx:
            requests.append((discarder, winner, ajx, "e-ajx"))
    else:
        requests.extend(((winner + k) % SEATS, winner, points - 1, "stock") for k in (1, 2))
    requests.extend(_levu_requests(s, winner))
    lifted = s.penalties[winner][0] if s.penalties[winner] else None
    transfers = _transfers(s, requests)
    return Settled(
        deal=s.deal,
        winner=winner,
        win=win,
        discarder=discarder,
        card=card,
        hand=list(six),
        split=[list(t) for t in score.split],
        rows=dict(score.rows),
        points=points,
        needed=s.needed,
        transfers=transfers,
        lifted=lifted,
        void_claims=list(void_claims),
        levu=list(s.levu),
        rulings=_notes(s, transfers, score, void_claims),
    )


def _drawn(s: UxState, reason: str, claimants: list[int] | None = None) -> DealDrawn:
    transfers = _transfers(s, _levu_requests(s, -1))
    return DealDrawn(
        deal=s.deal,
        reason=reason,
        claimants=list(claimants or []),
        transfers=transfers,
        levu=list(s.levu),
        rulings=_notes(s, transfers),
    )


def decisions(event: Event) -> list[Decision]:
    """What a settlement or drawn deal voided without a penalty: each invalid claim beside
    the valid one (RULING §2.3), and each levu when all three declared one (§4.2)."""
    if not isinstance(event, (Settled, DealDrawn)):
        return []
    out = []
    d = event.deal
    if isinstance(event, Settled):
        for seat in event.void_claims:
            out.append(Decision(
                key=f"uxinjo-d{d}-{label(seat)}-void-claim", seat=seat, rule=RULING_VOID_CLAIM,
                facts={"claim_on": event.card, "discarder": label(event.discarder if event.discarder is not None else -1),
                       "valid_claim_by": label(event.winner), "points_needed": event.needed},
                effect={"claim": "void", "foul": False, "penalties": "unchanged"},
            ))
    if len(event.levu) >= SEATS:
        facts: dict[str, Any] = {"levu": [label(x) for x in event.levu]}
        if isinstance(event, Settled):
            facts["points_needed"] = event.needed
        for seat in event.levu:
            out.append(Decision(
                key=f"uxinjo-d{d}-{label(seat)}-levu-void", seat=seat, rule=RULING_ALL_LEVU, facts=facts,
                effect={"levu": "void", "points_needed_raised_by": 0, "levu_penalty": "none"},
            ))
    return out


def markers_by_name(s: UxState) -> dict[str, dict[str, int]]:
    names = s.players
    return {
        names[a]: {names[b]: marker(s.markers, a, b) for b in range(SEATS) if b != a} for a in range(SEATS)
    }


def foul_counts(s: UxState) -> dict[str, int]:
    counts = [0, 0, 0]
    for rid, seat in s.fouls:
        if rid not in s.overturned:
            counts[seat] += 1
    return {s.players[i]: counts[i] for i in range(SEATS)}


def _match_end(s: UxState) -> MatchEnded:
    mp = match_points(s.markers)
    return MatchEnded(
        deal=s.deal,
        markers=markers_by_name(s),
        mp={s.players[i]: mp[i] for i in range(SEATS)},
        fouls=foul_counts(s),
    )


def start(created: MatchCreated) -> UxState:
    options = dict(created.options)
    return UxState(
        players=tuple(created.players),
        options=options,
        ruleset=created.ruleset,
        needed_base=int(options.get("needed_base", 2)),
    )
