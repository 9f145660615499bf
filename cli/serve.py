"""``kartludo serve``: the HTTP match service (Litestar on uvicorn)."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, pass_env


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@pass_env
def serve(env: Env, host: str, port: int) -> None:
    """Serve the match API over HTTP (OpenAPI document at /schema/openapi.json).

    \b
    Example:
        kartludo --db postgresql://postgres@127.0.0.1/club serve --port 8000
    """
    import uvicorn

    from kartludo.service.app import create_app

    env.store  # noqa: B018 - fail early (one line) on an unreachable or un-migrated database
    uvicorn.run(create_app(env.db_url), host=host, port=port, log_level="info")
