"""Uxinjo event types.

Player actions first, then what the engine decides by itself (``derived``): fouls,
settlements, drawn deals and the match end. Settlements record every transfer with
what was asked, what actually moved, and whether a penalty voided it, so the audit
trail and an overturn never have to re-derive history. (Which rulings voided it are
the payee's standing penalties, in the state before the event: naming them in each
transfer made a long match's settlements grow with every penalty ever ruled.)
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.events.base import Event, origin_upcaster, register_union, upcaster
from kartludo.events.match import Ruling


class Transfer(msgspec.Struct, frozen=True, kw_only=True):
    """One payment on a punktobio. ``moved`` is what reached the marker after finito
    capping; a transfer ``void`` (its payee stood penalised, §6.1) moves nothing."""

    payer: int
    payee: int
    amount: int
    moved: int
    reason: str  # "discard", "stock", "e-ajx", "levu"
    void: bool = False


# --- player actions ------------------------------------------------------------


class Drew(Event, frozen=True, kw_only=True, tag="uxinjo.drew"):
    """Drew the stock's top card; ``window_pass`` when this also answered the claim
    window on the previous discard as a pass."""

    seat: int
    card: str
    window_pass: bool = False


class Took(Event, frozen=True, kw_only=True, tag="uxinjo.took"):
    """Took the top discard (action B)."""

    seat: int
    card: str
    window_pass: bool = False


class Discarded(Event, frozen=True, kw_only=True, tag="uxinjo.discarded"):
    seat: int
    card: str


class LevuDeclared(Event, frozen=True, kw_only=True, tag="uxinjo.levu"):
    seat: int


class Exposed(Event, frozen=True, kw_only=True, tag="uxinjo.eltiri"):
    """Eltiri: ``card`` (PJ or AJ) laid open, ``replacement`` drawn from the stock."""

    seat: int
    card: str
    replacement: str


class MuntDeclared(Event, frozen=True, kw_only=True, tag="uxinjo.munt"):
    """A win declared; ``claim`` when out of turn on another player's discard."""

    seat: int
    claim: bool = False


class Passed(Event, frozen=True, kw_only=True, tag="uxinjo.pass"):
    """An explicit pass in a claim window."""

    seat: int


# --- engine decisions ----------------------------------------------------------


class Foul(Ruling, frozen=True, kw_only=True, tag="uxinjo.foul"):
    """An invalid munt (§2.3 3, §6.1): the deal is drawn and the seat is penalised."""

    derived = True
    schema = 2  # 2: ``facts.levu`` names the players, not their seat labels
    words = frozenset({"rule", "facts.reason", "effect.scoring"})


class Settled(Event, frozen=True, kw_only=True, tag="uxinjo.settled"):
    """A valid munt settled (§5). ``win`` is "stock" or "discard"; ``rows`` are the
    points table rows that applied to the best ``split``."""

    derived = True
    ends_deal = True
    schema = 2  # 2: a transfer says ``void``, not the ids of every standing penalty

    deal: int
    winner: int
    win: str
    discarder: int | None
    card: str
    hand: list[str]
    split: list[list[str]]
    rows: dict[str, int]
    points: int
    needed: int
    transfers: list[Transfer]
    lifted: str | None = None
    void_claims: list[int] = []
    levu: list[int] = []
    rulings: list[str] = []  # the project RULINGs this settlement relied on


class DealDrawn(Event, frozen=True, kw_only=True, tag="uxinjo.deal-drawn"):
    """A deal ending without a winner: "stock", "double-munt" or "foul"; levu
    penalties still settle (``transfers``). ``lifted``: the penalties the two valid
    munts of a "double-munt" draw lift, one per claimant who had one (RULING: a penalty
    lifts on any valid munt; a draw recorded before that RULING lifts none)."""

    derived = True
    ends_deal = True
    schema = 2  # as ``Settled``

    deal: int
    reason: str
    claimants: list[int] = []
    transfers: list[Transfer] = []
    levu: list[int] = []
    rulings: list[str] = []
    lifted: list[str] = []


class MatchEnded(Event, frozen=True, kw_only=True, tag="uxinjo.match-ended"):
    """A marker reached finito; ``markers`` as in ``state --json``, ``mp`` per name."""

    derived = True
    ends_deal = True

    deal: int
    markers: dict[str, dict[str, int]]
    mp: dict[str, int]
    fouls: dict[str, int] = {}


def _void_flag(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 named the standing penalties that voided a transfer (``void_by``);
    version 2 says only that it is void (the names are the state's)."""
    data["transfers"] = [{**{k: v for k, v in t.items() if k != "void_by"}, "void": bool(t.get("void_by"))}
                         for t in data.get("transfers", [])]
    return data


#: seat labels as version 1 of a foul's facts wrote them
_LABELS = ("Or", "Su", "Ok")


@origin_upcaster("uxinjo.foul", from_version=1)
def _levu_by_name(data: dict[str, Any], origin: Event | None) -> dict[str, Any]:
    """Version 1 listed the levu declarers in ``facts.levu`` by seat label (Or, Su, Ok);
    version 2 by name, like every other fact, taken from the match's creation. A
    payload read without its stream keeps the labels."""
    players = getattr(origin, "players", None)
    facts = data.get("facts")
    if players and isinstance(facts, dict) and isinstance(facts.get("levu"), list):
        named = [players[_LABELS.index(x)] if x in _LABELS[:len(players)] else x for x in facts["levu"]]
        data["facts"] = {**facts, "levu": named}
    return data


upcaster("uxinjo.settled", from_version=1)(_void_flag)
upcaster("uxinjo.deal-drawn", from_version=1)(_void_flag)


UXINJO_EVENTS: tuple[type[Event], ...] = (
    Drew,
    Took,
    Discarded,
    LevuDeclared,
    Exposed,
    MuntDeclared,
    Passed,
    Foul,
    Settled,
    DealDrawn,
    MatchEnded,
)
uxinjo_decoder = register_union(*UXINJO_EVENTS)
