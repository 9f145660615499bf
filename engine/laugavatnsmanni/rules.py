"""Laugavatnsmanni rule references (cited by refusals and settlements) and the
questions about a state that its commands, fold, scoring and views all ask."""

from __future__ import annotations

from collections.abc import Iterable

from kartludo.engine.base import DealRules
from kartludo.engine.french import suit, value
from kartludo.engine.laugavatnsmanni.state import CONTRACTS, SEATS, LvState, Phase

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




def name(state: LvState, seat: int | None) -> str:
    if seat is None or not 0 <= seat < SEATS:
        return str(seat)
    return state.players[seat]



def without(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    gone = set(cards)
    return tuple(c for c in hand if c not in gone)


def next_dealer(state: LvState) -> int:
    return 0 if state.deal == 0 else (state.dealer + 1) % SEATS



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



def totals_by_name(s: LvState) -> dict[str, int]:
    return {s.players[i]: s.totals[i] for i in range(SEATS)}


DEAL_RULES = DealRules(done=R_DONE, in_progress=R_DEAL, deck=R_DECK)
