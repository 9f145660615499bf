"""Hakamo rules: commands, ``decide``, ``evolve``, ``automatic`` and legality.

One checker (``_check``) both refuses commands and, run over every candidate,
lists the legal ones, so ``legal_commands`` and ``decide`` cannot disagree.
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from kartludo.engine.base import accepted, deal_command, decide_with, Command, IllegalCommand, StartDeal, check_deck, ranks_from_scores
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.state import (
    DEALS,
    HAND,
    MAX_BID,
    MIN_BID,
    SEAT_LABELS,
    SEATS,
    HkState,
    Phase,
)
from kartludo.engine.jx import CENTRO, JX_DECK, ORDER, colour
from kartludo.events import hakamo as ev
from kartludo.events.base import Event
from kartludo.events.match import DealStarted, MatchCreated, RulingAppealed, RulingDecided

_replace = msgspec.structs.replace

# --- commands --------------------------------------------------------------------


class Bid(Command, frozen=True, kw_only=True, tag="bid"):
    """A GV bid in the auction for Deklaristo, or a share bid in the Kunulo auction."""

    amount: int

    def args(self) -> list[str]:
        return [str(self.amount)]


class Pass(Command, frozen=True, kw_only=True, tag="pass"):
    """A final pass in either auction."""


class Keep(Command, frozen=True, kw_only=True, tag="keep"):
    """Keep the Kasxetoj unseen (both count as face down)."""


class Exchange(Command, frozen=True, kw_only=True, tag="exchange"):
    """Take the Kasxetoj into the hand, then ``lay`` two cards back."""


class Lay(Command, frozen=True, kw_only=True, tag="lay"):
    """Lay the new Kasxetoj: ``lay RX:up G3:down`` (upper first)."""

    upper: str
    upper_up: bool
    lower: str
    lower_up: bool

    def args(self) -> list[str]:
        return [f"{self.upper}:{'up' if self.upper_up else 'down'}", f"{self.lower}:{'up' if self.lower_up else 'down'}"]


class Solo(Command, frozen=True, kw_only=True, tag="solo"):
    """Play without a Kunulo."""


class Recruit(Command, frozen=True, kw_only=True, tag="recruit"):
    """Open the descending auction for a Kunulo."""


class Resign(Command, frozen=True, kw_only=True, tag="resign"):
    """Give up the deal after nobody offered to be Kunulo."""


class Declare(Command, frozen=True, kw_only=True, tag="declare"):
    """Predict the Hakamisto: a seat (``declare Su``) or ``declare malhakama``."""

    target: int | None

    def args(self) -> list[str]:
        return ["malhakama" if self.target is None else SEAT_LABELS[self.target]]


class Play(Command, frozen=True, kw_only=True, tag="play"):
    card: str

    def args(self) -> list[str]:
        return [self.card]


COMMAND_TYPES: tuple[type[Command], ...] = (StartDeal, Bid, Pass, Keep, Exchange, Lay, Solo, Recruit, Resign, Declare, Play)

# --- rule references (cited by refusals and recorded decisions) --------------------

R_SETUP = "hakamo §Cards and seats"
R_DONE = "hakamo §Cards and seats (a match is 8 deals; the match is over)"
R_DEAL = "hakamo §Deal (a deal ends before the next is dealt)"
R_DECK = "hakamo §Deal (a listed deck is the 38-card Jx deck, top first)"
R_AUCTION = "hakamo §1 auction (from the dealer, clockwise)"
R_BID = "hakamo §1 auction (a bid is at least 13 and at least 1 above the last)"
R_MAX = (
    f"hakamo §1 auction (the project's bound, not a rule of the game: no bid above {MAX_BID}, the most a GV "
    "could count with all 39 card points and every bonus listed; the highest GV a deal can reach is about 43)"
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


# --- small tuple helpers -----------------------------------------------------------


def _sort(cards) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))


def _remove(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _next_in(flags_out: tuple[bool, ...], after: int) -> int:
    """The next seat clockwise after ``after`` not marked out (-1 if none)."""
    for k in range(1, SEATS + 1):
        s = (after + k) % SEATS
        if not flags_out[s]:
            return s
    return -1


# --- asking the state --------------------------------------------------------------


def next_dealer(state: HkState) -> int:
    if state.deal == 0:
        return 0
    return state.dealer if state.redeal else (state.dealer + 1) % SEATS


def can_deal(state: HkState) -> bool:
    return state.phase is Phase.WAITING_DEAL and state.counted < DEALS


_ACTING = frozenset(
    (Phase.AUCTION, Phase.KASXETOJ, Phase.LAY, Phase.KUNULO, Phase.SHARES, Phase.NO_KUNULO, Phase.DECLARATION)
)


def to_act(state: HkState) -> list[int]:
    phase = state.phase
    if phase in _ACTING:
        return [state.turn]
    if phase is Phase.TRICKS and state.turn >= 0 and not _mati_due(state):
        return [state.turn]
    return []


def lead_colour(state: HkState) -> str | None:
    return hc.lead_colour(state.trick, state.copy)


def legal_cards(state: HkState, seat: int) -> list[str]:
    return hc.legal_plays(state.hands[seat], lead_colour(state), state.copy)


def _trick_complete(state: HkState) -> bool:
    return bool(state.trick) and len(state.trick) >= len(state.active)


def _mati_due(state: HkState) -> bool:
    return state.turn >= 0 and not _trick_complete(state) and not legal_cards(state, state.turn)


def counts(state: HkState) -> tuple[int, ...]:
    return tuple(hc.count(t) for t in state.taken)


# --- decide ----------------------------------------------------------------------


def decide(state: HkState, command: Command) -> list[Event]:
    return decide_with(_check, evolve, automatic, state, command)


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


def _check(state: HkState, cmd: Command) -> list[Event]:
    """The action events of ``cmd``, or ``IllegalCommand`` naming the rule."""
    if isinstance(cmd, StartDeal):
        return _check_deal(state, cmd)
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
            raise IllegalCommand("you passed, and a pass is final", R_PASS_FINAL if phase is Phase.AUCTION else R_SHARE_TURN)
        whose = label(acting[0]) if acting else "nobody"
        raise IllegalCommand(f"it is {whose}'s turn ({_WHAT[phase]}), not {label(seat)}'s", rule)
    if not isinstance(cmd, allowed):
        raise IllegalCommand(f"{cmd.text()!r} is not possible now ({phase.value}): {verbs}", rule)
    return _CHECKS[phase](state, cmd)


def _check_deal(state: HkState, cmd: StartDeal) -> list[Event]:
    if state.phase is Phase.FINISHED:
        raise IllegalCommand("the match is over: no further deal", R_DONE)
    if not can_deal(state):
        raise IllegalCommand(f"deal {state.deal} is still in progress", R_DEAL)
    check_deck(cmd.deck, JX_DECK, R_DECK)
    return [DealStarted(deal=state.deal + 1, dealer=next_dealer(state), deck=list(cmd.deck), shuffle=cmd.shuffle)]


def _check_auction(state: HkState, cmd: Command) -> list[Event]:
    if isinstance(cmd, Pass):
        return [ev.Passed(seat=cmd.seat)]
    assert isinstance(cmd, Bid)
    amount = cmd.amount
    if amount < MIN_BID:
        raise IllegalCommand(f"a bid is at least {MIN_BID}, not {amount}", R_BID)
    if amount <= state.high:
        raise IllegalCommand(
            f"{label(state.high_seat)} bid {state.high}: bid at least {state.high + 1} or pass", R_BID
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
    return [ev.KasxetojLaid(seat=cmd.seat, upper=cmd.upper, upper_up=cmd.upper_up, lower=cmd.lower, lower_up=cmd.lower_up)]


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
            f"{label(state.share_seat)} bid {state.share_low}: bid at most {state.share_low - 1} or pass", R_SHARE
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


def legal_commands(state: HkState, seat: int) -> list[Command]:
    if seat not in to_act(state):
        return []
    return accepted(_check, state, candidates(state, seat))


_COMMAND_FOR: dict[type, Callable[[Any], Command]] = {
    DealStarted: deal_command,
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


def command_for(event: Event) -> Command | None:
    make = _COMMAND_FOR.get(type(event))
    return None if make is None else make(event)


# --- evolve ----------------------------------------------------------------------


def evolve(state: HkState, event: Event) -> HkState:
    fn = _EVOLVE.get(type(event))
    return state if fn is None else fn(state, event)


def _deal_started(s: HkState, e: DealStarted) -> HkState:
    deck = e.deck
    dealer = e.dealer
    hands: list[list[str]] = [[], [], [], []]
    for i in range(SEATS * HAND):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    return _replace(
        s,
        phase=Phase.AUCTION,
        deal=e.deal,
        dealer=dealer,
        redeal=False,
        hands=tuple(_sort(h) for h in hands),
        kasxetoj=(deck[36], deck[37]),
        upper_up=False,
        lower_up=False,
        kept=None,
        copy=None,
        trump_mode=hc.TRUMP_NONE,
        trump=None,
        inversa="",
        turn=dealer,
        bids=(),
        high=0,
        high_seat=-1,
        passed=(False,) * SEATS,
        deklaristo=-1,
        contract=0,
        share_bids=(),
        share_low=0,
        share_seat=-1,
        share_passed=(False,) * SEATS,
        kunulo=-1,
        share=0,
        solo=False,
        resigned=False,
        declared=False,
        target=None,
        tricks=0,
        leader=-1,
        trick=(),
        taken=((), (), (), ()),
        cancelled=(),
        matistos=(),
        mati_cards=(),
        end=None,
        last_trick=None,
    )


def _won_auction(s: HkState, seat: int, amount: int, **kw: Any) -> HkState:
    return _replace(s, phase=Phase.KASXETOJ, deklaristo=seat, contract=amount, turn=seat, **kw)


def _bid(s: HkState, e: ev.Bid) -> HkState:
    seat = e.seat
    bids = s.bids + ((seat, e.amount),)
    if all(s.passed[o] for o in range(SEATS) if o != seat):
        return _won_auction(s, seat, e.amount, bids=bids, high=e.amount, high_seat=seat)
    return _replace(s, bids=bids, high=e.amount, high_seat=seat, turn=_next_in(s.passed, seat))


def _passed(s: HkState, e: ev.Passed) -> HkState:
    seat = e.seat
    passed = _put(s.passed, seat, True)
    bids = s.bids + ((seat, -1),)
    left = [o for o in range(SEATS) if not passed[o]]
    if not left:
        return _replace(s, phase=Phase.PASSED_OUT, passed=passed, bids=bids, turn=-1)
    if left == [s.high_seat]:
        return _won_auction(s, s.high_seat, s.high, passed=passed, bids=bids)
    return _replace(s, passed=passed, bids=bids, turn=_next_in(passed, seat))


def _passed_out(s: HkState, e: ev.PassedOut) -> HkState:
    return _replace(s, phase=Phase.WAITING_DEAL, redeal=True, turn=-1)


def _kept(s: HkState, e: ev.KasxetojKept) -> HkState:
    return _replace(
        s, phase=Phase.KUNULO, kept=True, upper_up=False, lower_up=False, copy=None,
        trump_mode=hc.TRUMP_NONE, trump=None, inversa="",
    )


def _taken(s: HkState, e: ev.KasxetojTaken) -> HkState:
    seat = e.seat
    return _replace(
        s, phase=Phase.LAY, kept=False, kasxetoj=(), hands=_put(s.hands, seat, _sort(s.hands[seat] + tuple(e.cards)))
    )


def _laid(s: HkState, e: ev.KasxetojLaid) -> HkState:
    seat = e.seat
    hand = _remove(_remove(s.hands[seat], e.upper), e.lower)
    mode, trump = hc.trump_of(e.upper, e.upper_up)
    return _replace(
        s,
        phase=Phase.KUNULO,
        hands=_put(s.hands, seat, hand),
        kasxetoj=(e.upper, e.lower),
        upper_up=e.upper_up,
        lower_up=e.lower_up,
        copy=hc.copy_of(e.upper, e.upper_up, e.lower, e.lower_up),
        trump_mode=mode,
        trump=trump,
        inversa=hc.inversa_of(e.lower, e.lower_up),
    )


def _to_declaration(s: HkState, **kw: Any) -> HkState:
    return _replace(s, phase=Phase.DECLARATION, turn=s.deklaristo, **kw)


def _solo(s: HkState, e: ev.Solo) -> HkState:
    return _to_declaration(s, solo=True, kunulo=-1, share=0)


def _recruited(s: HkState, e: ev.Recruited) -> HkState:
    d = s.deklaristo
    return _replace(
        s, phase=Phase.SHARES, turn=(d + 1) % SEATS, share_passed=tuple(o == d for o in range(SEATS)),
        share_bids=(), share_low=0, share_seat=-1,
    )


def _share_bid(s: HkState, e: ev.ShareBid) -> HkState:
    seat = e.seat
    bids = s.share_bids + ((seat, e.share),)
    if all(s.share_passed[o] for o in range(SEATS) if o != seat):
        return _to_declaration(s, share_bids=bids, share_low=e.share, share_seat=seat, kunulo=seat, share=e.share)
    return _replace(s, share_bids=bids, share_low=e.share, share_seat=seat, turn=_next_in(s.share_passed, seat))


def _share_passed(s: HkState, e: ev.SharePassed) -> HkState:
    seat = e.seat
    passed = _put(s.share_passed, seat, True)
    bids = s.share_bids + ((seat, -1),)
    left = [o for o in range(SEATS) if not passed[o]]
    if not left:
        return _replace(s, phase=Phase.NO_KUNULO, share_passed=passed, share_bids=bids, turn=s.deklaristo)
    if left == [s.share_seat]:
        return _to_declaration(s, share_passed=passed, share_bids=bids, kunulo=s.share_seat, share=s.share_low)
    return _replace(s, share_passed=passed, share_bids=bids, turn=_next_in(passed, seat))


def _resigned(s: HkState, e: ev.Resigned) -> HkState:
    return _replace(s, phase=Phase.SCORING, resigned=True, end="resigned", turn=-1)


def _declared(s: HkState, e: ev.Declared) -> HkState:
    d = s.deklaristo
    return _replace(s, phase=Phase.TRICKS, declared=True, target=e.target, leader=d, turn=d, trick=())


def _next_to_play(s: HkState, after: int, trick: tuple[tuple[int, str], ...], matistos: tuple[int, ...]) -> int:
    played = {seat for seat, _ in trick}
    for k in range(1, SEATS):
        o = (after + k) % SEATS
        if o not in matistos and o not in played:
            return o
    return -1


def _played(s: HkState, e: ev.Played) -> HkState:
    seat = e.seat
    trick = s.trick + ((seat, e.card),)
    return _replace(
        s,
        hands=_put(s.hands, seat, _remove(s.hands[seat], e.card)),
        trick=trick,
        turn=_next_to_play(s, seat, trick, s.matistos),
    )


def _matatis(s: HkState, e: ev.Matatis) -> HkState:
    seat = e.seat
    matistos = s.matistos + (seat,)
    base = _replace(s, hands=_put(s.hands, seat, ()), mati_cards=s.mati_cards + tuple(e.hand), matistos=matistos)
    if e.lead:
        return _replace(base, phase=Phase.SCORING, end="lead-matatis", turn=-1)
    return _replace(base, turn=_next_to_play(s, seat, s.trick, matistos))


def _trick_ended(s: HkState, e: ev.TrickEnded) -> HkState:
    taken = s.taken
    if e.winner is not None:
        taken = _put(taken, e.winner, s.taken[e.winner] + tuple(e.taken))
    cancelled = s.cancelled + tuple(p.card for p in e.plays if p.cancelled)
    tricks = s.tricks + 1
    base = _replace(s, taken=taken, cancelled=cancelled, tricks=tricks, trick=(), last_trick=e)
    if e.stops or e.winner is None or tricks >= HAND:
        end = "all-cancelled" if e.winner is None else "nine-tricks"
        return _replace(base, phase=Phase.SCORING, end=end, turn=-1, leader=-1)
    return _replace(base, leader=e.winner, turn=e.winner)


def _scored(s: HkState, e: ev.DealScored) -> HkState:
    points = [0] * SEATS
    for a in e.awards:
        points[a.seat] += a.points
    return _replace(
        s,
        phase=Phase.WAITING_DEAL,
        totals=tuple(t + p for t, p in zip(s.totals, points)),
        history=s.history + (tuple(points),),
        counted=s.counted + 1,
        turn=-1,
        redeal=False,
    )


def _match_ended(s: HkState, e: ev.MatchEnded) -> HkState:
    return _replace(s, phase=Phase.FINISHED)


def _no_op(s: HkState, e: Event) -> HkState:
    """Hakamo has no penalty rulings: appeals and TD decisions change nothing."""
    return s


_EVOLVE: dict[type, Callable[[HkState, Any], HkState]] = {
    DealStarted: _deal_started,
    ev.Bid: _bid,
    ev.Passed: _passed,
    ev.PassedOut: _passed_out,
    ev.KasxetojKept: _kept,
    ev.KasxetojTaken: _taken,
    ev.KasxetojLaid: _laid,
    ev.Solo: _solo,
    ev.Recruited: _recruited,
    ev.ShareBid: _share_bid,
    ev.SharePassed: _share_passed,
    ev.Resigned: _resigned,
    ev.Declared: _declared,
    ev.Played: _played,
    ev.Matatis: _matatis,
    ev.TrickEnded: _trick_ended,
    ev.DealScored: _scored,
    ev.MatchEnded: _match_ended,
    RulingAppealed: _no_op,
    RulingDecided: _no_op,
}


# --- automatic -------------------------------------------------------------------


def automatic(s: HkState) -> list[Event]:
    """The engine's next decision, one event at a time (``decide`` chains them)."""
    phase = s.phase
    if phase is Phase.TRICKS:
        if _trick_complete(s):
            return [_trick_end(s)]
        if _mati_due(s):
            return [_matatis_event(s)]
        return []
    if phase is Phase.SCORING:
        return [_score(s)]
    if phase is Phase.PASSED_OUT:
        return [ev.PassedOut(deal=s.deal, dealer=s.dealer)]
    if phase is Phase.WAITING_DEAL and s.counted >= DEALS:
        return [_match_end(s)]
    return []


