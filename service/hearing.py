"""The appeal hearing over HTTP: annotations on a ruled deal's events.

Writing: a TD token (under its label) or a seat token of the ruling's match (as that
seat's player). Reading: a TD token always; anyone else once the ruled deal has ended
(a comment may name cards a seat has not seen while the deal runs): 403 before.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.exceptions import PermissionDeniedException
from litestar.params import JSONBody, Parameter

from kartludo.app import hearing
from kartludo.app.audit import resolve_ruling
from kartludo.service import schemas as s
from kartludo.service.auth import require, require_seat
from kartludo.service.hypotheticals import _errs

Id = Annotated[str, Parameter(pattern=s.ID_PATTERN)]


class Annotate(msgspec.Struct, forbid_unknown_fields=True):
    event: Annotated[int, msgspec.Meta(ge=1, le=2**62)]
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=hearing.TEXT_LIMIT, pattern=s.TEXT_PATTERN)]


def _sv(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


@post("/audit/{match_id:str}/{ruling_id:str}/annotations", sync_to_thread=True,
      responses=_errs(401, 403, 404, 409, 413, 415))
def add_annotation(request: Request[Any, Any, Any], match_id: Id, ruling_id: Id,
                   data: JSONBody[Annotate]) -> dict[str, Any]:
    """Comment on event `event` (its global position) of the ruled deal: a TD token, or
    a seat token of the ruling's match (the seat's player speaks). Stored in the
    hearing's own stream, never the match's."""
    sv = _sv(request)
    who = require(sv.caller(request))
    record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    if who.role == "td":
        a = hearing.annotate(sv.store, record.id, who.label or "td", data.event, data.text, td=True)
    else:
        seat = require_seat(who, record.match)
        player = sv.svc.load(record.match).players[seat]
        a = hearing.annotate(sv.store, record.id, player, data.event, data.text)
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


ROUTES = [add_annotation, get_annotations]
