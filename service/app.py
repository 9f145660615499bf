"""The HTTP match service: a Litestar app over the same pipeline, engine and store as the CLI.

Every rule lives in the library (``MatchService``, ``replay``, ``audit``, ``standings``,
``series``); this module only maps HTTP to it: who the caller is (bearer tokens), what
they may see (``redact``/``view`` for their seat), and errors to status codes.
Store calls are synchronous: handlers run in worker threads (``sync_to_thread``), each
thread with its own ``MatchService`` (its cache is not shared between threads).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import AsyncIterator
import time
from typing import Annotated, Any, Callable, Literal, TypeVar

import anyio.to_thread
import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.exceptions import HTTPException, NotFoundException, PermissionDeniedException, ValidationException
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import FromQuery, JSONBody, Parameter
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from kartludo.app import autodeal
from kartludo.app.errors import AmbiguousMatch, AppError, NotAllowed, TooMuchContention, UnknownMatch, UnknownPlayer
from kartludo.app import aggregate
from kartludo.app.aggregate import Match, describe
from kartludo.app.matches import MatchService, Outcome
from kartludo.app.tokens import Principal, TokenIndex, reissue_seat_tokens, seat_tokens_stream, token_events
from kartludo.app.visibility import Shown, deal_over, events_of, match_over, read_match, redact, sees_secrets
from kartludo.engine.base import ALL, BadCommand, IllegalCommand, Viewer
from kartludo.events.base import to_builtins
from kartludo.projections import queries
from kartludo.service import games, hearing, hypotheticals
from kartludo.service import schemas as s
from kartludo.service import table
from kartludo.service.auth import principal, require, require_seat, require_td, viewer_of
from kartludo.service.limits import Limits, json_depth
from kartludo.service.live import LiveHub, StreamSlots
from kartludo.store import ConcurrencyConflict, EventStore
from kartludo.store.errors import DatabaseUnavailable, StoreBusy, StoreError
from kartludo.store.replicas import ReadRouter
from kartludo.store.transfer import format_us
from kartludo.web import pages

log = logging.getLogger(__name__)
T = TypeVar("T")
MatchId = Annotated[str, Parameter(pattern=s.ID_PATTERN)]
Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]
Position = Annotated[int, Parameter(ge=0, le=2**62)]


class Services:
    """What the handlers share: the store, the token index, one MatchService.

    The MatchService (and its cache of folded matches) is shared by every worker
    thread, so a match is folded once, not once per thread, and a command never starts
    from a copy another thread has left behind. A match's cached state changes only
    under its lock (``locked``): requests on one match take turns (their writes would
    conflict anyway), requests on different matches run side by side.
    """

    STRIPES = 256

    def __init__(self, store: EventStore, url: str, limits: Limits, reads: ReadRouter | None = None) -> None:
        self.store = store
        #: replicas for reads (``--read-db``); None: every read on the primary
        self.reads = reads
        self._readers: weakref.WeakKeyDictionary[EventStore, MatchService] = weakref.WeakKeyDictionary()
        self._woken: weakref.WeakKeyDictionary[asyncio.Event, float] = weakref.WeakKeyDictionary()
        self.limits = limits
        self.tokens = TokenIndex(store)
        self.live = LiveHub(store, url)
        self.streams = StreamSlots(limits)
        self.svc = MatchService(store)
        #: projection refreshes write read-model tables: one at a time in this process
        self.projections = threading.Lock()
        self._locks = [threading.Lock() for _ in range(self.STRIPES)]

    def locked(self, match_id: str) -> threading.Lock:
        """The lock guarding ``match_id``'s cached state (striped: a fixed set of locks)."""
        return self._locks[hash(match_id) % self.STRIPES]

    def caller(self, request: Request[Any, Any, Any]) -> Principal | None:
        return principal(request, self.tokens)

    def read(self, who: Principal | None, run: Callable[[MatchService], T], *, fence: int = 0) -> T:
        """``run`` over a replica that has ``who``'s own writes (and ``fence``), else over
        the primary (``store.replicas``); without replicas, simply over ``self.svc``.
        Only for reads of events: commands, deals and projections use the primary."""
        if self.reads is None:
            return run(self.svc)
        return self.reads.read(lambda store: run(self._reader(store)), client=_client(who), fence=fence)

    def _reader(self, store: EventStore) -> MatchService:
        if store is self.store:
            return self.svc
        reader = self._readers.get(store)
        if reader is None:
            reader = self._readers[store] = MatchService(store)
        return reader

    def wrote(self, who: Principal | None) -> None:
        """After ``who``'s write: its next reads must see it (read-your-writes)."""
        if self.reads is not None:
            self.reads.wrote(_client(who))

    def woken_at(self, wake: asyncio.Event) -> float:
        """When the first live stream woke from ``wake`` (after the commit that set it):
        every stream woken by it asks for the primary's position as of then, so they
        share one query."""
        return self._woken.setdefault(wake, time.monotonic())

    def current(self, since: float) -> int:
        """The primary's WAL position read after monotonic time ``since`` (0 without
        replicas): a live stream woken by a commit reads at least that far."""
        return 0 if self.reads is None else self.reads.primary_lsn(since=since)