def _matatis_event(s: HkState) -> ev.Matatis:
    seat = s.turn
    hand = s.hands[seat]
    lead = not s.trick
    copy = s.copy
    parts = []
    if any(c in ("PJ", "AJ") for c in hand):
        parts.append("Jx, which are never led" if lead else "Jx")
    if CENTRO in hand:
        if copy is None:
            parts.append("C, which cannot be played with both Kasxetoj face down")
        else:
            parts.append(f"C as {copy}, a Jx, which is never led")
    reason = ("to lead, holding only " if lead else "to play, holding only ") + " and ".join(parts)
    return ev.Matatis(
        deal=s.deal, trick=s.tricks + 1, seat=seat, hand=list(hand), lead=lead, reason=reason,
        rule=RULING_MATATIS,
    )


def _trick_end(s: HkState) -> ev.TrickEnded:
    seats = [seat for seat, _ in s.trick]
    cards = [card for _, card in s.trick]
    r = hc.resolve(cards, s.copy, s.trump_mode, s.trump, s.inversa)
    plays = [
        ev.TrickCard(seat=seats[i], card=cards[i], face=r.faces[i], role=r.roles[i], cancelled=r.cancelled[i])
        for i in range(len(cards))
    ]
    cancels = [
        ev.Cancel(seats=[seats[i] for i in idx], cards=[cards[i] for i in idx], why=why) for idx, why in r.groups
    ]
    winner = None if r.winner is None else seats[r.winner]
    taken = [cards[i] for i in range(len(cards)) if not r.cancelled[i]] if winner is not None else []
    rulings = []
    if CENTRO in cards:
        rulings.append(RULING_C)
    if any(p.role in ("trump", "lead") and not p.cancelled and p.face[0] in s.inversa for p in plays):
        rulings.append(RULING_ORDER)
    if r.by_first_discard:
        rulings.append(RULING_FIRST_DISCARD)
    if any(p.role in ("PJ", "AJ") for p in plays[1:]) and _jx_over_follow(s, plays):
        rulings.append(RULING_FOLLOW)
    return ev.TrickEnded(
        deal=s.deal,
        trick=s.tricks + 1,
        leader=seats[0],
        lead=r.lead,
        trump=r.trump,
        plays=plays,
        cancels=cancels,
        winner=winner,
        taken=taken,
        points=hc.count(taken),
        stops=winner is None,
        rulings=rulings,
    )


