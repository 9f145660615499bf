"""The HTTP match service: a Litestar app over the same pipeline, engine and store as the CLI.

Every rule lives in the library (``MatchService``, ``replay``, ``audit``, ``standings``,
``series``); what a reader may see is ``app.visibility``'s, how it looks
``app.reading.presenters``'. The routes (``service.routes``) only map HTTP to them: guards
say who may call, dependencies (``service.deps``) bring the caller, the match and the
view, and errors become problem details (``service.errors``).
Store calls are synchronous: handlers run in worker threads (``sync_to_thread``).
What the handlers share is ``Services`` (``service.services``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from litestar import Litestar, Request
from litestar.concurrency import sync_to_thread
from litestar.connection import ASGIConnection
from litestar.exceptions import HTTPException
from litestar.handlers import BaseRouteHandler
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme

from kartludo.app.matches.clock import Sweeper
from kartludo.service.deps import DEPENDENCIES
from kartludo.service.docs import OfflineDocs
from kartludo.service.errors import HANDLERS, BodyTooDeep, UnknownParameter
from kartludo.service.limits import Limits, json_depth
from kartludo.service.routes import all_routes, duplicate
from kartludo.service.services import Services
from kartludo.store import EventStore
from kartludo.store.errors import DatabaseUnavailable, StoreBusy
from kartludo.store.replicas import ReadRouter

__all__ = ["Services", "create_app"]

_log = logging.getLogger("kartludo.service")


def _services(request: Request[Any, Any, Any]) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


async def _check_body(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Before anything else reads a body: it must be JSON (415), within the size limit
    (413) and not nested deeper than the limit (400; a deep body would exhaust the
    JSON parser's recursion). An app-wide guard, so it runs before the routes' own
    (a malformed body is refused as such, whoever sends it)."""
    if not isinstance(connection, Request) or connection.method not in ("POST", "PUT", "PATCH"):
        return
    request = connection
    limits = _services(request).limits
    length = request.headers.get("content-length")
    chunked = "chunked" in request.headers.get("transfer-encoding", "").lower()
    if not chunked and (length is None or length.strip() in ("", "0")):
        return  # no body (a deal without one uses the seeded shuffle)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        shown = f"{media_type!r}" if media_type else "none"
        raise HTTPException(status_code=415, detail=f"send the body as JSON with 'Content-Type: application/json' "
                                                    f"(got {shown})")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_body_bytes:
        raise HTTPException(status_code=413)
    depth = json_depth(await request.body())
    if depth > limits.max_json_depth:
        raise BodyTooDeep(detail=f"the JSON body nests {depth} levels deep: at most {limits.max_json_depth}")