def _client(who: Principal | None) -> str | None:
    """Whose writes a read must see: the token's (anonymous callers write nothing)."""
    return None if who is None else who.token_hash


def _services(request: Request[Any, Any, Any]) -> Services:
    return request.app.state.services


# --- views ---------------------------------------------------------------------------
def event_out(shown: Shown, description: str = "") -> s.EventOut:
    """A stored event as its reader may see it (``app.visibility``): hidden cards and
    secrets removed, and the chain hash only where it commits to nothing hidden."""
    rec = shown.record
    return s.EventOut(
        position=rec.position, version=rec.version, type=rec.type,
        payload=to_builtins(shown.event), actor=rec.actor, command_id=rec.command_id,
        recorded_at=format_us(rec.recorded_at_us), stream_id=rec.stream_id, schema_version=rec.schema_version,
        hash=shown.hash, description=description,
    )


def visible_events(svc: MatchService, match_id: str, viewer: Viewer, after: int = 0) -> list[s.EventOut]:
    """The match's events after global position ``after``, each in ``viewer``'s view
    with its one-line description; the events of a deal that has ended are public
    (every hand), the seed only once the match has ended (or to a TD: ``ALL``)."""
    records = svc.records(match_id)
    if not records:
        raise UnknownMatch(f"no match {match_id!r}")
    reading = read_match(match_id, records, viewer)
    game, players = reading.match.game, reading.match.players
    out = []
    for shown in events_of(reading, after):
        text = describe(game, shown.before, shown.record.event, shown.viewer, players)
        out.append(event_out(shown, text))
    return out


def view_json(svc: MatchService, match: Match, viewer: Viewer) -> dict[str, Any]:
    """The match in ``viewer``'s view; a seat also gets its legal commands (``legal``),
    so a table client needs one request per turn, not two."""
    out = svc.state_json(match, viewer)
    if isinstance(viewer, int) and viewer >= 0:
        # a seat the game is not waiting for has no legal command (every game's contract)
        waiting = viewer in match.game.to_act(match.state)
        legal = match.game.legal_commands(match.state, viewer) if waiting else []
        out["legal"] = [c.text() for c in legal]
        out["shapes"] = [to_builtins(x) for x in match.game.legal_shapes(match.state, viewer, legal)]
        out["cautions"] = match.game.legal_cautions(match.state, viewer, legal)
    return out


