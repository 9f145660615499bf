"""A duplicate event: B boards played at T tables, each board at each table a match of
its own (stream ``duplicate-<id>``; docs in README "Duplicate play").

Why a match per board: a board's result must not depend on what the table did before
(an Uxinjo marker near finito, a standing penalty, a Laugavatnsmanni contract used, who
lost the last Svoi Kozyri deal and so deals next), and every match rule (rulings,
appeals, adjusted scores, replay, audit) then works on a board unchanged. A board's
match is created for its table when the table's previous board has ended, dealt the
board's deck at once, and closed when its deal ends (``MatchClosed``), so no second
deal starts in it. Board k seats each table's players turned k - 1 places (the seat
that deals goes round, as in bridge), the same way at every table, and the board's
lot (Svoi Kozyri's first dealer) is the same at every table: seat s holds the same
cards everywhere.

A board is hidden until every table has played it: its deck and the other tables'
results are the TD's alone (``Match.withheld``, which the match reader applies), and
nobody but a TD and the board's own seats reads a board's match while it is hidden.
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
from collections.abc import Sequence
from typing import Any

import msgspec

from kartludo.app.errors import InvalidInput
from kartludo.app.ids import resolve_prefix
from kartludo.app.matches.autodeal import deal_if_due, setting, table_stream
from kartludo.app.matches.fairness import SALT_BYTES, commitment, random_deck
from kartludo.app.matches.fixed import UNKNOWN, remembered
from kartludo.app.matches.pipeline import MatchService, Outcome
from kartludo.app.matches.setup import check_players, check_seed
from kartludo.engine import match as aggregate
from kartludo.engine.base import BadCommand, IllegalCommand, parse_options, seeded_deck
from kartludo.engine.match import AppError, Match, UnknownMatch
from kartludo.engine.registry import get_game
from kartludo.events.duplicate import BoardOf, BoardStarted, DuplicateCreated
from kartludo.events.streams import DUPLICATE_PREFIX, duplicate_stream, match_stream
from kartludo.store import ConcurrencyConflict, EventStore

#: who records a board's creation, deal and closure
DIRECTOR = "duplicate"
MAX_BOARDS = 64
MAX_TABLES = 64


class Duplicate(msgspec.Struct):
    """A duplicate event as its stream holds it."""

    id: str
    created: DuplicateCreated
    version: int
    #: (table, board) -> the board's match at that table, for every board started
    started: dict[tuple[int, int], str]

    @property
    def tables(self) -> int:
        return len(self.created.tables)

    @property
    def boards(self) -> int:
        return self.created.boards

    def seats(self, table: int, board: int) -> list[str]:
        """Table ``table``'s players in seat order on board ``board`` (both from 1)."""
        players = self.created.tables[table - 1]
        turn = (board - 1) % len(players)
        return players[turn:] + players[:turn]

    def latest(self, table: int) -> tuple[int, str] | None:
        """The newest board started at ``table`` and its match (None: none yet)."""
        boards = [b for (t, b) in self.started if t == table]
        return (max(boards), self.started[table, max(boards)]) if boards else None

    def table_of(self, player: str) -> int:
        for i, players in enumerate(self.created.tables, 1):
            if player in players:
                return i
        raise InvalidInput(f"{player!r} plays at no table of duplicate {self.id}")


def parse_tables(text: str) -> list[list[str]]:
    """``"ann,bob,cy;dee,eve,fay"``: tables separated by ``;``, players by ``,``."""
    return [[p.strip() for p in table.split(",") if p.strip()] for table in text.split(";") if table.strip()]


