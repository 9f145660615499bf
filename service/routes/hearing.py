"""The appeal hearing over HTTP: annotations on a ruled deal's events.

Writing: a TD token (under its label) or a seat token of the ruling's match (as that
seat's player). Reading: a TD token always; anyone else once the ruled deal has ended
(a comment may name cards a seat has not seen while the deal runs): 403 before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.params import JSONBody, Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from kartludo.app.audit import hearing
from kartludo.app.audit.trail import resolve_ruling
from kartludo.app.tokens import Principal
from kartludo.projections.audit import AuditRecord
from kartludo.service import schemas as s
from kartludo.service.auth import require_seat
from kartludo.service.deps import User, authenticated, td_only
from kartludo.service.errors import responses
from kartludo.service.limits import client_address
from kartludo.store import EventStore
from kartludo.store.errors import StoreError

log = logging.getLogger(__name__)
Id = Annotated[str, Parameter(pattern=s.ID_PATTERN)]
_TEXT = {403: "not a TD token while the origin deal runs", 404: "unknown match, hypothetical or ruling",
         409: "refused: a game rule, a settled deal, contention"}


def _errs(*codes: int) -> dict[int, Any]:
    return responses(*codes, text=_TEXT)


class Annotate(msgspec.Struct, forbid_unknown_fields=True):
    event: Annotated[int, msgspec.Meta(ge=1, le=2**62)]
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=hearing.TEXT_LIMIT, pattern=s.TEXT_PATTERN)]


def _sv(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


@post("/audit/{match_id:str}/{ruling_id:str}/annotations", sync_to_thread=True, guards=[authenticated],
      responses=_errs(401, 403, 404, 409, 413, 415))
def add_annotation(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id,
                   data: JSONBody[Annotate]) -> dict[str, Any]:
    """Comment on event `event` (its global position) of the ruled deal: a TD token, or
    a seat token of the ruling's match (the seat's player speaks). Stored in the
    hearing's own stream, never the match's."""
    sv = _sv(request)
    record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    if user.role == "td":
        a = hearing.annotate(sv.store, record, user.label or "td", data.event, data.text, td=True)
    else:
        seat = require_seat(user, record.match)
        player = sv.svc.load(record.match).players[seat]
        a = hearing.annotate(sv.store, record, player, data.event, data.text)
    sv.live.elsewhere()
    return hearing.annotation_json(a)


@get("/audit/{match_id:str}/{ruling_id:str}/annotations", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_annotations(request: Request[Any, Any, Any], match_id: Id, ruling_id: Id) -> list[dict[str, Any]]:
    """The hearing's annotations: a TD token always, anyone once the ruled deal has ended."""
    from kartludo.app.errors import NotAllowed

    sv = _sv(request)
    who = sv.caller(request)
    record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    try:
        notes = hearing.readable_annotations(sv.store, record, td=who is not None and who.role == "td")
    except NotAllowed as exc:
        raise PermissionDeniedException(str(exc)) from None
    return [hearing.annotation_json(a) for a in notes]


# --- the hearing room -------------------------------------------------------------------------

Link = Annotated[str, Parameter(max_length=100, pattern=r"^[A-Za-z0-9_\-]*$")]


class Move(msgspec.Struct, forbid_unknown_fields=True):
    step: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    view: s.Name = hearing.ALL_VIEW


def _reader(request: Request[Any, Any, Any], audit_id: str, link: str, room: hearing.Room | None = None) -> None:
    """A TD token, or the room's live link (a closed room's link opens nothing)."""
    sv = _sv(request)
    who = sv.caller(request)
    if who is not None and who.role == "td":
        return
    if not hearing.may_follow(sv.store, audit_id, link, room):
        raise PermissionDeniedException(f"the hearing of {audit_id} needs a TD token or the room's link, "
                                        "and the room must be open")


LinkSeconds = Annotated[int | None, Parameter(ge=hearing.MIN_LINK_SECONDS, le=hearing.MAX_LINK_SECONDS)]


class Branch(msgspec.Struct, forbid_unknown_fields=True):
    label: Annotated[str, msgspec.Meta(max_length=80, pattern=s.TEXT_PATTERN)] = ""


class Show(msgspec.Struct, forbid_unknown_fields=True):
    #: a hypothetical of the ruled deal, or "" for the deal alone
    hypothetical: Annotated[str, msgspec.Meta(max_length=64, pattern=r"^[A-Za-z0-9_\-]*$")] = ""


@post("/hearings/{match_id:str}/{ruling_id:str}", sync_to_thread=True, guards=[td_only],
      responses=_errs(401, 403, 404, 409, 422))
def open_hearing(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id,
                 expires_in: LinkSeconds = None) -> dict[str, Any]:
    """Open the hearing room (TD token): returns the read-only link followers open
    (`/ui/hearing/MATCH/RULING#link=…`); a new link replaces the old one. With
    `expires_in` (seconds) the link also stops working by itself then."""
    store = _sv(request).store
    record, link = hearing.open_room(store, resolve_ruling(store, f"{match_id}/{ruling_id}"), user.label or "td",
                                     expires_in)
    _sv(request).live.elsewhere()
    return {"hearing": record.id, "link": link, "url": f"/ui/hearing/{record.id}#link={link}",
            "expires_at": hearing.room_of(store, record.id).expires_at()}


def _lead(request: Request[Any, Any, Any], user: Principal, match_id: str, ruling_id: str,
          change: Callable[[EventStore, AuditRecord, str], Any]) -> dict[str, Any]:
    """A leader's change to the room (the guard checked the TD token): made, followers
    woken, the new frame."""
    sv = _sv(request)
    record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    change(sv.store, record, user.label or "td")
    sv.live.elsewhere()
    return hearing.frame(sv.store, record)


