"""The audit trail: penalty rulings, appeals and TD decisions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from litestar import Request, Response, get, post
from litestar.params import JSONBody, Parameter

from kartludo.app.audit import rulings as audit
from kartludo.app.audit import trail
from kartludo.app.errors import UnknownMatch
from kartludo.app.tokens import Principal
from kartludo.engine.base import PUBLIC
from kartludo.projections.audit import AuditRecord
from kartludo.service import schemas as s
from kartludo.service.auth import require_seat, viewer_of
from kartludo.service.deps import Caller, MatchId, Svcs, User, authenticated, td_only
from kartludo.service.errors import responses
from kartludo.service.pagination import LINK_HEADER, Cursor, Limit, page
from kartludo.service.services import Services


@get("/audit", sync_to_thread=True, responses=responses(401, 404), response_headers=LINK_HEADER)
def get_audit(request: Request[Any, Any, Any], services: Svcs, who: Caller,
              match: Annotated[str | None, Parameter(pattern=s.ID_PATTERN, description=(
                  "only this match's (any unique id prefix)"))] = None,
              player: Annotated[str | None, Parameter(pattern=s.ID_PATTERN,
                                                      description="only the rulings against this player")] = None,
              game: Annotated[str | None, Parameter(pattern=s.ID_PATTERN,
                                                    description="only the rulings of this game's matches")] = None,
              status: Annotated[Literal["standing", "appealed", "upheld", "overturned"] | None, Parameter(
                  description="only the rulings in this state")] = None,
              limit: Limit = None, after: Cursor = None) -> Response[list[AuditRecord]]:
    """Every recorded penalty ruling, in the order they were made, filtered as
    `kartludo audit list` filters them (`match`, `player`, `game`, `status`; the
    command line also lists decisions without a penalty, status `decision`); `limit`
    and `after` (an audit id, `MATCH/RULING`) page through them."""
    found = services.read_models(who, lambda store, done: trail.list_audit(
        store, match=match, player=player, game=game, status=status, decisions=False, refreshed=done))
    held: dict[str, int | None] = {}  # per match: where a watch delay cuts it for this caller
    shown = [r for r in found if not _held_back(services, who, r, held)]
    return page(request, shown, lambda r: r.id, limit, after)


def _held_back(services: Services, who: Principal | None, record: AuditRecord,
               held: dict[str, int | None] | None = None) -> bool:
    """Whether a watcher (the public view) may not see ``record`` yet: its match has a
    watch delay that has not passed the ruling (``held``: the cuts found so far)."""
    viewer = viewer_of(who, record.match)
    if viewer is not PUBLIC:
        return False
    held = {} if held is None else held
    if record.match not in held:
        cut = services.reader.watch_cut(record.match, viewer, False)
        held[record.match] = None if cut is None else cut[1]
    cut_at = held[record.match]
    return cut_at is not None and record.version > cut_at


@get("/audit/{match_id:str}/{ruling_id:str}", sync_to_thread=True, responses=responses(401, 404))
def get_ruling(services: Svcs, who: Caller, match_id: MatchId, ruling_id: MatchId) -> AuditRecord:
    """One ruling (audit id `MATCH/RULING`): facts, effect, status, dispute history. A
    ruling its match's watch delay still holds back is unknown (404) to a watcher."""
    record = services.read_models(who, lambda store, done: trail.resolve_ruling(store, f"{match_id}/{ruling_id}",
                                                                                  refreshed=done))
    if _held_back(services, who, record):
        text = f"{match_id}/{ruling_id}"  # as unknown as a ruling never made: its existence is held back too
        raise UnknownMatch(f"no ruling {text!r} (see `kartludo audit list`)")
    return record


@post("/audit/{match_id:str}/{ruling_id:str}/appeal", sync_to_thread=True, guards=[authenticated],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def appeal_ruling(services: Svcs, user: User, match_id: MatchId, ruling_id: MatchId,
                  data: JSONBody[s.Appeal]) -> AuditRecord:
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
                  data: JSONBody[s.Decide]) -> AuditRecord:
    """Decide an appealed ruling: uphold or overturn (TD token, under its label). The
    TD may be neither a player of the match nor the appellant (403)."""
    adjusting = data.adjusting()
    return _change(services, user, f"{match_id}/{ruling_id}", lambda record: audit.decide(
        services.store, record, user.label or "td", data.decision, data.reason, adjust=adjusting["adjust"],
        adjust_scores=adjusting["adjust_scores"]))


def _change(services: Services, user: Principal, audit_id: str, change: Callable[[AuditRecord], object]
            ) -> AuditRecord:
    """An appeal or a decision: made on the ruling as the projections hold it, then the
    ruling as it now stands; the writer's reads and the match's streams catch up."""
    with services.projections:
        record = trail.resolve_ruling(services.store, audit_id)
        change(record)
        out = trail.resolve_ruling(services.store, record.id)
    services.wrote(user)
    services.live.notify(record.match)
    return out


ROUTES = [get_audit, get_ruling, appeal_ruling, decide_ruling]
