"""Uxinjo state: one immutable struct, replaced field by field by ``evolve``."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

SEATS = 3
SEAT_LABELS = ("Or", "Su", "Ok")
FINITO = 6
#: cards at the bottom of the stock that are never drawn (revealed card + the one under it)
KEPT = 2


class Phase(str, enum.Enum):
    WAITING_DEAL = "waiting_deal"  # between deals: a ``deal`` command is due
    TURN = "turn"  # the active seat draws or takes (may declare levu first)
    DISCARD = "discard"  # six cards held: discard, munt, eltiri or levu
    CLAIM = "claim"  # the two others answer munt or pass on the newest discard
    JUDGING = "judging"  # munt(s) declared or stock exhausted: the engine settles
    FINISHED = "finished"


class PenaltyRow(msgspec.Struct, frozen=True, array_like=True, tag="penalty"):
    """A foul ruled against ``seat``: its penalty voids what the seat is paid until lifted."""

    ruling_id: str
    seat: int


class SettleRow(msgspec.Struct, frozen=True, array_like=True, tag="settle"):
    """A deal's transfers (payer, payee, amount, reason) as owed, before penalties and
    finito, and the seats whose valid munt lifts a penalty (the winner; both claimants
    of a deal drawn by two valid munts: RULING, a penalty lifts on any valid munt)."""

    munts: tuple[int, ...]
    transfers: tuple[tuple[int, int, int, str], ...]


class AdjustRow(msgspec.Struct, frozen=True, array_like=True, tag="adjust"):
    """A TD's adjusted score: what each seat's total gains. The marker moves are worked
    out from the markers standing when it applies (``adjusted_markers``), never past
    finito, so an overturn's recomputation keeps the award within bounds too."""

    award: tuple[int, int, int]


#: ledger rows, for recomputing markers after an overturn: encoded as ["penalty", id, seat] etc.
LedgerRow = PenaltyRow | SettleRow | AdjustRow

_row_encoder = msgspec.msgpack.Encoder()
_rows_decoder = msgspec.msgpack.Decoder(tuple[LedgerRow, ...])


class Ledger(msgspec.Struct, frozen=True, array_like=True):
    """Every deal's transfers and every penalty, in order, kept as their msgpack rows
    back to back. Only an overturn or an adjusted score reads them (``rows``), yet a
    long match holds thousands: packed, a snapshot decodes them as a few bytes values,
    where typed rows cost a struct each on every cold load (1.2 ms of a 1,000-deal
    match's 1.6 ms snapshot decode). Adding one copies only the open ``tail``; a full
    tail is sealed, shared by every later state: a fold stays linear in the match."""

    count: int = 0
    sealed: tuple[bytes, ...] = ()
    tail: bytes = b""

    def add(self, row: LedgerRow) -> Ledger:
        tail = self.tail + _row_encoder.encode(row)
        if len(tail) >= _SEAL_AT:
            return Ledger(self.count + 1, self.sealed + (tail,))
        return Ledger(self.count + 1, self.sealed, tail)

    def rows(self) -> tuple[LedgerRow, ...]:
        # a msgpack array32 header makes the packed rows one array
        return _rows_decoder.decode(b"".join((b"\xdd" + self.count.to_bytes(4, "big"), *self.sealed, self.tail)))


#: bytes of rows in the open tail before it is sealed (about a hundred rows)
_SEAL_AT = 2048


class UxState(msgspec.Struct, frozen=True, kw_only=True):
    players: tuple[str, ...]
    options: dict[str, Any]
    ruleset: str
    needed_base: int = 2

    phase: Phase = Phase.WAITING_DEAL
    deal: int = 0  # deals started
    dealer: int = -1  # this deal's dealer (-1 before the first deal)

    hands: tuple[tuple[str, ...], ...] = ((), (), ())  # each sorted by ``jx.ORDER``
    stock: tuple[str, ...] = ()  # top first; [-2] is the revealed card
    revealed: str | None = None
    discards: tuple[str, ...] = ()  # bottom first; only [-1] is visible
    exposed: tuple[tuple[str, ...], ...] = ((), (), ())  # E-PJx / E-AJx per seat

    active: int = -1  # seat whose turn it is (the discarder during a claim window)
    first_turn_done: tuple[bool, ...] = (False, False, False)
    levu: tuple[int, ...] = ()  # declarers, in order
    source: str | None = None  # where the sixth card came from: "stock" or "discard"
    drawn: str | None = None  # the card just drawn (A or eltiri replacement)
    taken: str | None = None  # the card taken from the discard pile this turn
    taken_from: int | None = None  # who discarded it

    answers: tuple[str | None, ...] = (None, None, None)  # claim window: "munt"/"pass"
    munts: tuple[int, ...] = ()  # seats that declared munt (own turn: one seat)
    claim: bool = False  # the munts are claims on a discard
    deal_fouls: tuple[int, ...] = ()  # seats ruled foul this deal
    exhausted: bool = False  # the last window closed with no munt

    markers: tuple[int, int, int] = (0, 0, 0)  # pairs (0,1), (0,2), (1,2); + = towards the lower seat
    penalties: tuple[tuple[str, ...], ...] = ((), (), ())  # active penalty ruling ids, oldest first
    fouls: tuple[int, int, int] = (0, 0, 0)  # fouls standing per seat (ruled, not overturned)
    overturned: tuple[str, ...] = ()
    appealed: tuple[str, ...] = ()
    ledger: Ledger = Ledger()
    end: str | None = None  # why the match finished: "finito" or "overturn"

    @property
    def needed(self) -> int:
        """Points needed to win this deal (RULING: 2 + 1 per valid levu)."""
        return self.needed_base + (len(self.levu) if len(self.levu) < SEATS else 0)

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def top_discard(self) -> str | None:
        return self.discards[-1] if self.discards else None

    @property
    def last_window(self) -> bool:
        return len(self.stock) <= KEPT


