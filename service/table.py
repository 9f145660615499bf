"""The routes a table client needs beyond the match API: a seat's moves (its legal
commands with their shapes and cautions, all judged from its own view) and the TD's
table facts (may a deal start now, does the match deal by itself)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from kartludo.app import autodeal
from kartludo.events.base import to_builtins
from kartludo.service import schemas as s
from kartludo.service.auth import require_seat, require_td

MatchId = Annotated[str, Parameter(pattern=s.ID_PATTERN)]


def _errs(*codes: int) -> dict[int, ResponseSpec]:
    text = {401: "missing, bad or revoked token", 403: "wrong seat or role", 404: "unknown match",
            422: "malformed request"}
    return {c: ResponseSpec(s.ErrorBody, description=text[c], generate_examples=False) for c in {*codes, 422}}


def _sv(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


@get("/matches/{match_id:str}/moves", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_moves(request: Request[Any, Any, Any], match_id: MatchId) -> dict[str, Any]:
    """The token's seat's moves now: `legal` (every command, as `GET .../legal`),
    `shapes` (each verb's shape: which of the seat's cards and how many, a number range,
    a choice; a client never needs the full list) and `cautions` (command -> what to
    confirm first: it ends the deal, or is a foul by what the seat can see)."""
    sv = _sv(request)
    who = sv.caller(request)
    mid = sv.svc.resolve(match_id)
    seat = require_seat(who, mid)
    with sv.locked(mid):
        match = sv.svc.load(mid)
        game, state = match.game, match.state
        legal = game.legal_commands(state, seat)
        return {"legal": [c.text() for c in legal],
                "shapes": [to_builtins(x) for x in game.legal_shapes(state, seat, legal)],
                "cautions": game.legal_cautions(state, seat, legal)}


@get("/matches/{match_id:str}/table", sync_to_thread=True, responses=_errs(401, 403, 404))
def get_table(request: Request[Any, Any, Any], match_id: MatchId) -> dict[str, Any]:
    """The TD's facts about a match's table (TD token): `can_deal` (a deal may start
    now: the TD page's Deal next), `auto_deal` (the match deals by itself when a deal
    ends), `closed` (by its series deadline), `status` and `deal`."""
    sv = _sv(request)
    require_td(sv.caller(request))
    mid = sv.svc.resolve(match_id)
    with sv.locked(mid):
        match = sv.svc.load(mid)
        game = match.game
        return {"match": mid, "status": match.status, "deal": game.deal_number(match.state),
                "can_deal": not match.closed and game.can_deal(match.state),
                "auto_deal": autodeal.auto_deal(sv.store, mid),
                "deal_due": autodeal.due(sv.svc, mid), "closed": match.closed}


ROUTES = [get_moves, get_table]