def outcome_out(svc: MatchService, match: Match, outcome: Outcome, viewer: Viewer) -> s.OutcomeOut:
    """What a command or deal caused, and the match after it, both in ``viewer``'s view."""
    events = []
    before = outcome.before  # None for a retried command: its events are not described again
    secrets = sees_secrets(viewer, viewer == ALL, match_over(match))
    described = before is not None
    if before is None:  # its redaction still needs the state they were decided on: fold to it
        earlier = [r for r in svc.records(match.id) if r.version < outcome.first_version]
        before = aggregate.fold(match.id, earlier).state
    for i, (pos, e) in enumerate(zip(outcome.positions, outcome.events)):
        text = describe(match.game, before, e, viewer, match.players) if described else ""
        events.append(s.EventOut(position=pos, version=outcome.first_version + i, type=type(e).type_tag(),
                                 payload=to_builtins(redact(match.game, before, e, viewer, secrets=secrets)),
                                 description=text))
        before = aggregate.step(match.game, before, e)
    state = view_json(svc, match, viewer)
    legal = state.pop("legal", [])
    shapes = state.pop("shapes", [])
    cautions = state.pop("cautions", {})
    return s.OutcomeOut(outcome.match, outcome.first_version, list(outcome.positions), outcome.duplicate, events,
                        state, legal, shapes, cautions)


# --- errors ----------------------------------------------------------------------------
def _error(status: int, message: str, rule: str | None = None, headers: dict[str, str] | None = None) -> Response:
    return Response(s.ErrorBody(message, rule), status_code=status, headers=headers)


def _on_http(request: Request[Any, Any, Any], exc: HTTPException) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
    status = 422 if exc.status_code == 400 else exc.status_code  # a malformed request body or parameter
    detail = str(exc.detail)
    if status == 413:
        detail = f"the request body is too large: at most {_services(request).limits.max_body_bytes} bytes"
    return _error(status, detail, headers=headers)


def _on_server_error(request: Request[Any, Any, Any], exc: Exception) -> Response:
    """A bug or an outage nobody foresaw: logged with its traceback, answered without internals."""
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    return _error(500, "internal server error (logged on the server)")