PAIRS = ((0, 1), (0, 2), (1, 2))
_PAIR_INDEX = {(0, 1): 0, (0, 2): 1, (1, 2): 2}


def marker(markers: tuple[int, int, int], towards: int, other: int) -> int:
    """The marker between two seats, positive = towards ``towards``."""
    if towards < other:
        return markers[_PAIR_INDEX[(towards, other)]]
    return -markers[_PAIR_INDEX[(other, towards)]]


def pay(markers: tuple[int, int, int], payer: int, payee: int, amount: int) -> tuple[tuple[int, int, int], int]:
    """Move the pair's marker ``amount`` towards ``payee``, stopping at finito
    (RULING); returns the new markers and what actually moved."""
    if payer == payee or amount <= 0:
        return markers, 0
    now = marker(markers, payee, payer)
    moved = max(0, min(amount, FINITO - now))
    if not moved:
        return markers, 0
    return move(markers, payee, payer, moved), moved


def move(markers: tuple[int, int, int], payee: int, payer: int, moved: int) -> tuple[int, int, int]:
    lo, hi = (payee, payer) if payee < payer else (payer, payee)
    i = _PAIR_INDEX[(lo, hi)]
    delta = moved if payee == lo else -moved
    out = list(markers)
    out[i] += delta
    return (out[0], out[1], out[2])


def adjusted_markers(markers: tuple[int, int, int], award: tuple[int, ...]) -> tuple[int, int, int]:
    """The markers after a TD's adjusted score (RULING, adjusted scores): each seat's
    total (t0 = m01 + m02, t1 = m12 - m01, t2 = -m02 - m12) gains ``award`` (summing to
    0), the markers moving as little as possible and staying within -6...+6.

    The moves are (z - a1, -z - a2, z) for one free z: the least movement is the median
    of (a1, -a2, 0), clamped into the z that keep every marker within bounds. Where no
    z does (an award no marker position gives), the z that overshoots least is taken
    and each marker stops at finito, as a transfer does (RULING §2.1)."""
    m01, m02, m12 = markers
    _, a1, a2 = (max(-4 * FINITO, min(4 * FINITO, a)) for a in award)
    lo = max(a1 - FINITO - m01, m02 - a2 - FINITO, -FINITO - m12)
    hi = min(a1 + FINITO - m01, m02 - a2 + FINITO, FINITO - m12)
    best = sorted((a1, -a2, 0))[1]
    if lo <= hi:
        z = min(max(best, lo), hi)
    else:
        def overshoot(z: int) -> tuple[int, int, int]:
            after = (m01 + z - a1, m02 - z - a2, m12 + z)
            return sum(max(0, abs(m) - FINITO) for m in after), abs(z - best), z
        z = min(range(-8 * FINITO, 8 * FINITO + 1), key=overshoot)
    return (_bound(m01 + z - a1), _bound(m02 - z - a2), _bound(m12 + z))


def _bound(m: int) -> int:
    return max(-FINITO, min(FINITO, m))


def at_finito(markers: tuple[int, int, int]) -> bool:
    return any(abs(m) >= FINITO for m in markers)


def mp_for(m: int) -> int:
    """Match points from one marker facing the player (§6)."""
    if m >= FINITO:
        return 3
    if m <= -FINITO:
        return -3
    return (m > 0) - (m < 0)


def match_points(markers: tuple[int, int, int]) -> tuple[int, ...]:
    return tuple(sum(mp_for(marker(markers, s, o)) for o in range(SEATS) if o != s) for s in range(SEATS))
