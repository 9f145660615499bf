"""Litestar guards and dependencies: who may call a route, and what its handler gets.

A handler names what it needs by type (``Svcs``, ``Svc``, ``Caller``, ``User``,
``MatchOf``, ``Seat``, ``View``: named dependencies) and its guards say who may call
it (``authenticated``, ``td_only``, ``seat_only``). The token is looked up once per
request and shared by guards and handler; a live stream looks it up again on every
use (``Services.caller``), so a revoked token stops it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from litestar import Request
from litestar.concurrency import sync_to_thread
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency, Provide
from litestar.exceptions import ValidationException
from litestar.handlers import BaseRouteHandler
from litestar.params import Parameter

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import Principal
from kartludo.engine.base import Viewer
from kartludo.service.auth import principal, require, require_seat, require_td, viewer_of
from kartludo.service.schemas import ID_PATTERN
from kartludo.service.services import Services

#: a match id (or any unique prefix of one) in a path
MatchId = Annotated[str, Parameter(pattern=ID_PATTERN)]

#: what the handlers share (``service.services``)
Svcs = NamedDependency[Services]
#: the shared MatchService
Svc = NamedDependency[MatchService]
#: the caller: None without a token (401 for a bad, revoked or expired one)
Caller = NamedDependency[Principal | None]
#: the caller of a guarded route (never None)
User = NamedDependency[Principal]
#: the full id of the path's match
MatchOf = NamedDependency[str]
#: the caller's seat in the path's match (a ``seat_only`` route)
Seat = NamedDependency[int]
#: the view the caller may see of the path's match: every hand, its seat's, or public
View = NamedDependency[Viewer]

# A handler names what it needs (``services``, ``svc``, ``who``, ``mid``, ``seat``,
# ``viewer``) and its guards say who may call it; the token is looked up once per
# request (and again on every use by a live stream: ``Services.caller``).
_UNSET: Any = object()


def _services(connection: ASGIConnection[Any, Any, Any, Any]) -> Services:
    return connection.app.state.services  # type: ignore[no-any-return]


async def caller(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal | None:
    """The request's caller, looked up once (guards and the handler share it)."""
    found = connection.state.get("kartludo_caller", _UNSET)
    if found is _UNSET:
        index = _services(connection).tokens
        found = await sync_to_thread(principal, connection, index)
        connection.state["kartludo_caller"] = found
    return found  # type: ignore[no-any-return]


async def path_match(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The full id of the match the path names (any unique prefix), resolved once."""
    found = connection.state.get("kartludo_match", _UNSET)
    if found is _UNSET:
        raw = connection.path_params["match_id"]
        if not isinstance(raw, str) or not re.fullmatch(ID_PATTERN, raw):
            raise ValidationException(f"match id {raw!r} is not an id (letters, digits, '_', '.', '-')")
        svc = _services(connection).svc
        # a match the service holds folded is known by its full id without the store:
        # answered here, not in a worker thread (a hop costs more than the request's work)
        found = svc.cached_id(raw) or await sync_to_thread(svc.resolve, raw)
        connection.state["kartludo_match"] = found
    return found  # type: ignore[no-any-return]


async def authenticated(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard: any live token (401 without one)."""
    require(await caller(connection))


async def td_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard: a TD token (401 without a token, 403 for a seat's)."""
    require_td(await caller(connection))


async def seat_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard: a seat token of the match the path names (401 without a token; 404 for
    an unknown match; 403 for a TD's token or another match's seat)."""
    who = await caller(connection)
    require_seat(who, await path_match(connection))


def provide_services(request: Request[Any, Any, Any]) -> Services:
    return _services(request)


def provide_svc(request: Request[Any, Any, Any]) -> MatchService:
    return _services(request).svc


async def provide_who(request: Request[Any, Any, Any]) -> Principal | None:
    return await caller(request)


async def provide_user(request: Request[Any, Any, Any]) -> Principal:
    """The caller of a guarded route (``authenticated``, ``td_only``, ``seat_only``)."""
    return require(await caller(request))


async def provide_mid(request: Request[Any, Any, Any], match_id: MatchId) -> str:
    return await path_match(request)


async def provide_seat(request: Request[Any, Any, Any], match_id: MatchId) -> int:
    """The caller's seat in the path's match (a ``seat_only`` route)."""
    return require_seat(await caller(request), await path_match(request))


async def provide_viewer(request: Request[Any, Any, Any], match_id: MatchId) -> Viewer:
    return viewer_of(await caller(request), await path_match(request))


DEPENDENCIES = {
    "services": Provide(provide_services, sync_to_thread=False),
    "svc": Provide(provide_svc, sync_to_thread=False),
    "who": Provide(provide_who),
    "user": Provide(provide_user),
    "mid": Provide(provide_mid),
    "seat": Provide(provide_seat),
    "viewer": Provide(provide_viewer),
}
