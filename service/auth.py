"""Bearer tokens: who is calling, and what they may see and do.

A duplicate event's player token (role ``player``) is resolved per request: on a path
naming a board of that event where the player sits (``{match_id}``: the match's own
routes, its live stream, its rulings), it is that seat's token for the request (so
every seat rule applies to it unchanged); anywhere else it speaks for the public.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException

from kartludo.app.errors import AppError
from kartludo.app.tokens import PLAYER, Principal, TokenIndex
from kartludo.engine.base import ALL, PUBLIC, Viewer

#: a match id (or a unique prefix of one) as a path names it (``service.schemas.ID_PATTERN``)
_ID = re.compile(r"[A-Za-z0-9_.\-]{1,100}")


def principal(request: ASGIConnection[Any, Any, Any, Any], index: TokenIndex) -> Principal | None:
    """The caller: None without an Authorization header; 401 for a bad or revoked token.
    Blocking (a player token's seat may be looked up): call it from a worker thread."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, secret = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise NotAuthorizedException("use 'Authorization: Bearer TOKEN'")
    found = index.resolve(secret.strip())
    if found is None:
        raise NotAuthorizedException(index.refusal(secret.strip()))
    if found.role == PLAYER:
        return seated(request, found)
    return found


def seated(request: ASGIConnection[Any, Any, Any, Any], player: Principal) -> Principal:
    """A player token on a request naming a board of its event where the player sits:
    that seat's principal (same token hash, so a revocation still ends it at once);
    otherwise the player token as it is (public everywhere but ``/duplicates``)."""
    services = getattr(request.app.state, "services", None)
    raw = request.path_params.get("match_id")
    if services is None or not isinstance(raw, str) or not _ID.fullmatch(raw) or player.duplicate is None:
        return player
    seat = board_seat(services, player, raw)
    if seat is None:
        return player
    match_id, at = seat
    return msgspec.structs.replace(player, role="seat", match=match_id, seat=at)


def board_seat(services: Any, player: Principal, match_text: str) -> tuple[str, int] | None:
    """The match ``match_text`` names (any unique prefix) and the player's seat in it,
    when it is a board of the player token's event where the player sits; else None.
    A board's link (``BoardOf``) is written with its match and never changes, and so do
    its players (the event's seating for that board): both are read once and kept."""
    try:
        match_id = services.svc.cached_id(match_text) or services.svc.resolve(match_text)
        link = services.reader.boards.link(match_id)
        if link is None or link.duplicate != player.duplicate:
            return None
        players = services.svc.load(match_id, refresh=False).players
    except AppError:  # no such match (or an ambiguous prefix): the route says so
        return None
    return (match_id, players.index(player.label)) if player.label in players else None


def require(who: Principal | None) -> Principal:
    if who is None:
        raise NotAuthorizedException("this needs a token (Authorization: Bearer TOKEN)")
    return who


def require_td(who: Principal | None) -> Principal:
    who = require(who)
    if who.role != "td":
        raise PermissionDeniedException("only a TD token may do this")
    return who


def require_seat(who: Principal | None, match_id: str) -> int:
    """The seat the caller holds in ``match_id`` (403 for a TD or another match's seat,
    or a player token of a duplicate event that plays no seat in that match)."""
    who = require(who)
    if who.role == PLAYER:
        raise PermissionDeniedException(f"this needs a seat token of match {match_id}: the player token of "
                                        f"{who.label} (duplicate {who.duplicate}) plays no seat in it")
    if who.role != "seat" or who.match != match_id or who.seat is None:
        raise PermissionDeniedException(f"this needs a seat token of match {match_id}")
    return who.seat


def viewer_of(who: Principal | None, match_id: str) -> Viewer:
    """TD: every hand; a seat of this match: that seat; anyone else: public."""
    if who is None:
        return PUBLIC
    if who.role == "td":
        return ALL
    if who.role == "seat" and who.match == match_id and who.seat is not None:
        return who.seat
    return PUBLIC
