"""Bearer tokens: who is calling, and what they may see and do."""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException

from kartludo.app.tokens import Principal, TokenIndex
from kartludo.engine.base import ALL, PUBLIC, Viewer


def principal(request: ASGIConnection[Any, Any, Any, Any], index: TokenIndex) -> Principal | None:
    """The caller: None without an Authorization header; 401 for a bad or revoked token."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, secret = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise NotAuthorizedException("use 'Authorization: Bearer TOKEN'")
    found = index.resolve(secret.strip())
    if found is None:
        raise NotAuthorizedException(index.refusal(secret.strip()))
    return found


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
    """The seat the caller holds in ``match_id`` (403 for a TD or another match's seat)."""
    who = require(who)
    if who.role != "seat" or who.match != match_id or who.seat is None:
        raise PermissionDeniedException(f"this needs a seat token of match {match_id}")
    return who.seat


def viewer_of(who: Principal | None, match_id: str) -> Viewer:
    """TD: every hand; a seat of this match: that seat; anyone else: public."""
    if who is None:
        return PUBLIC
    if who.role == "td":
        return ALL
    if who.match == match_id and who.seat is not None:
        return who.seat
    return PUBLIC
