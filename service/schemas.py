"""Request and response bodies of the HTTP service (msgspec Structs = the OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

# the response shapes of events, replays and command outcomes are the CLI's too
from kartludo.app.reading.presenters import EventOut, OutcomeOut, ReplayOut, ReplayStep  # noqa: F401

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
    #: a refused game command: the rule it breaks (as the rules pages cite it); a command
    #: the game cannot read: the game's commands section
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
    #: the table deals by itself: the first deal at once, then the next whenever one ends
    #: (off: a TD deals each deal, `POST /matches/{id}/deals`, e.g. with a physical deck)
    auto_deal: bool = True
    #: a time control, BASE+INCREMENT (`5m+10s`); a series match: default the series' own
    clock: Word | None = None
    #: a limit on each turn (`60s`)
    move_limit: Word | None = None
    #: what a flag fall does: `bot` (the heuristic bot plays the seat's turn), or `bot-penalty`
    #: (that, and the seat pays the game's time penalty); needs `clock` or `move_limit`
    on_flag: Literal["bot", "bot-penalty"] | None = None
    #: watchers (no token) see the match this far behind the table: `2` (moves) or `30s`
    #: (seconds; `2min`); none: live
    watch_delay: Annotated[str, msgspec.Meta(max_length=20, pattern=TEXT_PATTERN)] | None = None
    #: watchers see every hand, in the delayed view only (needs `watch_delay`)
    watch_hands: bool = False


class AddTime(msgspec.Struct, forbid_unknown_fields=True):
    """A TD's extra time for one seat."""

    #: the player who gets the time
    seat: Name
    #: how much: `60s`, `2m`
    time: Word
    reason: Reason


class ClockChange(msgspec.Struct, forbid_unknown_fields=True):
    """A TD's pause or resumption of a match's clocks."""

    reason: Reason


class WatchSetting(msgspec.Struct, forbid_unknown_fields=True):
    """A TD's watch setting for a match (`PUT /matches/{id}/watch`)."""

    #: how far behind the table watchers are: `2` (moves), `30s` (seconds), `0`: live
    delay: Annotated[str, msgspec.Meta(max_length=20, pattern=TEXT_PATTERN)]
    #: watchers see every hand in the delayed view (needs a delay)
    hands: bool = False
    reason: Annotated[str, msgspec.Meta(max_length=2000, pattern=TEXT_PATTERN)] = ""


class Watch(msgspec.Struct):
    """How watchers (no token) see a match: `delay` (`2 moves`, `30 s` or `live`), as
    `moves` or `seconds`, and whether they see every hand (in the delayed view only)."""

    match: str
    delay: str
    moves: int | None
    seconds: int | None
    hands: bool
    #: the TD who set it ("" for none)
    by: str = ""


class CreatedMatch(msgspec.Struct):
    match: str
    players: list[str]
    #: one secret seat token per player (shown only here; only hashes are stored)
    tokens: dict[str, str]
    #: True when `command_id` had already created this match: the seat tokens above are
    #: new, and the ones the first response carried are revoked
    duplicate: bool = False
    #: the table dealt the first deal (`auto_deal`): the seats may play at once
    dealt: bool = False


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


class RolloutJobRequest(msgspec.Struct):
    """What a rollout job was asked for (the body of ``POST …/rollouts``)."""

    n: int
    bots: str
    seed: int | None
    hidden: str


class RolloutJob(msgspec.Struct):
    """A rollout job (``/hypotheticals/{id}/rollouts/{job}``): ``status`` is ``running``,
    ``done``, ``cancelled``, ``interrupted`` (its server stopped first) or ``failed``;
    ``done`` of ``total`` rollouts played (from another server process: as of its last
    heartbeat); ``result``, once done, the document ``hypo rollout --format json``
    prints (``n``, ``players``, ``outcomes``, …), else null. ``reason`` says why it ended
    other than done; ``stream`` follows it by SSE."""

    job: str
    hypothetical: str
    status: Literal["running", "done", "cancelled", "interrupted", "failed"]
    done: int
    total: int
    request: RolloutJobRequest
    at_version: int
    by: str
    started_at: str | None
    ended_at: str | None
    reason: str | None
    ended_by: str | None
    url: str
    stream: str
    result: dict[str, object] | None = None


# --- success bodies (what the OpenAPI document shows each route answers) ----------------
class MatchRow(msgspec.Struct):
    """One match of `GET /matches` (the rows of `kartludo match list --format json`)."""

    match: str
    game: str
    status: str
    deal: int
    players: list[str]
    series: str | None
    created_at: str


class Moves(msgspec.Struct):
    """A seat's moves now (`GET /matches/{id}/moves`)."""

    #: each legal verb's shape (`verb`, `kind`: plain, cards, number, choice or list, `text`,
    #: and the kind's fields: `cards`, `count_min`, `count_max`, `ordered`, `sides`, `min`,
    #: `max`, `choices`, `commands`); together exactly the seat's legal commands
    shapes: list[dict[str, Any]]
    #: command -> what to confirm first (`text`, `rule`)
    cautions: dict[str, dict[str, str]]


class SeatClock(msgspec.Struct):
    #: the seat's remaining time now (as of `as_of`), in milliseconds
    remaining_ms: int
    #: the seat is to act and its clock runs (false while the match is paused)
    running: bool
    #: the seat's flag falls standing (not overturned)
    flags: int


