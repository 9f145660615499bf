"""``kartludo events``: move streams between databases as JSON Lines."""

from __future__ import annotations

import sys

import click

from kartludo.cli.context import CommandError, Env, pass_env


@click.group()
def events() -> None:
    """Export or import the event log as JSON Lines (envelope + payload).

    \b
    Example:
        kartludo events export -o league.jsonl
        kartludo --db sqlite:///copy.db events import league.jsonl
    """


@events.command("export")
@click.argument("stream", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="File to write (default: stdout).")
@pass_env
def export_cmd(env: Env, stream: str | None, output: str | None) -> None:
    """Write every event (or one STREAM's) in global order.

    \b
    Example:
        kartludo events export match-3f9c2a -o match.jsonl
    """
    from kartludo.store.transfer import export_events

    if output:
        with open(output, "wb") as out:
            n = export_events(env.store, out, stream)
        click.echo(f"exported {n} events to {output}", err=True)
    else:
        n = export_events(env.store, sys.stdout.buffer, stream)
    if stream and n == 0:
        raise CommandError(f"no stream {stream!r} in {env.store.url}")


@events.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@pass_env
def import_cmd(env: Env, file: str) -> None:
    """Append an exported FILE; refuses (writing nothing) a file whose hash chain
    or versions do not check out. Events already present are skipped.

    \b
    Example:
        kartludo events import league.jsonl
    """
    from kartludo.store.transfer import import_events

    with open(file, "rb") as f:
        summary = import_events(env.store, f)
    click.echo(
        f"imported {summary.imported} events in {summary.streams} streams "
        f"({summary.already_present} already present)"
    )