def create_duplicate(svc: MatchService, game_name: str, tables: Sequence[Sequence[str]], boards: int, *,
                     seed: int | None = None, options: dict[str, str] | None = None, actor: str = "",
                     label: str = "") -> str:
    """Create the event and start board 1 at every table; returns its id. The boards'
    decks come from ``seed`` (reproducible: the seed is secret until every board has been
    played) or from the operating system's CSPRNG."""
    game = get_game(game_name)
    check_seed(seed)
    seated: list[list[str]] = [list(t) for t in tables]
    if not 2 <= len(seated) <= MAX_TABLES:
        raise BadCommand(f"a duplicate event needs 2 to {MAX_TABLES} tables (one result has nothing to be "
                         f"compared with), got {len(seated)}")
    if not 1 <= boards <= MAX_BOARDS:
        raise BadCommand(f"a duplicate event has 1 to {MAX_BOARDS} boards, not {boards}")
    for players in seated:
        check_players(game, players)
    if len({len(t) for t in seated}) != 1:
        raise BadCommand("every table of a duplicate event seats as many players (the same cards at each seat), "
                         f"got {', '.join(str(len(t)) for t in seated)}")
    everyone = [p for t in seated for p in t]
    twice = sorted({p for p in everyone if everyone.count(p) > 1})
    if twice:
        raise BadCommand(f"a player sits at one table only: {', '.join(twice)} at more than one")
    resolved = parse_options(game, options or {})
    for players in seated:
        game.check_setup(players, resolved)
    full = game.deck(resolved)
    rng = random.Random(f"duplicate-lots:{seed}") if seed is not None else None
    decks = [list(seeded_deck(full, seed, k)[0]) if seed is not None else list(random_deck(full))
             for k in range(1, boards + 1)]
    lots = [rng.getrandbits(62) if rng is not None else secrets.randbits(62) for _ in range(boards)]
    salts = [secrets.token_hex(SALT_BYTES) for _ in range(boards)]
    created = DuplicateCreated(game=game.name, ruleset=game.ruleset, boards=boards, tables=seated, decks=decks,
                               salts=salts, commitments=[commitment(s, d) for s, d in zip(salts, decks)],
                               lots=lots, options=dict(options or {}), seed=seed, label=label, by=actor)
    duplicate_id = os.urandom(5).hex()
    svc.store.append(duplicate_stream(duplicate_id), [created], 0, actor=actor)
    advance(svc, duplicate_id)
    return duplicate_id


def resolve_duplicate(store: EventStore, text: str) -> str:
    """A duplicate event's id from any unique prefix of it."""
    return resolve_prefix(store, DUPLICATE_PREFIX, text, "duplicate event")


def load_duplicate(store: EventStore, duplicate_id: str) -> Duplicate:
    records = store.read_stream(duplicate_stream(duplicate_id))
    if not records or not isinstance(records[0].event, DuplicateCreated):
        raise UnknownMatch(f"no duplicate event {duplicate_id!r}")
    started = {(r.event.table, r.event.board): r.event.match for r in records if isinstance(r.event, BoardStarted)}
    return Duplicate(duplicate_id, records[0].event, records[-1].version, started)


def list_duplicates(store: EventStore) -> list[Duplicate]:
    return [load_duplicate(store, s.removeprefix(DUPLICATE_PREFIX)) for s in store.streams(DUPLICATE_PREFIX)]


def board_of(store: EventStore, match_id: str) -> BoardOf | None:
    """The board a match is (None: an ordinary match), from its table stream."""
    for rec in store.read_stream(table_stream(match_id)):
        if isinstance(rec.event, BoardOf):
            return rec.event
    return None


def board_link(store: EventStore, match_id: str) -> BoardOf | None:
    """``board_of``, read once per store: a match's link is written in the transaction
    that creates the match and never after. Of a match not created yet nothing is kept
    (a board's id is derived, so it may be asked before the board starts)."""
    def read() -> Any:
        link = board_of(store, match_id)
        if link is None and not store.read_stream(match_stream(match_id), 1, 1):
            return UNKNOWN  # (not created yet: asked again next time)
        return link

    found: BoardOf | None = remembered(store, "board", match_id, read)
    return None if found is UNKNOWN else found


def board_match_id(duplicate_id: str, table: int, board: int) -> str:
    """A board's match id, derived: two processes starting the same board race on one
    stream, and the store keeps one."""
    return hashlib.sha256(f"duplicate:{duplicate_id}:{table}:{board}".encode()).hexdigest()[:12]


# --- moving the tables on -----------------------------------------------------------------
def advance(svc: MatchService, duplicate_id: str) -> int:
    """Bring every table up to date: deal a started board, close a board whose deal has
    ended, start the table's next board. Idempotent, and safe against another process
    doing the same (the store keeps one of each); returns the steps taken."""
    steps = 0
    for table in range(1, load_duplicate(svc.store, duplicate_id).tables + 1):
        while (step := _next_step(svc, duplicate_id, table)) is not None:
            step()
            steps += 1
    return steps


