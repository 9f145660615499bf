"""Request and response bodies of the HTTP service (msgspec Structs = the OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

# the response shapes of events, replays and command outcomes are the CLI's too
from kartludo.app.presenters import EventOut, OutcomeOut, ReplayOut, ReplayStep  # noqa: F401

#: ids, names and filters: what match ids, player, game, series and ruling names use
ID_PATTERN = r"^[A-Za-z0-9_.\-]{1,100}$"
#: free text (reasons, command words): no control characters, no NUL (PostgreSQL text refuses it)
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
Name = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
CommandId = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=TEXT_PATTERN)]
Word = Annotated[str, msgspec.Meta(max_length=100, pattern=TEXT_PATTERN)]
Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=2000, pattern=TEXT_PATTERN)]


class Problem(msgspec.Struct):
    """An error as RFC 9457 problem details (``application/problem+json``), with the
    fields clients of earlier versions read: ``error`` (= ``detail``) and ``rule``."""

    #: a URI naming the kind of problem: the API docs' section on it (``/schema#problem-…``)
    type: str
    #: the kind of problem in a few words (the same for every problem of a type)
    title: str
    status: int
    #: what went wrong with this request, in one sentence
    detail: str
    #: the same text as `detail` (read by clients written before problem details)
    error: str
    #: a refused game command: the rule it breaks (as the rules pages cite it)
    rule: str | None = None
    #: a malformed request: each bad field (`source`, `key`, `message`)
    errors: list[dict[str, str]] | None = None


class CreateMatch(msgspec.Struct, forbid_unknown_fields=True):
    game: Name
    players: Annotated[list[Name], msgspec.Meta(max_length=16)] = []
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    options: Annotated[dict[Word, Word], msgspec.Meta(max_length=32)] = {}
    series: Name | None = None
    #: idempotency key: a retried creation with the same id returns the same match
    command_id: CommandId | None = None
    #: start the next deal by itself when one ends (the first deal is the TD's)
    auto_deal: bool = True


class CreatedMatch(msgspec.Struct):
    match: str
    players: list[str]
    #: one secret seat token per player (shown only here; only hashes are stored)
    tokens: dict[str, str]
    #: True when `command_id` had already created this match: the seat tokens above are
    #: new, and the ones the first response carried are revoked
    duplicate: bool = False


class StartDeal(msgspec.Struct, forbid_unknown_fields=True):
    #: the deck as dealt, top first (default: the match's seeded shuffle)
    deck: Annotated[list[Word], msgspec.Meta(max_length=200)] | None = None
    command_id: CommandId | None = None


class SubmitCommand(msgspec.Struct, forbid_unknown_fields=True):
    verb: Word
    args: Annotated[list[Word], msgspec.Meta(max_length=60)] = []
    command_id: CommandId | None = None


class Me(msgspec.Struct):
    role: str
    match: str | None = None
    seat: int | None = None
    player: str | None = None
    label: str = ""


class Appeal(msgspec.Struct, forbid_unknown_fields=True):
    reason: Reason


class Decide(msgspec.Struct, forbid_unknown_fields=True):
    decision: Literal["uphold", "overturn", "adjust"]
    reason: Reason
    #: "adjust": hypothetical id -> weight (summing to 1), or player -> the deal's score
    adjust: Annotated[dict[Name, float], msgspec.Meta(max_length=20)] | None = None
    adjust_scores: Annotated[dict[Name, int], msgspec.Meta(max_length=10)] | None = None

    def adjusting(self) -> dict[str, str | None]:
        """The adjustment as ``audit decide`` takes it on the command line."""
        return {"adjust": ",".join(f"{h}:{w!r}" for h, w in self.adjust.items()) if self.adjust else None,
                "adjust_scores": ",".join(f"{p}={v:+d}" for p, v in self.adjust_scores.items())
                if self.adjust_scores else None}
