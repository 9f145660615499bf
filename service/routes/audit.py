"""The audit trail: penalty rulings, appeals and TD decisions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.params import JSONBody, Parameter

from kartludo.app import audit
from kartludo.app.audit import AuditRecord
from kartludo.app.tokens import Principal
from kartludo.projections import queries
from kartludo.service import schemas as s
from kartludo.service.auth import require_seat
from kartludo.service.deps import Caller, MatchId, Svcs, User, authenticated, td_only
from kartludo.service.errors import responses
from kartludo.service.pagination import LINK_HEADER, Cursor, Limit, page
from kartludo.service.services import Services

Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]


@get("/audit", sync_to_thread=True, responses=responses(401, 404), response_headers=LINK_HEADER)
def get_audit(request: Request[Any, Any, Any], services: Svcs, who: Caller, match: Filter = None,
              player: Filter = None, limit: Limit = None, after: Cursor = None) -> Response[list[dict[str, Any]]]:
    """Every recorded penalty ruling (optionally of one match or one player); `limit`
    and `after` (an audit id, `MATCH/RULING`) page through them."""
    found = services.read_models(who, lambda store, done: queries.list_rulings(store, match or None, player or None,
                                                                               refreshed=done))
    rows = msgspec.to_builtins(found)
    return page(request, rows, lambda r: r["id"], limit, after)


@get("/audit/{match_id:str}/{ruling_id:str}", sync_to_thread=True, responses=responses(401, 404))
def get_ruling(services: Svcs, who: Caller, match_id: MatchId, ruling_id: MatchId) -> dict[str, Any]:
    """One ruling (audit id `MATCH/RULING`): facts, effect, status, dispute history."""
    record = services.read_models(who, lambda store, done: queries.resolve_ruling(store, f"{match_id}/{ruling_id}",
                                                                                  refreshed=done))
    out: dict[str, Any] = msgspec.to_builtins(record)
    return out


@post("/audit/{match_id:str}/{ruling_id:str}/appeal", sync_to_thread=True, guards=[authenticated],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def appeal_ruling(services: Svcs, user: User, match_id: MatchId, ruling_id: MatchId,
                  data: JSONBody[s.Appeal]) -> dict[str, Any]:
    """Appeal a ruling: a seat token of the ruling's match (the seat's player appeals)
    or a TD token (the TD appeals under its label)."""
    def appeal(record: AuditRecord) -> None:
        if user.role == "td":
            audit.appeal(services.store, record, user.label or "td", data.reason, td=True)
            return
        seat = require_seat(user, record.match)
        with services.locked(record.match):
            player = services.svc.load(record.match).players[seat]
        audit.appeal(services.store, record, player, data.reason)

    return _change(services, user, f"{match_id}/{ruling_id}", appeal)


@post("/audit/{match_id:str}/{ruling_id:str}/decide", sync_to_thread=True, guards=[td_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def decide_ruling(services: Svcs, user: User, match_id: MatchId, ruling_id: MatchId,
                  data: JSONBody[s.Decide]) -> dict[str, Any]:
    """Decide an appealed ruling: uphold or overturn (TD token, under its label). The
    TD may be neither a player of the match nor the appellant (403)."""
    return _change(services, user, f"{match_id}/{ruling_id}", lambda record: audit.decide(
        services.store, record, user.label or "td", data.decision, data.reason, **data.adjusting()))


def _change(services: Services, user: Principal, audit_id: str, change: Callable[[AuditRecord], object]
            ) -> dict[str, Any]:
    """An appeal or a decision: made on the ruling as the projections hold it, then the
    ruling as it now stands; the writer's reads and the match's streams catch up."""
    with services.projections:
        record = queries.resolve_ruling(services.store, audit_id)
        change(record)
        out = queries.resolve_ruling(services.store, record.id)
    services.wrote(user)
    services.live.notify(record.match)
    shown: dict[str, Any] = msgspec.to_builtins(out)
    return shown


ROUTES = [get_audit, get_ruling, appeal_ruling, decide_ruling]
