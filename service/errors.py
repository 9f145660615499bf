"""Errors as RFC 9457 problem details (``application/problem+json``).

Every refusal names its kind (``type``, a link to the API docs' section on it), its
``title``, ``status`` and ``detail``; a command a game rule refuses also names the
``rule``, and a command the game cannot read its commands section there. ``error``
repeats ``detail`` for clients written before problem details.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.types import ExceptionHandlersMap

from kartludo.app.errors import AmbiguousMatch, AppError, InvalidInput, NotAllowed, UnknownMatch, UnknownPlayer
from kartludo.engine.base import BadCommand, IllegalCommand
from kartludo.service import schemas as s
from kartludo.store import ConcurrencyConflict
from kartludo.store.database import as_store_error
from kartludo.store.errors import DatabaseUnavailable, StoreBusy, StoreError

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"

#: every kind of problem the API answers with: slug -> (status, title, when)
PROBLEMS: dict[str, tuple[int, str, str]] = {
    "rule": (409, "Refused by a game rule",
             "The command breaks a rule of the game; `rule` cites it as the rules pages do. Nothing was written."),
    "conflict": (409, "Conflict",
                 "The request clashes with the match's state or history (a settled deal, a reused `command_id`, "
                 "contention after retries). Nothing was written."),
    "invalid": (422, "Invalid request",
                "A malformed body, path or query parameter, or a command the game cannot read (`rule` then cites "
                "the game's commands section); `errors` lists each bad field when there are several."),
    "unauthorized": (401, "Unauthorized", "A missing, malformed, unknown, revoked or expired bearer token."),
    "forbidden": (403, "Forbidden", "The token may not do this (wrong role, another match's seat, a running deal)."),
    "not-found": (404, "Not found", "No such match, ruling, series, hypothetical or page."),
    "method-not-allowed": (405, "Method not allowed", "The path exists, but not for this HTTP method."),
    "too-large": (413, "Request body too large", "The body exceeds the server's limit."),
    "too-deep": (400, "Request body nested too deeply",
                 "The JSON body's arrays and objects nest deeper than the server's limit; it is refused before "
                 "it is parsed. Nothing was written."),
    "unknown-parameter": (400, "Unknown query parameter",
                          "The request names a query parameter the route does not take (a misspelt filter would "
                          "otherwise be ignored and answer with everything); `detail` names it and the ones the "
                          "route takes. Nothing was written."),
    "unsupported-media-type": (415, "Unsupported media type", "Send bodies as `application/json`."),
    "too-many-streams": (429, "Too many open streams", "The caller holds as many live streams as it may."),
    "unavailable": (503, "Service unavailable",
                    "The database is unreachable, restarting or busy: send the same request again after "
                    "`Retry-After` seconds (a command with its `command_id` is applied once, however often sent)."),
    "server-error": (500, "Internal server error", "A fault on the server, logged there; nothing internal is shown."),
}
_BY_STATUS = {status: slug for slug, (status, _, _) in PROBLEMS.items() if slug not in ("rule", "conflict")}
_BY_STATUS[409] = "conflict"


def problem_type(slug: str) -> str:
    """The ``type`` URI of a kind of problem: its section in the offline API docs."""
    return f"/schema#problem-{slug}"


def problem(status: int, detail: str, *, rule: str | None = None, kind: str | None = None,
            errors: list[dict[str, str]] | None = None, headers: dict[str, str] | None = None) -> Response[Any]:
    slug = kind or _BY_STATUS.get(status)
    if slug is None:  # a status with no kind of its own: RFC 9457's default type
        type_, title = "about:blank", HTTPStatus(status).phrase
    else:
        type_, title = problem_type(slug), PROBLEMS[slug][1]
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail, "error": detail,
                            "rule": rule}
    if errors:
        body["errors"] = errors
    return Response(body, status_code=status, headers=headers, media_type=MEDIA_TYPE)


def responses(*codes: int, text: dict[int, str] | None = None) -> dict[int, ResponseSpec]:
    """The OpenAPI entries of a route's problem responses (every route may meet a
    malformed path or query parameter: 422; one that reads a body, a body nested too
    deeply: 400)."""
    said = {401: "missing, bad, revoked or expired token", 403: "wrong seat or role",
            404: "unknown match, ruling or series",
            409: "refused: a game rule (see `rule`), or a conflict (contention after retries, a reused command id)",
            422: "malformed request", 413: "the request body is too large",
            400: "the JSON body nests too deeply",
            415: "the body is not sent as application/json", 429: "too many open live streams for this caller",
            **(text or {})}
    if 413 in codes:  # a route that reads a body
        said[400] = f"an unknown query parameter, or {said[400]}"
    else:
        said[400] = "an unknown query parameter"
    return {c: ResponseSpec(s.Problem, description=said[c], generate_examples=False, media_type=MEDIA_TYPE)
            for c in {*codes, 422, 400}}  # every route refuses an unknown query parameter


class UnknownParameter(HTTPException):
    """A query parameter the route does not take: a bad request (400), refused before
    the route runs (``service.app``'s guard over each route's declared parameters)."""

    status_code = 400


class BodyTooDeep(HTTPException):
    """A JSON body nested deeper than the limit: a bad request (400), refused unread,
    unlike a malformed field of a body that was read (422)."""

    status_code = 400


# --- exception handlers ----------------------------------------------------------------
def _on_http(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if isinstance(exc, BodyTooDeep):
        return problem(400, str(exc.detail), kind="too-deep")
    if isinstance(exc, UnknownParameter):
        return problem(400, str(exc.detail), kind="unknown-parameter")
    status = 422 if exc.status_code == 400 else exc.status_code  # a malformed request body or parameter
    headers = dict(exc.headers or {})
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    detail = str(exc.detail)
    if status == 413:
        detail = f"the request body is too large: at most {request.app.state.services.limits.max_body_bytes} bytes"
    return problem(status, detail, headers=headers or None)


def _on_validation(_: Request[Any, Any, Any], exc: ValidationException) -> Response[Any]:
    """A malformed request: each bad field named in words (never a Python repr)."""
    errors = [{k: str(v) for k, v in e.items()} for e in exc.extra if isinstance(e, dict)] \
        if isinstance(exc.extra, list) else []
    said = "; ".join(f"{e.get('source', 'request')} `{e['key']}`: {e.get('message', 'invalid')}" if e.get("key")
                     else e.get("message", "invalid") for e in errors)
    return problem(422, f"{exc.detail}: {said}" if said else str(exc.detail), errors=errors)


def _on_illegal(_: Request[Any, Any, Any], exc: IllegalCommand) -> Response[Any]:
    return problem(409, exc.message, rule=exc.rule, kind="rule")


def _on_bad(_: Request[Any, Any, Any], exc: BadCommand) -> Response[Any]:
    """Input the service cannot read (422); a command a game cannot read cites the
    game's commands section in ``rule``, as a rule's refusal does."""
    return problem(422, exc.message, rule=exc.rule)


def _on_app(_: Request[Any, Any, Any], exc: AppError) -> Response[Any]:
    if isinstance(exc, (UnknownMatch, AmbiguousMatch)):
        return problem(404, str(exc))
    if isinstance(exc, (UnknownPlayer, NotAllowed)):
        return problem(403, str(exc))
    if isinstance(exc, InvalidInput):
        return problem(422, str(exc))
    return problem(409, str(exc))


#: seconds a client is asked to wait before it retries a 503 (``Retry-After``)
RETRY_AFTER_S = 1


def _on_store(_: Request[Any, Any, Any], exc: StoreError) -> Response[Any]:
    if isinstance(exc, (DatabaseUnavailable, StoreBusy)):
        # the database is down, restarting or busy: the same request (with its command_id)
        # may be sent again; a command the database committed before it went away is
        # answered then as the duplicate it is
        return problem(503, str(exc), headers={"Retry-After": str(RETRY_AFTER_S)})
    if isinstance(exc, ConcurrencyConflict):
        return problem(409, str(exc))
    return problem(409, str(exc))


def _on_server_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """A bug or an outage nobody foresaw: logged with its traceback, answered without
    internals. A driver's error that means the database failed (down, restarting, a full
    disk, a damaged file), met outside the store's own calls (snapshots, read models), is
    the 503 the store would have raised, logged in one line."""
    failed = as_store_error(exc, request.app.state.services.store.engine.url)
    if failed is not None:
        log.warning("%s %s: %s", request.method, request.url.path, failed)
        return _on_store(request, failed)
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    return problem(500, "internal server error (logged on the server)")


HANDLERS: ExceptionHandlersMap = {
    HTTPException: _on_http,
    ValidationException: _on_validation,
    IllegalCommand: _on_illegal,
    BadCommand: _on_bad,
    AppError: _on_app,
    StoreError: _on_store,
    Exception: _on_server_error,
}