async def _check_body(request: Request[Any, Any, Any]) -> None:
    """Before a handler reads a body: it must be JSON (415), within the size limit
    (413) and not nested deeper than the limit (422; a deep body would exhaust the
    JSON parser's recursion)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    limits = _services(request).limits
    length = request.headers.get("content-length")
    chunked = "chunked" in request.headers.get("transfer-encoding", "").lower()
    if not chunked and (length is None or length.strip() in ("", "0")):
        return  # no body (a deal without one uses the seeded shuffle)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        shown = f"{media_type!r}" if media_type else "none"
        raise HTTPException(status_code=415, detail=f"send the body as JSON with 'Content-Type: application/json' "
                                                    f"(got {shown})")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_body_bytes:
        raise HTTPException(status_code=413)
    depth = json_depth(await request.body())
    if depth > limits.max_json_depth:
        raise ValidationException(f"the JSON body nests {depth} levels deep: at most {limits.max_json_depth}")


def _on_validation(_: Request[Any, Any, Any], exc: ValidationException) -> Response:
    extra = f": {exc.extra}" if exc.extra else ""
    return _error(422, f"{exc.detail}{extra}")


def _on_illegal(_: Request[Any, Any, Any], exc: IllegalCommand) -> Response:
    return _error(409, exc.message, exc.rule)


def _on_bad(_: Request[Any, Any, Any], exc: Exception) -> Response:
    return _error(422, str(exc))


def _on_app(_: Request[Any, Any, Any], exc: AppError) -> Response:
    if isinstance(exc, (UnknownMatch, AmbiguousMatch)):
        return _error(404, str(exc))
    if isinstance(exc, (UnknownPlayer, NotAllowed)):
        return _error(403, str(exc))
    return _error(409, str(exc))


def _on_store(_: Request[Any, Any, Any], exc: StoreError) -> Response:
    if isinstance(exc, (DatabaseUnavailable, StoreBusy)):
        return _error(503, str(exc))
    if isinstance(exc, ConcurrencyConflict):
        return _error(409, str(exc))
    return _error(409, str(exc))


def _errs(*codes: int) -> dict[int, ResponseSpec]:
    text = {401: "missing, bad or revoked token", 403: "wrong seat or role", 404: "unknown match, ruling or series",
            409: "refused: a game rule (see `rule`), or contention after retries", 422: "malformed request",
            413: "the request body is too large", 415: "the body is not sent as application/json",
            429: "too many open live streams for this caller"}
    # every route may meet a malformed path or query parameter
    return {c: ResponseSpec(s.ErrorBody, description=text[c], generate_examples=False) for c in {*codes, 422}}


# --- matches -----------------------------------------------------------------------------
def _caller_scope(who: Principal) -> str:
    """Whose idempotency keys a TD's request uses: its token's (a seat's keys are its seat's)."""
    return f"token {who.token_hash}"


@post("/matches", sync_to_thread=True, responses=_errs(401, 403, 404, 409, 413, 415, 422))
def create_match(request: Request[Any, Any, Any], data: JSONBody[s.CreateMatch]) -> s.CreatedMatch:
    """Create a match (TD token). Returns one secret seat token per player, shown only
    here. A retry with the same `command_id` returns the same match with `duplicate`
    set and new seat tokens (the first ones are revoked: a secret is never stored). A
    `command_id` is the TD token's own: another token's same key makes another match,
    and the same key with a different request is a 409."""
    sv = _services(request)
    td = require_td(sv.caller(request))
    svc = sv.svc
    issued: dict[str, list[str]] = {}
    actor = td.label or "td"

    def seat_tokens(match_id: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        # the match and its seat tokens (in the match's own tokens stream) in one transaction
        secrets, events = token_events([("seat", match_id, i, p) for i, p in enumerate(seats)])
        issued["secrets"] = secrets
        return [(seat_tokens_stream(match_id), events, 0)]

    match_id, duplicate = svc.create_once(data.game, data.players, seed=data.seed, options=data.options,
                                          series=data.series, actor=actor, command_id=data.command_id,
                                          caller=_caller_scope(td),
                                          also=autodeal.both(seat_tokens, autodeal.setting(data.auto_deal)))
    with sv.locked(match_id):
        players = svc.load(match_id).players
    if duplicate:
        issued["secrets"] = reissue_seat_tokens(sv.store, match_id, players, actor=actor,
                                                reason=f"match creation {data.command_id!r} retried")
    sv.wrote(td)
    sv.live.notify()
    return s.CreatedMatch(match_id, list(players), dict(zip(players, issued["secrets"])), duplicate)


@get("/matches", sync_to_thread=True, responses=_errs(401, 422))
def get_matches(request: Request[Any, Any, Any], game: Filter = None) -> list[dict[str, Any]]:
    """Every match (id, game, status, deal, players, series, created_at)."""
    sv = _services(request)
    sv.caller(request)
    with sv.projections:
        return queries.list_matches(sv.store, game)


def _state(request: Request[Any, Any, Any], match_id: str) -> dict[str, Any]:
    sv = _services(request)
    who = sv.caller(request)
    mid = sv.svc.resolve(match_id)
    with sv.locked(mid):
        return view_json(sv.svc, sv.svc.load(mid), viewer_of(who, mid))


@get("/matches/{match_id:str}", sync_to_thread=True, responses=_errs(401, 404))
def get_match(request: Request[Any, Any, Any], match_id: MatchId) -> dict[str, Any]:
    """The match now, in the caller's view (same fields as `kartludo state --json`)."""
    return _state(request, match_id)


@get("/matches/{match_id:str}/state", sync_to_thread=True, responses=_errs(401, 404))
def get_state(request: Request[Any, Any, Any], match_id: MatchId) -> dict[str, Any]:
    """The match now, in the caller's view: a seat sees its own hand (and `legal`, its
    legal commands), a TD every hand, no token public information only."""
    return _state(request, match_id)


