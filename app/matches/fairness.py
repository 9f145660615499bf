"""Fair deals: a fresh CSPRNG shuffle for every deal of a match without a seed, and a
commitment to every deal's deck that any player can check once the deal is public.

A deal's commitment is the SHA-256 (hex) of the text ``f"{salt}:{' '.join(deck)}"``:
the deck top first, card codes joined by single spaces, and ``salt`` 16 random bytes
in hex, fresh for every deal (also for a deck entered by hand and a seeded deal). Every
seat sees the commitment from the deal's start; the deck and the salt are hidden until
the deal has ended and public afterwards, so a deck cannot be changed once the deal has
started without the commitment showing it. The salt keeps the commitment from being
searched: without it, a seeded deck's hash could be matched against candidate seeds.

``verify_deals`` (``kartludo verify``) checks every commitment and that every seeded
deal is exactly its seed's shuffle; ``check_public_deal`` checks one deal from the
public view alone (``kartludo match check``), as any player can.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from kartludo.engine.base import seeded_deck
from kartludo.engine.registry import get_game
from kartludo.events.match import RANDOM_SHUFFLE, DealStarted, MatchCreated
from kartludo.store import EventStore

SALT_BYTES = 16
#: a card the reader may not see, in every game's views
HIDDEN = "??"


def commitment_text(salt: str, deck: Sequence[str]) -> str:
    """The canonical text a deal's commitment hashes."""
    return f"{salt}:{' '.join(deck)}"


def commitment(salt: str, deck: Sequence[str]) -> str:
    return hashlib.sha256(commitment_text(salt, deck).encode()).hexdigest()


def random_deck(full: Sequence[str]) -> tuple[str, ...]:
    """``full`` shuffled by the operating system's CSPRNG (a match without a seed)."""
    cards = list(full)
    secrets.SystemRandom().shuffle(cards)
    return tuple(cards)


def committed(event: DealStarted) -> DealStarted:
    """The deal with a fresh salt and its commitment (the pipeline adds them: the
    engine stays pure)."""
    salt = secrets.token_hex(SALT_BYTES)
    return msgspec.structs.replace(event, salt=salt, commitment=commitment(salt, event.deck))


def is_seed_key(shuffle: str | None) -> bool:
    """True for a seeded shuffle's key (``"SEED:DEAL"``), the one shuffle name that is secret."""
    return shuffle is not None and shuffle != RANDOM_SHUFFLE and ":" in shuffle


# --- a player's check, from public data ---------------------------------------------------
class DealCheck(msgspec.Struct, frozen=True):
    """One deal's commitment checked from what the public may see."""

    match: str
    deal: int
    #: "ok": the public deck and salt give the commitment; "mismatch": they do not;
    #: "running": the deal has not ended (deck and salt still hidden); "none": the deal
    #: was recorded before commitments existed
    status: Literal["ok", "mismatch", "running", "none"]
    commitment: str
    computed: str | None = None
    salt: str | None = None
    deck: list[str] | None = None

    def __str__(self) -> str:
        head = f"match {self.match} deal {self.deal}"
        if self.status == "ok":
            return f"{head}: ok — sha256(salt:deck) = {self.commitment}"
        if self.status == "mismatch":
            return (f"{head}: MISMATCH — committed {self.commitment}, "
                    f"but the public deck and salt give {self.computed}")
        if self.status == "running":
            return f"{head}: still running — commitment {self.commitment} (deck and salt shown when it ends)"
        return f"{head}: recorded without a commitment"


def check_public_deal(match_id: str, payload: dict[str, Any]) -> DealCheck:
    """Check a ``match.deal-started`` payload as served to a reader without a token."""
    deal = int(payload.get("deal", 0))
    promised = str(payload.get("commitment") or "")
    if not promised:
        return DealCheck(match_id, deal, "none", "")
    deck = [str(c) for c in payload.get("deck") or []]
    salt = str(payload.get("salt") or "")
    if not salt or not deck or HIDDEN in deck:
        return DealCheck(match_id, deal, "running", promised)
    computed = commitment(salt, deck)
    return DealCheck(match_id, deal, "ok" if computed == promised else "mismatch", promised, computed, salt, deck)


