"""Matches: create, list, read (state, events, replay), deal, command.

Guards say who may call (``td_only``, ``seat_only``); the caller, the match id (any
unique prefix), the seat and the view arrive by dependency injection (``service.auth``).
What a reader sees is ``app.visibility``'s policy, applied by the match reader
(``app.reading.reader``) and laid out by ``app.reading.presenters``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, Response, get, post
from litestar.concurrency import sync_to_thread
from litestar.exceptions import NotFoundException
from litestar.params import JSONBody, Parameter

from kartludo.app import watching
from kartludo.app.duplicate.boards import after_command
from kartludo.app.errors import AppError
from kartludo.app.league import listing
from kartludo.app.matches import autodeal, clock
from kartludo.app.reading.presenters import view_name
from kartludo.app.tokens import Principal, reissue_seat_tokens, seat_tokens_stream, token_events
from kartludo.engine.base import ALL, PUBLIC, Viewer
from kartludo.service import schemas as s
from kartludo.service.auth import viewer_of
from kartludo.service.deps import Caller, MatchOf, Seat, Svc, Svcs, User, View, seat_only, td_only
from kartludo.service.errors import responses
from kartludo.service.pagination import LINK_HEADER, Cursor, Limit, next_link, page
from kartludo.service.services import Services

Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]
Position = Annotated[int, Parameter(ge=0, le=2**62)]


def caller_scope(who: Principal) -> str:
    """Whose idempotency keys a TD's request uses: its token's (a seat's keys are its seat's)."""
    return f"token {who.token_hash}"


# (/matches has a GET and a POST: Litestar 2 wraps the first of two sync handlers of a
# path in a thread twice, which a handler returning a Response does not survive, so
# these two are async and run their store calls in a worker thread themselves)
@post("/matches", guards=[td_only], responses=responses(401, 403, 404, 409, 413, 415, 422))
async def create_match(services: Svcs, user: User, data: JSONBody[s.CreateMatch]) -> Response[s.CreatedMatch]:
    """Create a match (TD token): 201 with its URL in `Location`. Returns one secret
    seat token per player, shown only here. With `auto_deal` (the default) the table
    deals the first deal at once (`dealt`), as it deals each next one when a deal ends;
    without it a TD deals each deal. A retry with the same `command_id` returns
    the same match with `duplicate` set and new seat tokens (the first ones are revoked:
    a secret is never stored). A `command_id` is the TD token's own: another token's
    same key makes another match, and the same key with a different request is a 409."""
    created = await sync_to_thread(_create_match, services, user, data)
    return Response(created, status_code=201, headers={"Location": f"/matches/{created.match}"})


def _create_match(services: Services, user: Principal, data: s.CreateMatch) -> s.CreatedMatch:
    svc = services.svc
    issued: dict[str, list[str]] = {}
    actor = user.label or "td"
    # a watch setting that cannot be is refused before anything is written
    watch = watching.creation(data.watch_delay, data.watch_hands, actor)

    def seat_tokens(match_id: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        # the match and its seat tokens (in the match's own tokens stream) in one transaction
        secrets, events = token_events([("seat", match_id, i, p) for i, p in enumerate(seats)])
        issued["secrets"] = secrets
        return [(seat_tokens_stream(match_id), events, 0)]

    control = clock.control_of(data.clock, data.move_limit, data.on_flag or "bot",
                               on_flag_given=data.on_flag is not None)
    if control is None and data.series:
        control = clock.series_control(services.store, data.series)
    match_id, duplicate = svc.create_once(data.game, data.players, seed=data.seed, options=data.options,
                                          series=data.series, actor=actor, command_id=data.command_id,
                                          caller=caller_scope(user),
                                          also=autodeal.both(seat_tokens, autodeal.setting(data.auto_deal),
                                                             clock.setting(control), watch))
    with services.locked(match_id):
        match = svc.load(match_id)
        players = match.players
        # the table deals the first deal as it deals every next one (a retry deals the
        # first deal if a first attempt left it undealt, nothing else)
        first = data.auto_deal and match.game.deal_number(match.state) == 0
        dealt = first and autodeal.deal_if_due(svc, match_id) is not None
    if duplicate:
        issued["secrets"] = reissue_seat_tokens(services.store, match_id, players, actor=actor,
                                                reason=f"match creation {data.command_id!r} retried")
    services.wrote(user)
    services.live.notify(match_id)
    return s.CreatedMatch(match_id, list(players), dict(zip(players, issued["secrets"])), duplicate, dealt)


@get("/matches", responses=responses(401, 404, 422), response_headers=LINK_HEADER)
async def get_matches(request: Request[Any, Any, Any], services: Svcs, who: Caller,
                      game: Annotated[str | None, Parameter(pattern=s.ID_PATTERN,
                                                            description="only this game's matches")] = None,
                      status: Annotated[Literal["in_progress", "finished"] | None, Parameter(
                          description="only the matches in this state")] = None,
                      player: Annotated[str | None, Parameter(pattern=s.ID_PATTERN,
                                                              description="only the matches this player plays in")
                                        ] = None,
                      series: Annotated[str | None, Parameter(pattern=s.ID_PATTERN, description=(
                          "only the matches of this series (any unique id prefix; 404 for none)"))] = None,
                      limit: Limit = None, after: Cursor = None) -> Response[list[s.MatchRow]]:
    """Every match (id, game, status, deal, players, series, created_at), oldest first,
    filtered as `kartludo match list` filters them (`game`, `status`, `player`,
    `series`); `limit` and `after` page through them."""
    rows = await sync_to_thread(_matches, services, who, game, status, player, series)
    return page(request, rows, lambda r: r.match, limit, after)


def _matches(services: Services, who: Principal | None, game: str | None, status: str | None, player: str | None,
             series: str | None) -> list[s.MatchRow]:
    def listed(store: Any, done: bool) -> list[s.MatchRow]:
        from kartludo.app.league.series import resolve_series

        whose = resolve_series(store, series) if series else None
        rows = listing.list_matches(store, game=game, status=status, player=player, series=whose, refreshed=done)
        return [s.MatchRow(**r) for r in rows]

    return [watched_row(services, who, row) for row in services.read_models(who, listed)]


def watched_row(services: Services, who: Principal | None, row: s.MatchRow) -> s.MatchRow:
    """A running match's row as a watcher may see it: with a watch delay, the deal the
    watchers see (a deal dealt after the cut is not yet theirs)."""
    if row.status != "in_progress" or viewer_of(who, row.match) is not PUBLIC:
        return row
    with services.locked(row.match):
        watched = services.reader.watch_cut(row.match, PUBLIC, False)
        if watched is None:
            return row
        at = services.reader.match_at(row.match, watched[1])
    return msgspec.structs.replace(row, deal=at.game.deal_number(at.state))


@get("/matches/{match_id:str}", sync_to_thread=True, responses=responses(401, 404))
def get_match(services: Svcs, svc: Svc, mid: MatchOf, viewer: View) -> dict[str, Any]:
    """The match now, in the caller's view (same fields as `kartludo state --json`); a
    watcher's (no token) of a match with a watch delay is the table as it stood that
    long ago (`watch`)."""
    with services.locked(mid):
        return with_watchers(services, mid, viewer, services.reader.state(svc.load(mid), viewer))


@get("/matches/{match_id:str}/state", sync_to_thread=True, responses=responses(401, 404))
def get_state(services: Svcs, svc: Svc, mid: MatchOf, viewer: View,
              legal: Annotated[Literal["all", "shapes"], Parameter(
                  description="`shapes`: a seat's moves as shapes and cautions only, without the "
                              "expanded `legal` list (thousands of commands in an exchange)")] = "all",
              ) -> dict[str, Any]:
    """The match now, in the caller's view: a seat sees its own hand (and `legal`, its
    legal commands, with each verb's `shapes`), a TD every hand, no token public
    information only, and, when the match has a watch delay, as the table stood that long
    ago (`watch`: the delay). A seat and a TD see `watchers`, the watchers' open live
    streams across the server's processes."""
    with services.locked(mid):
        return with_watchers(services, mid, viewer,
                             services.reader.state(svc.load(mid), viewer, expanded=legal == "all"))


