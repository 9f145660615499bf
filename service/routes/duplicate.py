"""Duplicate play over HTTP (issue 39): create an event, follow its progress, read a
board's traveller and the standings, and find a player's board in play.

A duplicate event's rules are the library's (``app.duplicate``): each board at each
table is a match of its own, played through the match routes with the player's one
token (``service.auth`` resolves it to the player's seat in each board of the event).
What may be read before a board has been played at every table is decided here as on
the command line: a TD reads everything; anyone else a board's status at each table,
never its deck nor any table's result on it until every table has played it.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Response, get, post
from litestar.concurrency import sync_to_thread
from litestar.exceptions import NotFoundException, PermissionDeniedException
from litestar.params import JSONBody, Parameter

from kartludo.app.duplicate.boards import (
    Duplicate,
    board_complete,
    create_duplicate,
    list_duplicates,
    load_duplicate,
    resolve_duplicate,
)
from kartludo.app.duplicate.scores import Standings, Traveller, progress, standings, traveller
from kartludo.app.errors import AppError
from kartludo.app.tokens import PLAYER, Principal, issue_player_tokens
from kartludo.service import schemas as s
from kartludo.service.deps import Caller, Svcs, User, authenticated, td_only
from kartludo.service.errors import responses
from kartludo.service.services import Services

DuplicateId = Annotated[str, Parameter(pattern=s.ID_PATTERN, description="a duplicate event's id (any unique prefix)")]
# (a string in the path, as every path parameter here: a malformed one is a 422 naming it,
# not a path that does not exist)
Board = Annotated[str, Parameter(pattern=r"^[0-9]{1,6}$", description="the board, from 1")]
_TEXT = {403: "not a TD token (a board not yet played at every table), or not this event's player token",
         404: "unknown duplicate event or board"}


def _errs(*codes: int) -> dict[int, Any]:
    return responses(*codes, text=_TEXT)


def _is_td(who: Principal | None) -> bool:
    return who is not None and who.role == "td"


def _event(services: Services, text: str) -> Duplicate:
    """The event a path names (any unique prefix of its id; 404 for none)."""
    return load_duplicate(services.store, resolve_duplicate(services.store, text))


# (/duplicates has a GET and a POST: async, their store calls in a worker thread, as /matches)
@post("/duplicates", guards=[td_only], responses=_errs(401, 403, 413, 415, 422))
async def create_event(services: Svcs, user: User, data: JSONBody[s.CreateDuplicate]) -> Response[s.CreatedDuplicate]:
    """Create a duplicate event (TD token): `boards` boards (a deck each, from `seed` or
    the server's CSPRNG) played at every table of `tables`, each table's players in seat
    order; board 1 starts at every table at once, and each table's next board when its
    board ends. 201 with its URL in `Location`, and one secret player token per player
    (shown only here): it plays the player's seat in every board of the event (the
    match routes take it for each board's match) and reads as the public elsewhere."""
    created = await sync_to_thread(_create, services, user, data)
    return Response(created, status_code=201, headers={"Location": f"/duplicates/{created.duplicate}"})


def _create(services: Services, user: Principal, data: s.CreateDuplicate) -> s.CreatedDuplicate:
    actor = user.label or "td"
    duplicate_id = create_duplicate(services.svc, data.game, data.tables, data.boards, seed=data.seed,
                                    options=dict(data.options), actor=actor, label=data.label)
    dup = load_duplicate(services.store, duplicate_id)
    players = [p for table in dup.created.tables for p in table]
    secrets = issue_player_tokens(services.store, duplicate_id, players, actor=actor)
    services.wrote(user)
    started = [dup.started[t, 1] for t in range(1, dup.tables + 1) if (t, 1) in dup.started]
    for match_id in started:
        services.live.notify(match_id)
    return s.CreatedDuplicate(duplicate_id, dup.created.game, dup.boards, [list(t) for t in dup.created.tables],
                              dict(zip(players, secrets)), started)


@get("/duplicates", responses=_errs(401))
async def get_events(services: Svcs) -> list[s.DuplicateRow]:
    """Every duplicate event (as `kartludo duplicate list --format json`): its id, game,
    label, boards, tables, and how many boards every table has played."""
    return await sync_to_thread(_rows, services)


def _rows(services: Services) -> list[s.DuplicateRow]:
    svc = services.svc
    return [s.DuplicateRow(d.id, d.created.game, d.created.label, d.boards, d.tables,
                           sum(1 for k in range(1, d.boards + 1) if board_complete(svc, d, k)))
            for d in list_duplicates(services.store)]


@get("/duplicates/{duplicate_id:str}", sync_to_thread=True, responses=_errs(401, 404))
def get_event(services: Svcs, who: Caller, duplicate_id: DuplicateId) -> s.DuplicateProgress:
    """A duplicate event's progress, boards × tables: each board at each table `played`,
    `playing` or `waiting`, with its match once started; for a TD token also the phase
    of each board in play and who is to act there (nobody else learns how a board not
    yet played everywhere goes). With each board's public commitment, and the boards
    every table has played (whose travellers anyone may read)."""
    dup = _event(services, duplicate_id)
    td = _is_td(who)
    rows = progress(services.svc, dup)
    tables = [s.TableProgress(r["table"], list(r["players"]), list(r["seats"]),
                              [s.BoardProgress(b["board"], b["status"], b["match"],
                                               b.get("phase") if td else None, b.get("to_act") if td else None)
                               for b in r["boards"]]) for r in rows]
    complete = [k for k in range(1, dup.boards + 1)
                if all(t.boards[k - 1].status == "played" for t in tables)]
    played = sum(1 for t in tables for b in t.boards if b.status == "played")
    return s.DuplicateProgress(dup.id, dup.created.game, dup.created.label, dup.boards, tables, complete,
                               list(dup.created.commitments), played, dup.boards * dup.tables)


@get("/duplicates/{duplicate_id:str}/boards/{board:str}", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_traveller(services: Svcs, who: Caller, duplicate_id: DuplicateId, board: Board) -> Traveller:
    """A board's traveller: every table's result on it, seat by seat, with its
    matchpoints (2 per table beaten at that seat, 1 per tie), percentage and difference
    from the seat's mean, and the board's deck and salt (checkable against its
    commitment). Anyone reads it once every table has played the board; before that a
    TD token only (the tables that have played it so far), everyone else a 403 naming
    the tables still to play it."""
    dup = _event(services, duplicate_id)
    number = int(board)
    if not 1 <= number <= dup.boards:
        raise NotFoundException(f"duplicate {dup.id} has boards 1 to {dup.boards}, not {board}")
    return traveller(services.svc, dup, number, td=_is_td(who))


@get("/duplicates/{duplicate_id:str}/standings", sync_to_thread=True, responses=_errs(401, 404))
def get_standings(services: Svcs, duplicate_id: DuplicateId) -> Standings:
    """The event's standings (as `kartludo duplicate standings --format json`): each
    player's matchpoints over the boards every table has played, as a percentage of the
    top, ranked by it (then by the summed difference from each board's mean). A board
    still being played somewhere is in nobody's total yet, so they are public."""
    return standings(services.svc, _event(services, duplicate_id))


@get("/duplicates/{duplicate_id:str}/me", sync_to_thread=True, guards=[authenticated],
     responses=_errs(401, 403, 404))
def get_my_board(services: Svcs, user: User, duplicate_id: DuplicateId) -> s.DuplicateSeat:
    """Where the player of a player token of this event plays now: their table, their
    board in play (the newest started at their table) with its match and their seat
    there, whether it has ended, and how many boards they have played. A table page
    moves on to the next board with it. Only this event's player tokens (403 for
    another token)."""
    dup = _event(services, duplicate_id)
    if user.role != PLAYER or user.duplicate != dup.id:
        raise PermissionDeniedException(f"this needs a player token of duplicate {dup.id} (a token issued for "
                                        "one of its players when the event was created)")
    player = user.label
    table = dup.table_of(player)
    latest = dup.latest(table)
    if latest is None:
        raise AppError(f"no board has started at table {table} of duplicate {dup.id} yet")
    board, match_id = latest
    match = services.svc.load(match_id)
    played = board - 1 + match.over  # a table starts its next board only once the last has ended
    return s.DuplicateSeat(dup.id, player, table, dup.boards, board, match_id, match.players.index(player),
                           match.over, played)


ROUTES = [create_event, get_events, get_event, get_traveller, get_standings, get_my_board]