@post("/hearings/{match_id:str}/{ruling_id:str}/hypotheticals", sync_to_thread=True, guards=[td_only],
      responses=_errs(401, 403, 404, 409, 413, 415))
def branch_hearing(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id,
                   data: JSONBody[Branch]) -> dict[str, Any]:
    """The leader (TD token) opens a hypothetical from the moment the room shows and
    shows it to the room; moves and rollouts go to `/hypotheticals/{id}/…`."""
    return _lead(request, user, match_id, ruling_id,
                 lambda store, record, by: hearing.branch(store, record, by, data.label))


@post("/hearings/{match_id:str}/{ruling_id:str}/show", sync_to_thread=True, guards=[td_only],
      responses=_errs(401, 403, 404, 409, 413, 415))
def show_hearing(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id,
                 data: JSONBody[Show]) -> dict[str, Any]:
    """The leader (TD token) shows one of the ruled deal's hypotheticals, or none."""
    return _lead(request, user, match_id, ruling_id,
                 lambda store, record, by: hearing.show(store, record, by, data.hypothetical))


@post("/hearings/{match_id:str}/{ruling_id:str}/close", sync_to_thread=True, guards=[td_only],
      responses=_errs(401, 403, 404, 409))
def close_hearing(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id) -> dict[str, Any]:
    """Close the room (TD token): its link stops working at once."""
    store = _sv(request).store
    record = hearing.close_room(store, resolve_ruling(store, f"{match_id}/{ruling_id}"), user.label or "td")
    _sv(request).live.elsewhere()
    return {"hearing": record.id, "open": False}


@post("/hearings/{match_id:str}/{ruling_id:str}/moves", sync_to_thread=True, guards=[td_only],
      responses=_errs(401, 403, 404, 409, 413, 415))
def move_hearing(request: Request[Any, Any, Any], user: User, match_id: Id, ruling_id: Id,
                 data: JSONBody[Move]) -> dict[str, Any]:
    """The leader (TD token) shows step `step` in `view` ("all" or a player's name)."""
    return _lead(request, user, match_id, ruling_id,
                 lambda store, record, by: hearing.move(store, record, by, data.step, data.view))


@get("/hearings/{match_id:str}/{ruling_id:str}", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_hearing(request: Request[Any, Any, Any], match_id: Id, ruling_id: Id, link: Link = "") -> dict[str, Any]:
    """What the room shows now (a TD token, or `?link=` while the room is open)."""
    store = _sv(request).store
    record = resolve_ruling(store, f"{match_id}/{ruling_id}")
    _reader(request, record.id, link)
    return hearing.frame(store, record)


@get("/hearings/{match_id:str}/{ruling_id:str}/stream", responses=_errs(401, 403, 404))
async def hearing_stream(request: Request[Any, Any, Any], match_id: Id, ruling_id: Id,
                         link: Link = "") -> ServerSentEvent:
    """Server-Sent Events: the room's frame now and after every move; the link (or
    token) is checked again on every change and every second: closing the room ends
    its followers' streams."""
    import weakref

    import anyio

    from kartludo.service.live import woken

    sv = _sv(request)
    store = sv.store
    record = await anyio.to_thread.run_sync(lambda: resolve_ruling(store, f"{match_id}/{ruling_id}"))
    await anyio.to_thread.run_sync(lambda: _reader(request, record.id, link))
    who = await anyio.to_thread.run_sync(sv.caller, request)
    # a follower's stream counts against the same allowance as a match's live stream
    slot = sv.streams.take(who, client_address(request, sv.limits))

    async def frames() -> Any:
        shown: tuple[int, int] = (-1, -1)
        try:
            while True:
                wake = sv.live.changed
                room = await anyio.to_thread.run_sync(lambda: hearing.room_of(store, record.id))
                try:  # the room read once a tick: who may follow, and whether the frame changed
                    await anyio.to_thread.run_sync(_reader, request, record.id, link, room)
                except (PermissionDeniedException, NotAuthorizedException):  # room closed, token revoked
                    yield ServerSentEventMessage(event="closed", data="{}")
                    return
                now = await anyio.to_thread.run_sync(hearing.signature, store, room)
                if now != shown:
                    shown = now
                    out = await anyio.to_thread.run_sync(lambda: hearing.frame(store, record))
                    yield ServerSentEventMessage(event="frame", data=msgspec.json.encode(out).decode(),
                                                 id=f"{now[0]}.{now[1]}")
                await woken(wake, 1.0)  # the room is read again each tick, woken or not
        except StoreError as exc:  # the database went away mid-stream: end it; the client reconnects
            log.warning("hearing stream on %s ends: %s", record.id, exc)
            yield ServerSentEventMessage(comment="database unavailable: reconnect", retry=1000, data=None)
        finally:
            slot.release()

    iterator = frames()
    weakref.finalize(iterator, slot.release)  # a response that never starts still gives its slot back
    return ServerSentEvent(iterator)


@get("/ui/hearing/{match_id:str}/{ruling_id:str}", include_in_schema=False, sync_to_thread=False)
def hearing_page(match_id: Id, ruling_id: Id) -> Any:
    """The hearing room: the TD opens it with `#token=` (leads), a follower with `#link=`."""
    from kartludo.web.pages import shell

    return shell(f"Hearing {match_id}/{ruling_id}", "hearing", match=match_id, ruling=ruling_id)


ROUTES = [hearing_page, add_annotation, get_annotations, open_hearing, close_hearing, move_hearing, branch_hearing,
          show_hearing, get_hearing, hearing_stream]
