"""The routes a table client needs beyond the match API: a seat's moves (its legal
commands with their shapes and cautions, all judged from its own view) and the TD's
table facts (may a deal start now, does the match deal by itself)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get

from kartludo.app import autodeal
from kartludo.service.deps import MatchOf, Seat, Svc, Svcs, seat_only, td_only
from kartludo.service.errors import responses

_ERRS = responses(401, 403, 404, text={404: "unknown match"})


@get("/matches/{match_id:str}/moves", sync_to_thread=True, guards=[seat_only], responses=_ERRS)
def get_moves(services: Svcs, svc: Svc, mid: MatchOf, seat: Seat) -> dict[str, Any]:
    """The token's seat's moves now: `legal` (every command, as `GET .../legal`),
    `shapes` (each verb's shape: which of the seat's cards and how many, a number range,
    a choice; a client never needs the full list) and `cautions` (command -> what to
    confirm first: it ends the deal, or is a foul by what the seat can see)."""
    with services.locked(mid):
        match = svc.load(mid)
        game, state = match.game, match.state
        legal = game.legal_commands(state, seat)
        return {"legal": [c.text() for c in legal],
                "shapes": [msgspec.to_builtins(x) for x in game.legal_shapes(state, seat, legal)],
                "cautions": game.legal_cautions(state, seat, legal)}


@get("/matches/{match_id:str}/table", sync_to_thread=True, guards=[td_only], responses=_ERRS)
def get_table(services: Svcs, svc: Svc, mid: MatchOf) -> dict[str, Any]:
    """The TD's facts about a match's table (TD token): `can_deal` (a deal may start
    now: the TD page's Deal next), `auto_deal` (the match deals by itself when a deal
    ends), `closed` (by its series deadline), `status` and `deal`."""
    with services.locked(mid):
        match = svc.load(mid)
        game = match.game
        return {"match": mid, "status": match.status, "deal": game.deal_number(match.state),
                "can_deal": not match.closed and game.can_deal(match.state),
                "auto_deal": autodeal.auto_deal(services.store, mid),
                "deal_due": autodeal.due(svc, mid), "closed": match.closed}


ROUTES = [get_moves, get_table]