class ClockOut(msgspec.Struct):
    """A match's clocks (`GET /matches/{id}/clock`; `state`'s `clock`)."""

    #: the time control as typed: `5m+10s`, `1m a turn`, or both
    control: str
    base_ms: int
    increment_ms: int
    move_limit_ms: int
    #: what a flag fall does: `bot` (the game's heuristic bot plays the seat's turn) or
    #: `bot-penalty` (that, and the seat pays the game's time penalty)
    consequence: str
    paused: bool
    #: the server's time of these figures (UTC, ISO 8601)
    as_of: str
    #: per player, in seat order
    seats: dict[str, SeatClock]


class TableFacts(msgspec.Struct):
    """The TD's facts about a match's table (`GET /matches/{id}/table`)."""

    match: str
    status: str
    deal: int
    #: a deal may start now (the TD page's Deal next)
    can_deal: bool
    #: the match deals by itself when a deal ends
    auto_deal: bool
    #: the table's next deal is due (it deals when asked)
    deal_due: bool
    #: closed by its series' deadline
    closed: bool


class GameOption(msgspec.Struct):
    default: Any
    help: str


class GameTotal(msgspec.Struct):
    #: the standings' column for the game's own total
    column: str
    #: what it counts
    legend: str


class GameInfo(msgspec.Struct):
    """One game as `GET /games` lists it (public: no match, no card of anyone's)."""

    name: str
    title: str
    ruleset: str
    player_counts: list[int]
    #: the seat labels, for the most players the game takes
    seats: list[str]
    options: dict[str, GameOption]
    #: each verb's argument shape
    verbs: list[dict[str, Any]]
    deck_size: int
    total: GameTotal
    rules_page: str
    table_module: str


class SeriesListed(msgspec.Struct):
    """One series of `GET /series` (the rows of `kartludo series list --format json`)."""

    series: str
    game: str
    status: Literal["upcoming", "running", "ended"]
    starts_at: str
    deadline: str
    minutes: int
    matches: int
    players: list[str]


# --- duplicate play (issue 39) ---------------------------------------------------------------
#: a duplicate event's limits (``app.duplicate.boards``): boards, tables, players at a table
DUPLICATE_BOARDS = 64
DUPLICATE_TABLES = 64
TABLE_SEATS = 16


class CreateDuplicate(msgspec.Struct, forbid_unknown_fields=True):
    """A duplicate event (`POST /duplicates`): `tables` are each table's players in seat
    order (every table seats as many; a player sits at one table only)."""

    game: Name
    tables: Annotated[list[Annotated[list[Name], msgspec.Meta(max_length=TABLE_SEATS)]],
                      msgspec.Meta(max_length=DUPLICATE_TABLES)]
    #: how many boards (a deck each)
    boards: Annotated[int, msgspec.Meta(ge=1, le=DUPLICATE_BOARDS)]
    #: derive the boards' decks from this seed (a reproducible event; secret while it runs)
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    #: the game's options as typed, for every board
    options: Annotated[dict[Word, Word], msgspec.Meta(max_length=32)] = {}
    label: Word = ""


class CreatedDuplicate(msgspec.Struct):
    """A new duplicate event: board 1 is under way at every table."""

    duplicate: str
    game: str
    boards: int
    tables: list[list[str]]
    #: one secret player token per player (shown only here; only hashes are stored): it
    #: plays the player's seat in every board of the event, and reads as the public elsewhere
    tokens: dict[str, str]
    #: each table's board 1 (its match), table 1 first
    started: list[str]


class DuplicateRow(msgspec.Struct):
    """One duplicate event of `GET /duplicates` (`kartludo duplicate list --format json`)."""

    duplicate: str
    game: str
    label: str
    boards: int
    tables: int
    #: the boards every table has played
    complete: int


class BoardProgress(msgspec.Struct):
    """One board at one table: `played`, `playing` or `waiting` (not started there)."""

    board: int
    status: Literal["played", "playing", "waiting"]
    #: the board's match at this table, once started
    match: str | None = None
    #: a board in play (a TD's view only): its deal's phase and who is to act
    phase: str | None = None
    to_act: list[str] | None = None


class TableProgress(msgspec.Struct):
    table: int
    #: the table's players as the event seats them (board 1's seat order)
    players: list[str]
    #: the seat order of the table's newest board (board k turns them k - 1 places)
    seats: list[str]
    boards: list[BoardProgress]


class DuplicateProgress(msgspec.Struct):
    """A duplicate event's progress (`GET /duplicates/{id}`): boards × tables."""

    duplicate: str
    game: str
    label: str
    boards: int
    tables: list[TableProgress]
    #: the boards every table has played (their travellers are public)
    complete: list[int]
    #: each board's public commitment (SHA-256 of its salt and deck): checkable once it is shown
    commitments: list[str]
    #: boards played, over all tables, of `total` (boards × tables)
    played: int
    total: int


class DuplicateSeat(msgspec.Struct):
    """Where a player token's player plays now (`GET /duplicates/{id}/me`)."""

    duplicate: str
    player: str
    table: int
    boards: int
    #: the player's board now (the newest started at their table), its match and the seat there
    board: int
    match: str
    seat: int
    #: that board has ended: with `board` = `boards`, the player has played every board
    over: bool
    #: the boards the player has played
    played: int
