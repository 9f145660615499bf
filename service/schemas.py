"""Request and response bodies of the HTTP service (msgspec Structs = the OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

#: ids, names and filters: what match ids, player, game, series and ruling names use
ID_PATTERN = r"^[A-Za-z0-9_.\-]{1,100}$"
#: free text (reasons, command words): no control characters, no NUL (PostgreSQL text refuses it)
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
Name = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
CommandId = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=TEXT_PATTERN)]
Word = Annotated[str, msgspec.Meta(max_length=100, pattern=TEXT_PATTERN)]
Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=2000, pattern=TEXT_PATTERN)]


class ErrorBody(msgspec.Struct):
    error: str
    rule: str | None = None


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


class EventOut(msgspec.Struct):
    position: int
    version: int
    type: str
    payload: dict[str, Any]
    actor: str = ""
    command_id: str = ""
    recorded_at: str = ""
    stream_id: str = ""
    schema_version: int = 1
    #: the event's chain hash; null while it would commit to something hidden from the caller
    hash: str | None = None
    #: the event in one line, as the CLI's replay shows it (in the same view as `payload`)
    description: str = ""


class OutcomeOut(msgspec.Struct):
    match: str
    first_version: int
    positions: list[int]
    duplicate: bool
    #: the events the command caused, in the caller's view
    events: list[EventOut]
    #: the match after the command, in the caller's view (as `GET .../state`), so a
    #: client need not ask again before its next move
    state: dict[str, Any] = {}
    #: a seat caller's legal commands after the command (empty for a TD)
    legal: list[str] = []
    #: the same commands verb by verb as shapes (`engine.shapes`): which of the seat's
    #: cards and how many, a number range, a choice, or the verb alone
    shapes: list[dict[str, Any]] = []
    #: what to confirm before some of those commands (`Game.caution`): command text ->
    #: {"text", "rule"}, judged from the seat's own view
    cautions: dict[str, dict[str, str]] = {}
    #: the command ended a deal of an `auto_deal` match and the table dealt the next
    #: (`state`, `legal` and `shapes` are after that deal)
    dealt: bool = False


class ReplayStep(msgspec.Struct):
    step: int
    of: int
    description: str
    event: EventOut
    state: dict[str, Any]
    #: an event the engine decided (a ruling or a settlement): where `r` stops in a viewer
    ruling: bool = False
    #: the turn or trick the step belongs to (0, 1, …): ↑/↓ in a viewer move by these
    turn: int = 0


class ReplayOut(msgspec.Struct):
    match: str
    deal: int
    deals: list[int]
    #: True when the deal has ended (its replay is public: every hand shown)
    ended: bool
    steps: list[ReplayStep]
    #: whose view the steps show: "all", "public" or a player's name
    view: str = "all"


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
