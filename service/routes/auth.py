"""Who a bearer token speaks for."""

from __future__ import annotations

from litestar import get

from kartludo.service import schemas as s
from kartludo.service.deps import Svcs, User, authenticated
from kartludo.service.errors import responses


@get("/me", sync_to_thread=True, guards=[authenticated], responses=responses(401))
def get_me(services: Svcs, user: User) -> s.Me:
    """Who the bearer token speaks for: a TD, or a seat (its match, seat and player)."""
    if user.role != "seat" or user.match is None or user.seat is None:
        return s.Me(user.role, label=user.label)
    with services.locked(user.match):
        players = services.svc.load(user.match).players
    return s.Me(user.role, user.match, user.seat, players[user.seat], user.label)


ROUTES = [get_me]