async def _check_query(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """An app-wide guard: a query parameter the route does not declare (itself or by a
    dependency) is refused (400, naming it and the ones it takes) rather than ignored,
    so a misspelt filter (`/matches?plyer=ann`) never answers with everything. The
    pages (not in the API's schema) read their own URLs in the browser: not checked."""
    takes = connection.app.state.query_names.get(_key(handler))
    if takes is None:
        return
    unknown = [name for name in dict.fromkeys(connection.query_params.keys()) if name not in takes]
    if unknown:
        listed = ", ".join(repr(n) for n in unknown)
        said = f"unknown query parameter{'s' if len(unknown) > 1 else ''} {listed}"
        route = f"{connection.scope.get('method', 'GET')} {connection.url.path}"
        raise UnknownParameter(detail=f"{said}: {route} takes " + (", ".join(sorted(takes)) if takes else "none"))


def _key(handler: BaseRouteHandler) -> tuple[frozenset[str], frozenset[str]]:
    """A handler by its paths and methods (a guard may be handed a copy of it)."""
    return frozenset(handler.paths), frozenset(getattr(handler, "http_methods", ()))


def _declared_queries(app: Litestar) -> dict[tuple[frozenset[str], frozenset[str]], frozenset[str]]:
    """Each API handler's query parameters (its own and its dependencies', as Litestar
    parsed them from the signatures): what ``_check_query`` allows."""
    found = {}
    for route in app.routes:
        for handler, kwargs in getattr(route, "route_handler_map", {}).values():
            if handler.resolve_include_in_schema():
                found[_key(handler)] = frozenset(p.field_alias for p in kwargs.expected_query_params)
    return found


def _unwrap_twice_wrapped(app: Litestar) -> None:
    """Litestar registers every handler of a path again when another handler joins the
    path, and wraps a synchronous one in its thread runner each time: the first of two
    (GET and POST) ran as a thread-runner running a thread-runner, its answer a coroutine
    (a ``Response`` return failed outright) and its OpenAPI name "Asynccallable". Each
    handler keeps one wrapper: the thread runner of the function itself."""
    from litestar.utils.sync import AsyncCallable

    for route in app.routes:
        for handler, _ in getattr(route, "route_handler_map", {}).values():
            fn = handler.fn
            if isinstance(fn, AsyncCallable) and isinstance(fn.func, AsyncCallable):
                while isinstance(fn.func, AsyncCallable):
                    fn = fn.func
                handler._fn = fn


def _document_streams(handlers: list[Any]) -> None:
    """A live stream's 200 is `text/event-stream` (the OpenAPI document said `{}`): each
    handler answering a ``ServerSentEvent`` documents it, unless it says so itself."""
    from litestar.handlers import HTTPRouteHandler
    from litestar.openapi import ResponseSpec
    from litestar.response import ServerSentEvent

    for handler in handlers:
        if not isinstance(handler, HTTPRouteHandler) or handler.parsed_fn_signature.return_type.annotation \
                is not ServerSentEvent:
            continue
        if 200 not in (handler.responses or {}):
            handler.responses = {**(handler.responses or {}), 200: ResponseSpec(
                data_container=str, media_type="text/event-stream", generate_examples=False,
                description="Server-Sent Events: `id` the event's global position, `event` its type, `data` "
                            "the event as in `/events` (JSON); comments keep the stream alive")}


# --- the app ----------------------------------------------------------------------------
def _resolve_dependencies_in_order() -> None:
    """Litestar resolves a handler's independent dependencies concurrently, each in a
    task of an anyio task group (litestar issue 4563, open). Ours are look-ups cached
    per request (the caller and the match, found once by the guard), so the tasks cost
    more than the work (upstream measured a second dependency cutting a bare route to
    36% of its rate; a command here names five). Resolved one after another, as FastAPI
    does, for every app of the process (it patches Litestar's class, so it runs once, at
    import); a test fails if a request opens a task group again."""
    from litestar._kwargs.cleanup import DependencyCleanupGroup
    from litestar._kwargs.dependencies import resolve_dependency
    from litestar._kwargs.kwargs_model import KwargsModel

    async def resolve_dependencies(self: Any, connection: Any, kwargs: dict[str, Any]) -> Any:
        cleanup_group = DependencyCleanupGroup()
        for batch in self.dependency_batches:
            for dependency in batch:
                await resolve_dependency(dependency, connection, kwargs, cleanup_group)
        return cleanup_group

    KwargsModel.resolve_dependencies = resolve_dependencies  # type: ignore[method-assign]


_resolve_dependencies_in_order()


def create_app(store_url: str, *, store: EventStore | None = None, limits: Limits | None = None,
               read_urls: list[str] | None = None, read_max_lag: float | None = None,
               clock_sweep: float | None = 1.0) -> Litestar:
    """The Litestar app serving the match API over the store at ``store_url``, within
    ``limits`` (default ``Limits()``); reads of events may go to the hot standbys at
    ``read_urls`` (``store.replicas``), at most ``read_max_lag`` seconds behind.

    At start the app applies the flag falls that fell while no server ran (found from
    the log), then sweeps every ``clock_sweep`` seconds (None: only at start): each is
    appended at the version it was decided on, so two servers never apply one twice."""
    own = store is None
    store = store if store is not None else EventStore.open(store_url)
    limits = limits or Limits()
    lag = {} if read_max_lag is None else {"max_lag": read_max_lag}
    reads = ReadRouter.of(store, read_urls or [], **lag)
    services = Services(store, store_url, limits, reads)

    sweeper = Sweeper(services.svc, services.locked)
    sweeping: list[asyncio.Task[None]] = []

    async def sweep_once() -> None:
        try:
            applied = await sync_to_thread(sweeper.run_once)
        except (DatabaseUnavailable, StoreBusy) as exc:  # down or restarting: the next round tries again
            _log.warning("clock sweep skipped: %s", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return
        except Exception:  # noqa: BLE001 - anything else is a bug to see, but the sweeper lives on
            _log.exception("clock sweep failed")
            return
        for match_id in dict.fromkeys(m for m, _ in applied):
            services.live.notify(match_id)

    async def sweep_forever(every: float) -> None:
        while True:
            await asyncio.sleep(every)
            await sweep_once()

    async def startup(app: Litestar) -> None:
        await services.live.start()
        await services.watchers.start()
        await sweep_once()  # pending flag falls, found from the log after a restart
        if clock_sweep is not None:
            sweeping.append(asyncio.create_task(sweep_forever(clock_sweep)))

    async def shutdown(app: Litestar) -> None:
        for task in sweeping:
            task.cancel()
        await services.watchers.stop()
        await services.live.stop()
        if reads is not None:
            reads.close()
        if own:
            store.close()

    handlers = [*all_routes(), *duplicate.ROUTES]
    _document_streams(handlers)
    app = Litestar(
        route_handlers=handlers,
        dependencies=DEPENDENCIES,
        on_startup=[startup],
        on_shutdown=[shutdown],
        exception_handlers=HANDLERS,
        guards=[_check_query, _check_body],
        request_max_body_size=limits.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="kartludo match service", version="1",
            components=Components(security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}),
            security=[{"bearer": []}],
            # each operation's summary and description: its handler's docstring
            use_handler_docstrings=True,
            # the docs page is made on the server: no script from a CDN, so it works offline
            render_plugins=[OfflineDocs()],
        ),
        debug=False,
    )
    app.state.services = services
    app.state.query_names = _declared_queries(app)
    _unwrap_twice_wrapped(app)
    return app