def _jx_over_follow(s: HkState, plays: list[ev.TrickCard]) -> bool:
    """Whether a Jx was played by someone who (as the trick shows) still held the
    lead colour afterwards. Only the public part of this is knowable later; the
    engine knows the hands, so it checks the seat's remaining hand now."""
    lead = plays[0].face[0] if plays else None
    for p in plays[1:]:
        if p.role in ("PJ", "AJ") and lead is not None:
            rest = s.hands[p.seat]
            if any(hc.playable(c, s.copy) and colour(hc.face(c, s.copy)) == lead for c in rest):
                return True
    return False


def _score(s: HkState) -> ev.DealScored:
    d, k = s.deklaristo, s.kunulo
    B, S = s.contract, s.share
    common = dict(
        deal=s.deal,
        counted=s.counted + 1,
        deklaristo=d,
        kunulo=k if k >= 0 else None,
        contract=B,
        share=S,
        solo=s.solo,
        resigned=s.resigned,
        kept=s.kept,
        end=s.end or "",
        tricks=s.tricks,
        matistos=list(s.matistos),
    )
    if s.resigned:
        cost = -(-B // 2)
        return ev.DealScored(
            **common,
            target=None,
            awards=[ev.Award(seat=d, role="deklaristo", points=-cost, formula=f"-ceil(B/2) = -ceil({B}/2) = -{cost}")],
            rulings=[RULING_RESIGN],
        )
    rows = [
        ev.Count(seat=o, cards=len(s.taken[o]), vs=sum(1 for c in s.taken[o] if c[1:] == "V"), count=hc.count(s.taken[o]))
        for o in range(SEATS)
    ]
    top = max(r.count for r in rows)
    hakamistos = [r.seat for r in rows if r.count == top] if top >= HAKAMI_MIN else []
    rulings = [RULING_DECLARATION]
    target = s.target
    if target is not None:
        if target in hakamistos:
            case, base = "declared-hakamisto", rows[target].count
            rulings.append(RULING_GV_SEAT)
        elif hakamistos:
            case, base = "declared-not-hakamisto", 0
        else:
            case, base = "declared-no-hakamisto", 0
    elif not hakamistos:
        case, base = "malhakama", MALHAKAMA_GV
    else:
        case, base = "malhakama-hakamisto", 0
    bonus: dict[str, int] = {}
    if s.kept:
        bonus["kept"] = KEPT_BONUS
    if s.matistos:
        bonus["matistos"] = MATISTO_BONUS[min(len(s.matistos), 4)]
        rulings.append(RULING_MATATIS)
    if bonus:
        rulings.append(RULING_BONUS)
    applied, void = (bonus, {}) if base else ({}, bonus)
    gv = base + sum(applied.values())
    won = gv >= B
    sign = 1 if won else -1
    sg = "+" if won else "-"
    awards = [
        ev.Award(seat=d, role="deklaristo", points=sign * (B - S), formula=f"{sg}(B - S) = {sg}({B} - {S}) = {sg}{B - S}")
    ]
    if k >= 0:
        awards.append(ev.Award(seat=k, role="kunulo", points=sign * S, formula=f"{sg}S = {sg}{S}"))
    if any(CENTRO in t for t in s.taken):
        rulings.append(RULING_COUNT_C)
    rulings.append(RULING_SCORE)
    return ev.DealScored(
        **common,
        target=target,
        counts=rows,
        top=top,
        hakamistos=hakamistos,
        gv_case=case,
        gv_base=base,
        bonuses=applied,
        bonuses_void=void,
        gv=gv,
        won=won,
        awards=awards,
        rulings=rulings,
    )


def _match_end(s: HkState) -> ev.MatchEnded:
    totals = {s.players[i]: s.totals[i] for i in range(SEATS)}
    return ev.MatchEnded(deals=s.deal, totals=totals, ranks=ranks_from_scores(totals))


def start(created: MatchCreated) -> HkState:
    return HkState(players=tuple(created.players), options=dict(created.options), ruleset=created.ruleset)