def with_watchers(services: Services, mid: str, viewer: Viewer, state: dict[str, Any]) -> dict[str, Any]:
    """A seat's or a TD's state with the match's watcher count (``watchers``)."""
    if viewer is not PUBLIC:
        state["watchers"] = services.watchers.count(mid)
    return state


@post("/matches/{match_id:str}/deals", sync_to_thread=True, guards=[td_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def start_deal(services: Svcs, svc: Svc, user: User, mid: MatchOf,
               data: JSONBody[s.StartDeal | None] = None) -> s.OutcomeOut:
    """Start the next deal (TD token), with the seeded shuffle or an explicit deck (top first)."""
    body = data or s.StartDeal()
    with services.locked(mid):
        outcome = svc.deal(mid, body.deck, actor=user.label or "td", command_id=body.command_id,
                           caller=caller_scope(user))
        out = services.reader.outcome(outcome, ALL)
    services.wrote(user)
    services.live.notify(mid)
    return out


@post("/matches/{match_id:str}/commands", sync_to_thread=True, guards=[seat_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def submit_command(services: Svcs, svc: Svc, user: User, mid: MatchOf, seat: Seat,
                   data: JSONBody[s.SubmitCommand]) -> s.OutcomeOut:
    """One command for the token's seat (`{"verb": "discard", "args": ["R5"]}`). A refused
    command is a 409 naming the rule and writes nothing; a repeated `command_id`
    returns the first result. The response also carries the match after the command in
    the seat's view (`state`) and the seat's legal commands now (`legal`)."""
    with services.locked(mid):
        clock.apply_due(svc, mid)  # a flag that fell before this command falls first
        match = svc.load(mid, refresh=False)
        outcome = svc.act(mid, match.players[seat], data.verb, data.args, command_id=data.command_id)
        dealt = after_command(svc, mid)  # the next deal of a table dealing by itself; a duplicate's next board
        out = services.reader.outcome(outcome, seat)
        with_watchers(services, mid, seat, out.state)
        if dealt is not None:
            out.dealt = True
    services.wrote(user)
    services.live.notify(mid)
    return out


@get("/matches/{match_id:str}/legal", sync_to_thread=True, guards=[seat_only], responses=responses(401, 403, 404))
def get_legal(services: Svcs, svc: Svc, mid: MatchOf, seat: Seat) -> list[str]:
    """The commands the token's seat may give now."""
    with services.locked(mid):
        match = svc.load(mid)
        return [c.text() for c in svc.legal(match, match.players[seat])]


@get("/matches/{match_id:str}/events", sync_to_thread=True, responses=responses(401, 404, 422),
     response_headers=LINK_HEADER)
def get_events(request: Request[Any, Any, Any], services: Svcs, who: Caller, mid: MatchOf, viewer: View,
               after: Position = 0, limit: Limit = None) -> Response[list[s.EventOut]]:
    """The match's events after global position `after`, each in the caller's view
    (the events of a deal that has ended are public); with `limit`, at most that many,
    and a `Link` to the next page while more follow."""
    wanted = None if limit is None else limit + 1
    events = services.read(who, lambda reader: reader.events(mid, viewer, after=after, limit=wanted))
    if limit is None or len(events) <= limit:
        return Response(events)
    events = events[:limit]
    return Response(events, headers={"Link": next_link(request, events[-1].position, limit)})


@get("/matches/{match_id:str}/replay", sync_to_thread=True, responses=responses(401, 403, 404, 422))
def get_replay(services: Svcs, who: Caller, mid: MatchOf, viewer: View,
               deal: Annotated[int | None, Parameter(ge=1, le=10_000)] = None,
               to: Annotated[int | None, Parameter(ge=1, le=100_000)] = None,
               view: Filter = None) -> s.ReplayOut:
    """A deal step by step (default: the latest deal; `to`: only step `to`). A deal that
    has ended is public: every hand by default, or `view` = `public` or a player's name
    for what that seat saw. A running deal is shown in the caller's view (`view` may
    narrow it: a TD may ask for any seat's view, a seat only for its own or `public`)."""
    try:  # folded from the nearest snapshot before the deal: a long match's last deal costs that deal
        read = services.read(who, lambda reader: reader.replay(mid, lambda _: viewer, deal=deal))
    except AppError as exc:
        raise NotFoundException(str(exc)) from None
    rep = read.replay
    shown = read.view(view)
    count = len(rep.steps)
    if to is not None and to > count:
        raise NotFoundException(f"deal {rep.deal} has {count} steps, not {to}")
    steps = read.steps([to] if to else list(range(1, count + 1)), shown)
    return s.ReplayOut(mid, rep.deal, rep.deals, read.ended, steps, view_name(rep.match.players, shown))


ROUTES = [create_match, get_matches, get_match, get_state, start_deal, submit_command, get_legal, get_events,
          get_replay]