def _next_step(svc: MatchService, duplicate_id: str, table: int) -> Any:
    """What table ``table`` needs next (a function doing it), or None."""
    dup = load_duplicate(svc.store, duplicate_id)
    latest = dup.latest(table)
    if latest is None:
        return lambda: _start(svc, dup, table, 1)
    board, match_id = latest
    match = svc.load(match_id)
    game = match.game
    if game.deal_number(match.state) == 0:
        return lambda: _deal(svc, dup, board, match_id)
    if not match.over and game.can_deal(match.state):
        return lambda: _close(svc, dup, board, table, match_id)
    if match.over and board < dup.boards:
        return lambda: _start(svc, dup, table, board + 1)
    return None


def _start(svc: MatchService, dup: Duplicate, table: int, board: int) -> None:
    match_id = board_match_id(dup.id, table, board)
    link = BoardOf(duplicate=dup.id, board=board, table=table)

    def also(mid: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        return [(duplicate_stream(dup.id), [BoardStarted(board=board, table=table, match=mid)], dup.version),
                *[(stream, [*events, link], version) for stream, events, version in setting(False)(mid, seats)]]

    try:
        svc.create_once(dup.created.game, dup.seats(table, board), options=_typed(dup), actor=DIRECTOR,
                        match_id=match_id, also=also, lot=dup.created.lots[board - 1])
    except ConcurrencyConflict:
        pass  # another process started a board meanwhile: the caller looks again


def _deal(svc: MatchService, dup: Duplicate, board: int, match_id: str) -> None:
    try:
        svc.deal(match_id, dup.created.decks[board - 1], actor=DIRECTOR)
    except (IllegalCommand, AppError):
        svc.load(match_id)  # dealt meanwhile


def _close(svc: MatchService, dup: Duplicate, board: int, table: int, match_id: str) -> None:
    def close(m: Match) -> list[Any]:
        if m.over or not m.game.can_deal(m.state):
            raise IllegalCommand("the board is closed already", "duplicate: a board is one deal")
        return aggregate.close(m, f"board {board} of duplicate {dup.id} played at table {table}")

    try:
        svc.execute(match_id, close, actor=DIRECTOR)
    except (IllegalCommand, AppError):
        svc.load(match_id)


def _typed(dup: Duplicate) -> dict[str, str]:
    """The event's options as typed, for each board's creation (which checks them again)."""
    return dict(dup.created.options)


def after_command(svc: MatchService, match_id: str) -> Outcome | None:
    """What follows a command on any match: the next deal of a table that deals by
    itself, and for a board its closure and the table's next board."""
    dealt = deal_if_due(svc, match_id)
    link = board_link(svc.store, match_id)
    if link is not None:
        advance(svc, link.duplicate)
    return dealt


# --- when a board is hidden ------------------------------------------------------------------
def board_complete(svc: MatchService, dup: Duplicate, board: int) -> bool:
    """Every table has played ``board`` (its match has ended)."""
    matches = [dup.started.get((t, board)) for t in range(1, dup.tables + 1)]
    return all(m is not None and svc.load(m).over for m in matches)


def event_complete(svc: MatchService, dup: Duplicate) -> bool:
    return all(board_complete(svc, dup, k) for k in range(1, dup.boards + 1))


class Boards:
    """Which matches are duplicate boards, and whether each is still hidden, for a
    long-lived reader: a match's link never changes and a board once played everywhere
    stays so, so both are remembered; a hidden board is asked again at each read."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc
        self._complete: set[tuple[str, int]] = set()

    def link(self, match_id: str) -> BoardOf | None:
        return board_link(self.svc.store, match_id)

    def withheld(self, match_id: str) -> bool:
        link = self.link(match_id)
        if link is None or (link.duplicate, link.board) in self._complete:
            return False
        if board_complete(self.svc, load_duplicate(self.svc.store, link.duplicate), link.board):
            self._complete.add((link.duplicate, link.board))
            return False
        return True