@post("/matches/{match_id:str}/deals", sync_to_thread=True, responses=_errs(401, 403, 404, 409, 413, 415, 422))
def start_deal(request: Request[Any, Any, Any], match_id: MatchId, data: JSONBody[s.StartDeal | None] = None) -> s.OutcomeOut:
    """Start the next deal (TD token), with the seeded shuffle or an explicit deck (top first)."""
    sv = _services(request)
    td = require_td(sv.caller(request))
    svc = sv.svc
    mid = svc.resolve(match_id)
    body = data or s.StartDeal()
    with sv.locked(mid):
        outcome = svc.deal(mid, body.deck, actor=td.label or "td", command_id=body.command_id,
                           caller=_caller_scope(td))
        out = outcome_out(svc, svc.load(mid, refresh=False), outcome, ALL)
    sv.wrote(td)
    sv.live.notify()
    return out


@post("/matches/{match_id:str}/commands", sync_to_thread=True, responses=_errs(401, 403, 404, 409, 413, 415, 422))
def submit_command(request: Request[Any, Any, Any], match_id: MatchId, data: JSONBody[s.SubmitCommand]) -> s.OutcomeOut:
    """One command for the token's seat (`{"verb": "discard", "args": ["R5"]}`). A refused
    command is a 409 naming the rule and writes nothing; a repeated `command_id`
    returns the first result. The response also carries the match after the command in
    the seat's view (`state`) and the seat's legal commands now (`legal`)."""
    sv = _services(request)
    who = sv.caller(request)
    svc = sv.svc
    mid = svc.resolve(match_id)
    seat = require_seat(who, mid)
    with sv.locked(mid):
        match = svc.load(mid, refresh=False)
        outcome = svc.act(mid, match.players[seat], data.verb, data.args, command_id=data.command_id)
        dealt = autodeal.deal_if_due(svc, mid)
        out = outcome_out(svc, svc.load(mid, refresh=False), outcome, seat)
        if dealt is not None:
            out.dealt = True
    sv.wrote(who)
    sv.live.notify()
    return out


