"""``kartludo serve``: the HTTP match service (Litestar on uvicorn)."""

from __future__ import annotations

import os

import click

from kartludo.cli.context import Env, pass_env

#: how ``--workers`` processes learn the database (each builds its own app from it)
DB_VARIABLE = "KARTLUDO_SERVE_DB"


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes. They share nothing but the database, which orders every "
                   "write, so any number is safe; more use more cores.")
@click.option("--access-log/--no-access-log", default=True, show_default=True,
              help="Log one line per request.")
@pass_env
def serve(env: Env, host: str, port: int, workers: int, access_log: bool) -> None:
    """Serve the match API over HTTP (OpenAPI document at /schema/openapi.json).

    \b
    Example:
        kartludo --db postgresql://postgres@127.0.0.1/club serve --port 8000 --workers 2
    """
    import uvicorn

    env.store  # noqa: B018 - fail early (one line) on an unreachable or un-migrated database
    if workers == 1:
        from kartludo.service.app import create_app

        uvicorn.run(create_app(env.db_url), host=host, port=port, log_level="info", access_log=access_log)
        return
    os.environ[DB_VARIABLE] = env.db_url
    uvicorn.run("kartludo.cli.serve:app_from_environment", factory=True, host=host, port=port, workers=workers,
                log_level="info", access_log=access_log)


def app_from_environment():  # noqa: ANN201 - a Litestar app, imported lazily
    """The app of one ``--workers`` process (uvicorn imports it by name)."""
    from kartludo.service.app import create_app

    return create_app(os.environ[DB_VARIABLE])
