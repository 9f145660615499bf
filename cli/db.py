"""``kartludo db``: the schema, created and upgraded by Alembic migrations, and a
look at what a database holds."""

from __future__ import annotations

from typing import Any

import click

from kartludo.cli.context import Env, pass_env
from kartludo.cli.output import emit, output_options


@click.group()
def db() -> None:
    """Create or upgrade the database schema; show what a database holds.

    \b
    Example:
        kartludo db status
        kartludo --db postgresql://postgres@127.0.0.1/test db upgrade
    """


@db.command()
@pass_env(writes=True)
def upgrade(env: Env) -> None:
    """Run the migrations up to this kartludo's schema (safe to repeat).

    \b
    Example:
        kartludo db upgrade
    """
    from kartludo.store.database import create_engine, describe_url
    from kartludo.store.database import upgrade as run_upgrade

    created = env.check_file()
    engine = create_engine(env.db_url)
    try:
        before, after = run_upgrade(engine)
        where = describe_url(engine)
    finally:
        engine.dispose()
    if created:
        env.say_created(created)
    if before == after:
        click.echo(f"{where} is up to date (schema {after})")
    else:
        click.echo(f"{where} upgraded: schema {before or 'none'} -> {after}")


@db.command()
@output_options
@pass_env
def status(env: Env, fmt: str) -> None:
    """What the database is and holds: backend, schema revision (and whether it
    needs `kartludo db upgrade`), events, streams by kind, the newest event's
    global position and time, and each projection's lag. Exits 1 when the schema
    is not this kartludo's.

    \b
    Example:
        kartludo db status
        kartludo --db postgresql://postgres@127.0.0.1/test db status --json
    """
    from kartludo.store.database import create_engine, current_revision, describe_url
    from kartludo.store.schema import SCHEMA_REVISION

    env.check_file()
    engine = create_engine(env.db_url)
    try:
        revision = current_revision(engine)
        where = describe_url(engine)
        backend = engine.url.get_backend_name()
    finally:
        engine.dispose()
    up_to_date = revision == SCHEMA_REVISION
    info: dict[str, Any] = {"database": where, "backend": backend, "schema": revision,
                            "schema_expected": SCHEMA_REVISION, "up_to_date": up_to_date}
    if up_to_date:
        info.update(_contents(env))
    if fmt == "table":
        state = "up to date" if up_to_date else "needs `kartludo db upgrade`"
        click.echo(f"database {where} ({backend})")
        click.echo(f"schema {revision or 'none'} (this kartludo: {SCHEMA_REVISION}) — {state}")
        if up_to_date:
            kinds = ", ".join(f"{n} {k}" for k, n in info["streams"].items()) or "none"
            click.echo(f"events {info['events']:,} in {sum(info['streams'].values()):,} streams ({kinds})")
            newest = (f"position {info['newest_position']} at {info['newest_at']}" if info["events"] else "none")
            click.echo(f"newest {newest}")
            for p in info["projections"]:
                click.echo(f"projection {p['name']:<10} checkpoint {p['checkpoint']:>9}  lag {p['lag']}")
    else:
        flat = {k: v for k, v in info.items() if k not in ("streams", "projections")}
        emit(fmt, list(flat), [flat], empty="", json_data=info)
    if not up_to_date:
        raise click.exceptions.Exit(1)


def _contents(env: Env) -> dict[str, Any]:
    """Counts read straight from the log (and the projections' checkpoints)."""
    from kartludo.projections import all_projections
    from kartludo.projections.runner import status as projection_status
    from kartludo.store.transfer import format_us

    store = env.store
    events, newest_us = store.count_events(), store.newest_recorded_at()
    kinds: dict[str, int] = {}
    for stream in store.streams():
        kind = stream.split("-", 1)[0] if "-" in stream else stream
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "events": int(events), "streams": dict(sorted(kinds.items())),
        "newest_position": store.head_position() or None,
        "newest_at": format_us(newest_us) if newest_us else None,
        "projections": [{"name": n, "checkpoint": c, "lag": lag}
                        for n, c, lag in projection_status(store, all_projections())],
    }