@get("/matches/{match_id:str}/legal", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_legal(request: Request[Any, Any, Any], match_id: MatchId) -> list[str]:
    """The commands the token's seat may give now."""
    sv = _services(request)
    who = sv.caller(request)
    svc = sv.svc
    mid = svc.resolve(match_id)
    seat = require_seat(who, mid)
    with sv.locked(mid):
        match = svc.load(mid)
        return [c.text() for c in svc.legal(match, match.players[seat])]


@get("/matches/{match_id:str}/events", sync_to_thread=True, responses=_errs(401, 404, 422))
def get_events(request: Request[Any, Any, Any], match_id: MatchId, after: Position = 0) -> list[s.EventOut]:
    """The match's events after global position `after`, each in the caller's view
    (the events of a deal that has ended are public)."""
    sv = _services(request)
    who = sv.caller(request)
    mid = sv.svc.resolve(match_id)
    viewer = viewer_of(who, mid)
    return sv.read(who, lambda svc: visible_events(svc, mid, viewer, after))


@get("/matches/{match_id:str}/replay", sync_to_thread=True, responses=_errs(401, 403, 404, 422))
def get_replay(request: Request[Any, Any, Any], match_id: MatchId,
               deal: Annotated[int | None, Parameter(ge=1, le=10_000)] = None,
               to: Annotated[int | None, Parameter(ge=1, le=100_000)] = None,
               view: Filter = None) -> s.ReplayOut:
    """A deal step by step (default: the latest deal; `to`: only step `to`). A deal that
    has ended is public: every hand by default, or `view` = `public` or a player's name
    for what that seat saw. A running deal is shown in the caller's view (`view` may
    narrow it: a TD may ask for any seat's view, a seat only for its own or `public`)."""
    from kartludo.app.replay import build, is_ruling_or_settlement, turn_units

    sv = _services(request)
    who = sv.caller(request)
    svc = sv.svc
    mid = svc.resolve(match_id)
    records = sv.read(who, lambda reader: reader.records(mid))
    try:
        rep = build(mid, records, deal)
    except AppError as exc:
        raise NotFoundException(str(exc)) from None
    reading = read_match(mid, records, viewer_of(who, mid))
    ended = rep.deal != rep.deals[-1] or deal_over(reading.match)
    m = rep.match
    allowed = ALL if ended else viewer_of(who, mid)
    viewer = _replay_viewer(m.players, allowed, view)
    secrets = reading.secrets_in(viewer)
    count = len(rep.steps)
    if to is not None and to > count:
        raise NotFoundException(f"deal {rep.deal} has {count} steps, not {to}")
    steps = []
    units = turn_units(m.game, rep.steps)
    for k in [to] if to else range(1, count + 1):
        st = rep.steps[k - 1]
        state = svc.state_json(Match(m.id, m.game, m.created, st.state, st.record.version), viewer,
                               secrets=secrets)
        text = rep.description(k, viewer)
        steps.append(s.ReplayStep(k, count, text, event_out(reading.narrowed(st.record, viewer), text), state,
                                  is_ruling_or_settlement(st.record.event), units[k - 1]))
    name = "all" if viewer == ALL else "public" if viewer is None else m.players[viewer]
    return s.ReplayOut(mid, rep.deal, rep.deals, ended, steps, name)


def _replay_viewer(players: list[str], allowed: Viewer, asked: str | None) -> Viewer:
    """The view a replay shows: ``asked`` ("all", "public" or a player), within what the
    caller may see (``allowed``)."""
    if asked is None:
        return allowed
    if asked == "public":
        return None
    if asked == "all":
        wanted: Viewer = ALL
    elif asked in players:
        wanted = players.index(asked)
    else:
        raise ValidationException(f"view {asked!r} is not 'all', 'public' or a player of this match "
                                  f"({', '.join(players)})")
    if allowed == ALL or wanted == allowed:
        return wanted
    raise PermissionDeniedException(f"this deal is still running: the view {asked!r} needs a TD token"
                                    + ("" if wanted == ALL else " or that seat's token"))


#: a live stream re-checks its token at least this often (seconds), and on every wake-up
TOKEN_CHECK_SECONDS = 1.0
#: a live stream with nothing to send says it is alive this often (seconds)
KEEP_ALIVE_SECONDS = 15.0


@get("/matches/{match_id:str}/stream", responses=_errs(401, 404, 429))
async def stream(request: Request[Any, Any, Any], match_id: MatchId, after: Position = 0) -> ServerSentEvent:
    """Server-Sent Events: every event of the match after global position `after` (or
    the `Last-Event-ID` header of a reconnecting client), then each new one as soon as
    it is committed (by any process), in the caller's view. Each message has `id` = the
    event's position, `event` = its type, `data` = the event as in `/events`. The token
    is checked again on every new event and every second: a revoked token's stream ends
    within a second. A token (or, without one, a client address) may hold only a few
    streams open at once (429 beyond)."""
    last_id = request.headers.get("last-event-id", "")
    if last_id.isdigit() and len(last_id) < 19:
        after = max(after, int(last_id))
    sv = _services(request)
    who = await anyio.to_thread.run_sync(sv.caller, request)
    mid = await anyio.to_thread.run_sync(lambda: sv.svc.resolve(match_id))
    viewer = viewer_of(who, mid)
    slot = sv.streams.take(who, request.client.host if request.client else "unknown")
    encode = msgspec.json.encode
    loop = asyncio.get_running_loop()

    def token_live() -> bool:
        return who is None or sv.tokens.is_live(who.token_hash)

    async def messages() -> AsyncIterator[ServerSentEventMessage]:
        try:
            seen = after
            changed = True  # the backlog first
            quiet_since = loop.time()
            woke = 0.0  # the backlog needs only the caller's own writes; a wake-up, the commit behind it
            while True:
                wake = sv.live.changed
                new = []
                if changed:
                    new = await anyio.to_thread.run_sync(
                        lambda after=seen, since=woke: sv.read(
                            who, lambda svc: visible_events(svc, mid, viewer, after),
                            fence=sv.current(since) if since else 0))
                # checked after the read: every event sent was committed while the token was live
                if not await anyio.to_thread.run_sync(token_live):
                    yield ServerSentEventMessage(comment="token revoked: the stream ends", data=None)
                    return
                for ev in new:
                    seen = ev.position
                    quiet_since = loop.time()
                    yield ServerSentEventMessage(data=encode(ev).decode(), event=ev.type, id=ev.position)
                try:
                    await asyncio.wait_for(wake.wait(), timeout=TOKEN_CHECK_SECONDS)
                    changed = True
                    woke = sv.woken_at(wake)
                except TimeoutError:
                    changed = False
                if not changed and loop.time() - quiet_since >= KEEP_ALIVE_SECONDS:
                    quiet_since = loop.time()
                    yield ServerSentEventMessage(comment="keep-alive", data=None)
        finally:
            slot.release()

    iterator = messages()
    weakref.finalize(iterator, slot.release)  # a response that never starts still gives its slot back
    return ServerSentEvent(iterator)


@get("/me", sync_to_thread=True, responses=_errs(401))
def get_me(request: Request[Any, Any, Any]) -> s.Me:
    """Who the bearer token speaks for: a TD, or a seat (its match, seat and player)."""
    sv = _services(request)
    who = require(sv.caller(request))
    if who.role != "seat" or who.match is None or who.seat is None:
        return s.Me(who.role, label=who.label)
    with sv.locked(who.match):
        players = sv.svc.load(who.match).players
    return s.Me(who.role, who.match, who.seat, players[who.seat], who.label)


# --- league -----------------------------------------------------------------------------
@get("/standings", sync_to_thread=True, responses=_errs(401, 422))
def get_standings(request: Request[Any, Any, Any], game: Filter = None,
                  sort: FromQuery[Literal["rating", "matches", "wins", "score", "placement", "player"]] = "rating",
                  ) -> list[dict[str, Any]]:
    """League standings (per game or across games), as `kartludo standings --format json`."""
    sv = _services(request)
    sv.caller(request)
    with sv.projections:
        return msgspec.to_builtins(queries.standings(sv.store, game, sort))


@get("/series/{series_id:str}", sync_to_thread=True, responses=_errs(401, 404))
def get_series(request: Request[Any, Any, Any], series_id: MatchId) -> dict[str, Any]:
    """A series: its matches and standings."""
    from kartludo.app.series import resolve_series

    sv = _services(request)
    sv.caller(request)
    with sv.projections:
        return msgspec.to_builtins(queries.series_report(sv.store, resolve_series(sv.store, series_id)))


# --- audit ------------------------------------------------------------------------------
@get("/audit", sync_to_thread=True, responses=_errs(401, 404))
def get_audit(request: Request[Any, Any, Any], match: Filter = None, player: Filter = None,
              ) -> list[dict[str, Any]]:
    """Every recorded penalty ruling (optionally of one match or one player)."""
    sv = _services(request)
    sv.caller(request)
    with sv.projections:
        return msgspec.to_builtins(queries.list_rulings(sv.store, match or None, player or None))


def _ruling(sv: Services, match_id: str, ruling_id: str) -> Any:
    return queries.resolve_ruling(sv.store, f"{match_id}/{ruling_id}")


@get("/audit/{match_id:str}/{ruling_id:str}", sync_to_thread=True, responses=_errs(401, 404))
def get_ruling(request: Request[Any, Any, Any], match_id: MatchId, ruling_id: MatchId) -> dict[str, Any]:
    """One ruling (audit id `MATCH/RULING`): facts, effect, status, dispute history."""
    sv = _services(request)
    sv.caller(request)
    with sv.projections:
        return msgspec.to_builtins(_ruling(sv, match_id, ruling_id))


@post("/audit/{match_id:str}/{ruling_id:str}/appeal", sync_to_thread=True,
      responses=_errs(401, 403, 404, 409, 413, 415, 422))
def appeal_ruling(request: Request[Any, Any, Any], match_id: MatchId, ruling_id: MatchId,
                  data: JSONBody[s.Appeal]) -> dict[str, Any]:
    """Appeal a ruling: a seat token of the ruling's match (the seat's player appeals)
    or a TD token (the TD appeals under its label)."""
    from kartludo.app import audit

    sv = _services(request)
    who = require(sv.caller(request))
    with sv.projections:
        record = _ruling(sv, match_id, ruling_id)
        if who.role == "td":
            audit.appeal(sv.store, record, who.label or "td", data.reason, td=True)
        else:
            seat = require_seat(who, record.match)
            with sv.locked(record.match):
                player = sv.svc.load(record.match).players[seat]
            audit.appeal(sv.store, record, player, data.reason)
        out = msgspec.to_builtins(queries.resolve_ruling(sv.store, record.id))
    sv.wrote(who)
    sv.live.notify()
    return out


@post("/audit/{match_id:str}/{ruling_id:str}/decide", sync_to_thread=True,
      responses=_errs(401, 403, 404, 409, 413, 415, 422))
def decide_ruling(request: Request[Any, Any, Any], match_id: MatchId, ruling_id: MatchId,
                  data: JSONBody[s.Decide]) -> dict[str, Any]:
    """Decide an appealed ruling: uphold or overturn (TD token, under its label). The
    TD may be neither a player of the match nor the appellant (403)."""
    from kartludo.app import audit

    sv = _services(request)
    td = require_td(sv.caller(request))
    with sv.projections:
        record = _ruling(sv, match_id, ruling_id)
        audit.decide(sv.store, record, td.label or "td", data.decision, data.reason, **data.adjusting())
        out = msgspec.to_builtins(queries.resolve_ruling(sv.store, record.id))
    sv.wrote(td)
    sv.live.notify()
    return out


# --- the app ----------------------------------------------------------------------------
def create_app(store_url: str, *, store: EventStore | None = None, limits: Limits | None = None,
               read_urls: list[str] | None = None, read_max_lag: float | None = None) -> Litestar:
    """The Litestar app serving the match API over the store at ``store_url``, within
    ``limits`` (default ``Limits()``); reads of events may go to the hot standbys at
    ``read_urls`` (``store.replicas``), at most ``read_max_lag`` seconds behind."""
    own = store is None
    store = store if store is not None else EventStore.open(store_url)
    limits = limits or Limits()
    lag = {} if read_max_lag is None else {"max_lag": read_max_lag}
    reads = ReadRouter.of(store, read_urls or [], **lag)
    services = Services(store, store_url, limits, reads)

    async def startup(app: Litestar) -> None:
        await services.live.start()

    async def shutdown(app: Litestar) -> None:
        await services.live.stop()
        if reads is not None:
            reads.close()
        if own:
            store.close()

    app = Litestar(
        route_handlers=[create_match, get_matches, get_match, get_state, start_deal, submit_command, get_legal,
                        get_events, get_replay, stream, get_me, get_standings, get_series, get_audit, get_ruling,
                        appeal_ruling, decide_ruling, games.get_games, *table.ROUTES, *pages.ROUTES, *hypotheticals.ROUTES,
                        *hearing.ROUTES],
        on_startup=[startup],
        on_shutdown=[shutdown],
        exception_handlers={
            HTTPException: _on_http,
            ValidationException: _on_validation,
            IllegalCommand: _on_illegal,
            BadCommand: _on_bad,
            AppError: _on_app,
            TooMuchContention: lambda _r, e: _error(409, str(e)),
            StoreError: _on_store,
            Exception: _on_server_error,
        },
        before_request=_check_body,
        request_max_body_size=limits.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="kartludo match service", version="1",
            components=Components(security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}),
            security=[{"bearer": []}],
        ),
        debug=False,
    )
    app.state.services = services
    return app
