"""``kartludo serve``: the HTTP match service (Litestar on uvicorn)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kartludo.cli.context import Env, pass_env

#: how ``--workers`` processes learn the database and the limits (each builds its own app)
DB_VARIABLE = "KARTLUDO_SERVE_DB"
LIMITS_VARIABLE = "KARTLUDO_SERVE_LIMITS"
READ_VARIABLE = "KARTLUDO_SERVE_READ_DB"
LAG_VARIABLE = "KARTLUDO_SERVE_READ_MAX_LAG"
SWEEP_VARIABLE = "KARTLUDO_SERVE_CLOCK_SWEEP"

if TYPE_CHECKING:
    from litestar import Litestar

#: the fewest connections a ``--workers`` process keeps when they share the pool size
MIN_WORKER_POOL = 8

F = TypeVar("F", bound=Callable[..., Any])


def _limit_options(func: F) -> F:
    """One option per field of ``Limits`` (its default shown)."""
    from kartludo.service.limits import Limits

    defaults = Limits()
    helps = {
        "streams_per_seat": "Open live streams per seat token.",
        "streams_per_td": "Open live streams per TD token.",
        "anonymous_streams": "Open live streams without a token, from all clients together.",
        "anonymous_streams_per_address": "Open live streams without a token from one client address.",
        "max_body_bytes": "Largest request body in bytes (413 beyond).",
        "max_json_depth": "Deepest nesting of a JSON body (422 beyond).",
        "header_timeout": "Seconds a client may take to send a request's line and headers.",
        "body_timeout": "Seconds a client may take to send a request's body.",
        "max_header_bytes": "Largest request line and headers in bytes (431 beyond).",
        "keep_alive_timeout": "Seconds an idle keep-alive connection stays open.",
    }
    for name in reversed(Limits.__struct_fields__):
        value = getattr(defaults, name)
        if name not in helps:  # not a number: an option of its own (--trusted-proxy)
            continue
        kind = click.IntRange(1, 10**9) if isinstance(value, int) else click.FloatRange(0.1, 3600)
        func = click.option(f"--{name.replace('_', '-')}", name, type=kind, default=value, show_default=True,
                            help=helps[name])(func)
    return func


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes. They share nothing but the database, which orders every "
                   "write, so any number is safe; more use more cores. Limits apply per process.")
@click.option("--access-log/--no-access-log", default=True, show_default=True,
              help="Log one line per request.")
@click.option("--trusted-proxy", "trusted_proxies", multiple=True, metavar="ADDR",
              help="A reverse proxy (IP address or network) whose X-Forwarded-For header names the client "
                   "for the per-address limits; repeatable. Default: none, not even 127.0.0.1 (a client "
                   "is the address it connects from).")
@click.option("--clock-sweep", type=click.FloatRange(0.1, 3600), default=1.0, show_default=True, metavar="SECONDS",
              help="How often each process looks for due flag falls of matches on a clock (also once at start).")
@_limit_options
@pass_env(writes=True)
def serve(env: Env, host: str, port: int, workers: int, access_log: bool, trusted_proxies: tuple[str, ...],
          clock_sweep: float, **limits: Any) -> None:
    """Serve the match API over HTTP (OpenAPI document at /schema/openapi.json).

    The --max-*, --*-streams* and --*-timeout options bound what one client may take
    of the service (see the README's "Limits"); behind a reverse proxy, name it with
    --trusted-proxy so that the per-address limits count its clients, not the proxy.

    \b
    Example:
        kartludo --db postgresql://postgres@127.0.0.1/club serve --port 8000 --workers 2
        kartludo serve --streams-per-seat 4 --max-body-bytes 32768
        kartludo --db postgresql://postgres@primary/club --read-db postgresql://postgres@standby/club serve
        kartludo serve --trusted-proxy 10.0.0.5 --trusted-proxy 10.0.1.0/24
    """
    import msgspec
    import uvicorn

    from kartludo.service.limits import Limits

    try:
        chosen = Limits(**limits, trusted_proxies=trusted_proxies)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    env.store  # noqa: B018 - fail early (one line) on an unreachable or un-migrated database
    # uvicorn's keyword arguments, typed loosely: it annotates timeout_keep_alive as int, takes seconds as a float;
    # the limits' own (the guarded protocol; no proxy headers: the app reads X-Forwarded-For from trusted proxies)
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "info", "access_log": access_log,
                               **chosen.uvicorn_options()}
    if workers == 1:
        from kartludo.service.app import create_app

        uvicorn.run(create_app(env.db_url, limits=chosen, read_urls=env.read_urls, read_max_lag=env.read_max_lag,
                               clock_sweep=clock_sweep), **options)
        return
    os.environ[DB_VARIABLE] = env.db_url
    os.environ.update(worker_pool(env.db_url, workers, os.environ))
    os.environ[READ_VARIABLE] = " ".join(env.read_urls)
    os.environ[LAG_VARIABLE] = str(env.read_max_lag)
    os.environ[LIMITS_VARIABLE] = msgspec.json.encode(chosen).decode()
    os.environ[SWEEP_VARIABLE] = str(clock_sweep)
    # each worker imports the protocol by name; app_from_environment gives it the limits
    uvicorn.run("kartludo.cli.serve:app_from_environment", factory=True, workers=workers,
                **{**options, "http": "kartludo.service.limits:GuardedHttpProtocol"})


def worker_pool(db_url: str, workers: int, environ: Mapping[str, str]) -> dict[str, str]:
    """The pool size each of ``workers`` processes gets: unless ``$KARTLUDO_POOL_SIZE``
    is set, they share the backend's (so N workers open no more connections to
    PostgreSQL, whose ``max_connections`` is 100 by default, than one process would),
    keeping at least ``MIN_WORKER_POOL`` each."""
    from kartludo.store.database import POOL_SIZE_ENV, POOL_SIZES, normalise_url

    if workers == 1 or environ.get(POOL_SIZE_ENV, "").strip():
        return {}
    size = POOL_SIZES[normalise_url(db_url).get_backend_name()]
    return {POOL_SIZE_ENV: str(max(MIN_WORKER_POOL, size // workers))}


def app_from_environment() -> Litestar:
    """The app of one ``--workers`` process (uvicorn imports it by name)."""
    import msgspec

    from kartludo.service.app import create_app
    from kartludo.service.limits import GuardedHttpProtocol, Limits

    limits = msgspec.json.decode(os.environ.get(LIMITS_VARIABLE, "{}"), type=Limits)
    GuardedHttpProtocol.limits = limits  # this process's connections (uvicorn loads the app first)
    from kartludo.store.replicas import read_urls

    return create_app(os.environ[DB_VARIABLE], limits=limits, read_urls=read_urls(os.environ.get(READ_VARIABLE, "")),
                      read_max_lag=float(os.environ.get(LAG_VARIABLE, "2")),
                      clock_sweep=float(os.environ.get(SWEEP_VARIABLE, "1")))
