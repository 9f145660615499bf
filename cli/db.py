"""``kartludo db``: the schema, created and upgraded by Alembic migrations."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, pass_env


@click.group()
def db() -> None:
    """Create or upgrade the database schema.

    \b
    Example:
        kartludo --db postgresql://postgres@127.0.0.1/test db upgrade
    """


@db.command()
@pass_env
def upgrade(env: Env) -> None:
    """Run the migrations up to this kartludo's schema (safe to repeat).

    \b
    Example:
        kartludo db upgrade
    """
    from kartludo.store.database import create_engine, describe_url, upgrade as run_upgrade

    engine = create_engine(env.db_url)
    try:
        before, after = run_upgrade(engine)
        where = describe_url(engine)
    finally:
        engine.dispose()
    if before == after:
        click.echo(f"{where} is up to date (schema {after})")
    else:
        click.echo(f"{where} upgraded: schema {before or 'none'} -> {after}")


@db.command()
@pass_env
def status(env: Env) -> None:
    """Show the database's schema revision and whether it needs an upgrade.

    \b
    Example:
        kartludo db status
    """
    from kartludo.store.database import create_engine, current_revision, describe_url
    from kartludo.store.schema import SCHEMA_REVISION

    engine = create_engine(env.db_url)
    try:
        revision = current_revision(engine)
        where = describe_url(engine)
    finally:
        engine.dispose()
    state = "up to date" if revision == SCHEMA_REVISION else "needs `kartludo db upgrade`"
    click.echo(f"{where}: schema {revision or 'none'} (this kartludo: {SCHEMA_REVISION}) — {state}")
    if revision != SCHEMA_REVISION:
        raise click.exceptions.Exit(1)
