"""Hypotheticals over HTTP: TD material.

A TD token creates, plays, rolls out and reads them. Anyone else reads a hypothetical
only once its origin deal has ended in the match (then the deal's cards are public
anyway): while the deal runs a seat's or an anonymous read is refused (403), and the
list leaves such hypotheticals out, since a hypothetical shows every hand and a
rollout's figures rest on the real unseen cards.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio.to_thread
import msgspec
from litestar import Request, Response, get, post
from litestar.exceptions import PermissionDeniedException
from litestar.params import JSONBody, Parameter

from kartludo.app import hypotheticals as hy
from kartludo.engine.base import ALL
from kartludo.service import schemas as s
from kartludo.service.deps import User, td_only
from kartludo.service.errors import responses

HypoId = Annotated[str, Parameter(pattern=s.ID_PATTERN)]
Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]
Label = Annotated[str, msgspec.Meta(max_length=200, pattern=s.TEXT_PATTERN)]


class CreateHypothetical(msgspec.Struct, forbid_unknown_fields=True):
    match: s.Name
    deal: Annotated[int, msgspec.Meta(ge=1, le=100_000)]
    step: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]
    label: Label = ""


class HypoCommand(msgspec.Struct, forbid_unknown_fields=True):
    player: s.Name
    verb: s.Word
    args: Annotated[list[s.Word], msgspec.Meta(max_length=60)] = []


class RolloutRequest(msgspec.Struct, forbid_unknown_fields=True):
    n: Annotated[int, msgspec.Meta(ge=1, le=10_000)] = 200
    bots: Literal["heuristic", "random"] = "heuristic"
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    hidden: Literal["actual", "resample"] = "actual"


_TEXT = {403: "not a TD token while the origin deal runs", 404: "unknown match, hypothetical or ruling",
         409: "refused: a game rule, a settled deal, contention"}
_WRITE = responses(401, 403, 404, 409, 413, 415, text=_TEXT)
_READ = responses(401, 403, 404, text=_TEXT)


def _sv(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


def _readable(request: Request[Any, Any, Any], h: hy.Hypothetical) -> None:
    """A TD always; anyone else once the origin deal has ended."""
    sv = _sv(request)
    who = sv.caller(request)
    if who is not None and who.role == "td":
        return
    if not hy.origin_over(sv.store, h):
        raise PermissionDeniedException(f"hypothetical {h.id} is TD material while deal {h.started.deal} of "
                                        f"match {h.started.match} runs: it needs a TD token")


@post("/hypotheticals", guards=[td_only], responses=_WRITE)
async def create_hypothetical(request: Request[Any, Any, Any], user: User,
                              data: JSONBody[CreateHypothetical]) -> Response[dict[str, Any]]:
    """Start a hypothetical from step `step` of deal `deal` of `match` (TD token): 201
    with its URL in `Location`. (Async, as `POST /matches` is, for the same reason.)"""
    store = _sv(request).store

    def create() -> dict[str, Any]:
        hypo_id = hy.create(store, data.match, data.deal, data.step, label=data.label, by=user.label or "td")
        return hy.state_json(store, hy.load(store, hypo_id), ALL)

    out = await anyio.to_thread.run_sync(create)
    return Response(out, status_code=201, headers={"Location": f"/hypotheticals/{out['hypothetical']}"})


@get("/hypotheticals", sync_to_thread=True, responses=_READ)
def list_hypotheticals(request: Request[Any, Any, Any], match: Filter = None) -> list[dict[str, Any]]:
    """Hypotheticals (of `match`): all for a TD, else those whose origin deal has ended."""
    sv = _sv(request)
    who = sv.caller(request)
    rows = hy.list_hypotheticals(sv.store, match)
    if who is not None and who.role == "td":
        return rows
    return [r for r in rows if hy.origin_over(sv.store, hy.load(sv.store, r["hypothetical"]))]


@get("/hypotheticals/{hypo_id:str}", sync_to_thread=True, responses=_READ)
def get_hypothetical(request: Request[Any, Any, Any], hypo_id: HypoId) -> dict[str, Any]:
    """A hypothetical's state: the fields of `state`, every hand, and its origin."""
    store = _sv(request).store
    h = hy.load(store, hypo_id)
    _readable(request, h)
    out = hy.state_json(store, h, ALL)
    out["rollouts"] = [hy.rollout_json(r) for r in h.rollouts]
    return out


@post("/hypotheticals/{hypo_id:str}/commands", sync_to_thread=True, guards=[td_only], responses=_WRITE)
def hypothetical_command(request: Request[Any, Any, Any], hypo_id: HypoId,
                         data: JSONBody[HypoCommand]) -> dict[str, Any]:
    """Give a command as `player` in the hypothetical (TD token); its events and the new state."""
    store = _sv(request).store
    played = hy.act(store, hypo_id, data.player, data.verb, data.args)
    _sv(request).live.elsewhere()  # a hearing room showing it follows the move
    h = hy.load(store, played.hypothetical)
    return {"described": hy.describe_played(h, played, ALL), "state": hy.state_json(store, h, ALL),
            "legal": {p: [c.text() for c in hy.legal(h, p)] for p in h.match.players}}


@post("/hypotheticals/{hypo_id:str}/rollouts", sync_to_thread=True, guards=[td_only], responses=_WRITE)
def hypothetical_rollouts(request: Request[Any, Any, Any], user: User, hypo_id: HypoId,
                          data: JSONBody[RolloutRequest]) -> dict[str, Any]:
    """Play the hypothetical's deal to settlement `n` times with bots (TD token); the
    summary is recorded on its stream."""
    from kartludo.app import rollouts as ro

    store = _sv(request).store
    h = hy.load(store, hypo_id)
    result = ro.rollout(h, data.n, bots=data.bots, seed=data.seed, hidden=data.hidden)
    ro.record(store, result, actor=user.label or "td")
    _sv(request).live.elsewhere()  # a hearing room showing it draws the new chart
    return ro.result_json(result)


@get("/audit/{match_id:str}/{ruling_id:str}/hypotheticals", sync_to_thread=True, responses=_READ)
def ruling_hypotheticals(request: Request[Any, Any, Any], match_id: HypoId, ruling_id: HypoId) -> list[dict[str, Any]]:
    """The hypotheticals made from a ruling's deal, with their results (a TD's at any
    time; anyone's once the deal has ended)."""
    from kartludo.projections.queries import resolve_ruling

    sv = _sv(request)
    who = sv.caller(request)
    with sv.projections:
        record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    rows = hy.list_hypotheticals(sv.store, record.match, record.deal)
    if who is not None and who.role == "td":
        return rows
    if rows and not hy.origin_over(sv.store, hy.load(sv.store, rows[0]["hypothetical"])):
        raise PermissionDeniedException(f"the hypotheticals of deal {record.deal} are TD material while it runs")
    return rows


ROUTES = [create_hypothetical, list_hypotheticals, get_hypothetical, hypothetical_command, hypothetical_rollouts,
          ruling_hypotheticals]
