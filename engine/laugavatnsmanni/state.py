"""Laugavatnsmanni state: one immutable struct, replaced field by field by ``evolve``."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

SEATS = 3
SEAT_LABELS = ("A", "B", "C")
HAND = 16
MANNI = 4
TRICKS = 16
MAX_EXCHANGE = 4

#: every contract, in the order the CLI lists them
CONTRACTS = ("nullo", "grand", "spades", "hearts", "diamonds", "clubs")
#: the trump suit of each contract (None: no trump)
TRUMP: dict[str, str | None] = {
    "nullo": None,
    "grand": None,
    "spades": "S",
    "hearts": "H",
    "diamonds": "D",
    "clubs": "C",
}
#: rank for great calls (higher is stronger); Nullo is never a great contract
GREAT_RANK = {"grand": 5, "hearts": 4, "spades": 3, "diamonds": 2, "clubs": 1}
GREAT_CONTRACTS = tuple(sorted(GREAT_RANK, key=GREAT_RANK.__getitem__, reverse=True))


class Phase(str, enum.Enum):
    WAITING_DEAL = "waiting_deal"  # between deals: a ``deal`` command is due
    CONTRACT = "contract"  # the chooser names a contract
    GREAT = "great"  # the chooser's opponents, in turn, call great or pass
    HOLD = "hold"  # someone called great: the chooser holds or yields
    EXCHANGE = "exchange"  # the declarer exchanges 0-4 cards with the Manni
    PLAY = "play"  # 16 tricks
    SCORING = "scoring"  # the 16th trick is taken: the engine scores the deal
    FINISHED = "finished"


class LvState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    players: tuple[str, ...]
    options: dict[str, Any]
    ruleset: str
    target_points: int = 10
    max_deals: int = 18

    phase: Phase = Phase.WAITING_DEAL
    deal: int = 0  # deals started
    dealer: int = -1
    chooser: int = -1
    turn: int = -1  # the seat whose command is awaited (-1: none)

    hands: tuple[tuple[str, ...], ...] = ((), (), ())  # each in ``french.sort_cards`` order
    manni: tuple[str, ...] = ()  # face down, top first (what the exchange left)
    discards: tuple[str, ...] = ()  # the declarer's exchange discards, out of play
    exchanged: int | None = None  # how many cards the declarer exchanged (None: not yet)

    chosen: str | None = None  # the chooser's contract this deal
    contract: str | None = None  # the contract in force (a great one once called and settled)
    great_calls: tuple[tuple[int, str], ...] = ()  # (seat, contract) this deal, in order
    great: bool = False  # the deal is played as a great contract
    held: bool = False  # the chooser held
    declarer: int | None = None

    leader: int = -1  # who led the trick in progress
    trick: tuple[str, ...] = ()  # cards of the trick in progress, in play order from ``leader``
    won: tuple[tuple[str, ...], ...] = ((), (), ())  # cards of the tricks each seat took this deal
    tricks_played: int = 0
    last_trick: tuple[int, int, tuple[str, ...]] | None = None  # (leader, winner, cards)

    used: tuple[tuple[str, ...], ...] = ((), (), ())  # contracts each seat has chosen this match
    great_used: tuple[bool, ...] = (False, False, False)  # each seat's one great call made
    totals: tuple[int, ...] = (0, 0, 0)
    scores: tuple[int, ...] | None = None  # the last scored deal's scores
    end: str | None = None  # "target" or "deals"

    @property
    def trump(self) -> str | None:
        return TRUMP[self.contract] if self.contract is not None else None

    def tricks(self, seat: int) -> int:
        return len(self.won[seat]) // SEATS

    @property
    def great_contract(self) -> str | None:
        return self.great_calls[-1][1] if self.great_calls else None
