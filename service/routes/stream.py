"""The live stream: a match's events as Server-Sent Events, as they are committed.

Authority is checked on every use, not once: the token is looked up again on every
new event and every second, so a revoked token's stream ends within a second.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio.to_thread
import msgspec
from litestar import Request, get
from litestar.params import Parameter
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from kartludo.app.reading.reader import LiveFeed
from kartludo.app.tokens import Principal
from kartludo.engine.base import ALL, PUBLIC, Viewer
from kartludo.service import schemas as s
from kartludo.service.auth import viewer_of
from kartludo.service.deps import MatchId
from kartludo.service.errors import responses
from kartludo.service.limits import client_address
from kartludo.service.live import woken
from kartludo.service.services import Services
from kartludo.store.errors import StoreError

Position = Annotated[int, Parameter(ge=0, le=2**62)]


def _services(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


def live_events(sv: Services, who: Principal | None, feed: LiveFeed, viewer: Viewer, after: int, taken: int,
                since: float, cut: list[int] | None = None) -> list[s.EventOut]:
    """A live stream's events after global position ``after``, with every commit bumped
    by the hub up to bump ``taken``: from the match's shared feed (read and folded once
    per commit), or, for a stream further behind than the feed holds, from the store as
    ``/events`` reads them (a replica with the commit that woke the stream at monotonic
    time ``since``). A watcher (the public view) of a match with a watch delay gets the
    events up to where the delay cuts the match now, read as ``/events`` reads them for
    it: never one the delay still holds back (``cut``: where it cut the match when this
    stream last read, so that a cut that has not moved costs no read of the events)."""
    if viewer is PUBLIC:
        watched = sv.reader.watch_cut(feed.id, viewer, False)
        if watched is not None:
            if cut is not None:
                if cut and cut[0] == watched[1]:
                    return []
                cut[:] = [watched[1]]
            return sv.reader.events(feed.id, viewer, td=False, after=after)
        if cut is not None:
            cut.clear()
    shown = feed.events(after, viewer, viewer == ALL, taken)
    if shown is None:
        return sv.read(who, lambda reader: reader.events(feed.id, viewer, after=after),
                       fence=sv.current(since) if since else 0)
    return shown


#: a live stream re-checks its token at least this often (seconds), and on every wake-up
TOKEN_CHECK_SECONDS = 1.0
#: a live stream with nothing to send says it is alive this often (seconds)
KEEP_ALIVE_SECONDS = 15.0
#: how long a client waits before it reconnects to a stream ended by a database outage (ms)
RECONNECT_MS = 1000
log = logging.getLogger(__name__)


@get("/matches/{match_id:str}/stream", responses=responses(401, 404, 429))
async def stream(request: Request[Any, Any, Any], match_id: MatchId, after: Position = 0) -> ServerSentEvent:
    """Server-Sent Events: every event of the match after global position `after` (or
    the `Last-Event-ID` header of a reconnecting client), then each new one as soon as
    it is committed (by any process), in the caller's view. Each message has `id` = the
    event's position, `event` = its type, `data` = the event as in `/events`. The token
    is checked again on every new event and every second: a revoked token's stream ends
    within a second. A token (or, without one, a client address) may hold only a few
    streams open at once (429 beyond).

    A watcher (no token, or another match's) of a match with a watch delay receives each
    event only once the delay has passed it (k moves later, or that many seconds): the
    server holds it back, so a client never receives an event early, and a reconnection
    with `Last-Event-ID` resumes from there, never ahead. Its open streams are the match's
    watchers, counted in `watchers` in a seat's or a TD's state."""
    last_id = request.headers.get("last-event-id", "")
    if last_id.isdigit() and len(last_id) < 19:
        after = max(after, int(last_id))
    sv = _services(request)
    who = await anyio.to_thread.run_sync(sv.caller, request)
    mid = await anyio.to_thread.run_sync(lambda: sv.svc.resolve(match_id))
    viewer = viewer_of(who, mid)
    # a hidden duplicate board: refused (403) before the stream begins
    await anyio.to_thread.run_sync(sv.reader.may_follow, mid, viewer, viewer == ALL)
    slot = sv.streams.take(who, client_address(request, sv.limits))
    watching = viewer is PUBLIC
    if watching:
        sv.watchers.join(mid)
    try:
        feed = await anyio.to_thread.run_sync(sv.reader.follow, mid, lambda: sv.live.generation)
    except BaseException:
        slot.release()
        if watching:
            sv.watchers.leave(mid)
        raise
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
            cut: list[int] = []  # a watcher's: where the watch delay cut the match at the last read
            while True:
                wake = sv.live.changed_for(mid)  # this match's commits only
                taken = sv.live.generation  # what was bumped before: the read below must see it
                new = []
                if changed or watching:  # a watcher's delay may pass without a commit: looked at every second
                    new = await anyio.to_thread.run_sync(live_events, sv, who, feed, viewer, seen, taken, woke,
                                                         cut)
                # checked after the read: every event sent was committed while the token was live
                if not await anyio.to_thread.run_sync(token_live):
                    yield ServerSentEventMessage(comment="token revoked: the stream ends", data=None)
                    return
                for ev in new:
                    seen = ev.position
                    quiet_since = loop.time()
                    yield ServerSentEventMessage(data=encode(ev).decode(), event=ev.type, id=ev.position)
                changed = await woken(wake, TOKEN_CHECK_SECONDS)
                if changed:
                    woke = sv.woken_at(wake)
                if not changed and loop.time() - quiet_since >= KEEP_ALIVE_SECONDS:
                    quiet_since = loop.time()
                    yield ServerSentEventMessage(comment="keep-alive", data=None)
        except StoreError as exc:
            # The database went away (or is busy) mid-stream: the response has begun, so no
            # 503 can be sent; the stream ends cleanly instead, and its client reconnects with
            # Last-Event-ID after `retry` ms (a 503 with Retry-After while the database is down)
            log.warning("live stream on match %s ends: %s", mid, exc)
            yield ServerSentEventMessage(comment="database unavailable: reconnect with Last-Event-ID",
                                         retry=RECONNECT_MS, data=None)
        finally:
            release()

    released: list[bool] = []

    def release() -> None:
        if not released:
            released.append(True)
            slot.release()
            if watching:
                sv.watchers.leave(mid)

    iterator = messages()
    weakref.finalize(iterator, release)  # a response that never starts still gives its slot back
    return ServerSentEvent(iterator)


ROUTES = [stream]