def public_deal_payloads(events: Sequence[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Deal number -> its ``match.deal-started`` payload, from events as ``/events`` serves them."""
    return {int(e["payload"]["deal"]): e["payload"] for e in events if e.get("type") == DealStarted.type_tag()}


# --- verify ----------------------------------------------------------------------------------
class DealProblem(msgspec.Struct, frozen=True):
    match: str
    deal: int
    version: int
    reason: str

    def __str__(self) -> str:
        return f"match {self.match} deal {self.deal} (version {self.version}): {self.reason}"


class DealByHand(msgspec.Struct, frozen=True):
    """A deal of a seeded match whose deck was entered by hand (a physical deal): allowed,
    but it is not the seed's deal, so a duplicate table's deal was replaced."""

    match: str
    deal: int
    version: int

    def __str__(self) -> str:
        return f"match {self.match} deal {self.deal}"


class DealReport(msgspec.Struct):
    deals: int = 0
    #: deals carrying a commitment (the others were recorded before commitments existed)
    committed: int = 0
    #: deals dealt from their match's seed, each checked against the seed's shuffle
    seeded: int = 0
    problems: list[DealProblem] = []
    #: deals of seeded matches entered by hand instead of shuffled from the seed
    by_hand: list[DealByHand] = []


def verify_deals(store: EventStore) -> DealReport:
    """Check every deal of every match: its commitment matches its deck and salt, and a
    seeded deal's deck is exactly ``seeded_deck(seed, deal)`` (a TD cannot swap one);
    a seeded match's deal entered by hand is listed (``by_hand``), not passed over."""
    from kartludo.events.streams import MATCH_PREFIX

    report = DealReport()
    for stream in store.streams(MATCH_PREFIX):
        match_id = stream.removeprefix(MATCH_PREFIX)
        records = store.read_stream(stream)
        created = records[0].event if records else None
        if not isinstance(created, MatchCreated):
            continue  # refold_all reports it
        try:
            full = get_game(created.game).deck(created.options)
        except Exception:  # noqa: BLE001 - refold_all reports an unknown game or bad options
            continue
        for rec in records[1:]:
            event = rec.event
            if not isinstance(event, DealStarted):
                continue
            report.deals += 1
            problem = _deal_problem(created, full, event)
            if event.commitment:
                report.committed += 1
            if is_seed_key(event.shuffle):
                report.seeded += 1
            elif created.seed is not None and event.shuffle is None:
                report.by_hand.append(DealByHand(match_id, event.deal, rec.version))
            if problem:
                report.problems.append(DealProblem(match_id, event.deal, rec.version, problem))
    return report


def _deal_problem(created: MatchCreated, full: Sequence[str], event: DealStarted) -> str | None:
    if event.commitment and commitment(event.salt, event.deck) != event.commitment:
        return f"the commitment {event.commitment} is not sha256(salt:deck) of the recorded deck and salt"
    if event.salt and not event.commitment:
        return "a salt but no commitment"
    if created.seed is None:
        if is_seed_key(event.shuffle):
            return f"names the seeded shuffle {event.shuffle!r} but the match has no seed"
        return None
    if event.shuffle == RANDOM_SHUFFLE:
        return "a seeded match's deal was shuffled at random, not from its seed"
    if event.shuffle is None:
        return None  # a deck entered by hand (a physical deal): recorded as such, nothing to compare
    expected, key = seeded_deck(full, created.seed, event.deal)
    if event.shuffle != key:
        return f"names the shuffle {event.shuffle!r}, but deal {event.deal} of this seed is {key!r}"
    if tuple(event.deck) != expected:
        first = next((i for i, (a, b) in enumerate(zip(event.deck, expected)) if a != b), min(len(event.deck),
                                                                                               len(expected)))
        return (f"the deck is not the seed's shuffle for deal {event.deal} "
                f"(first difference at card {first + 1} of {len(expected)})")
    return None
