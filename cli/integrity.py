"""``kartludo verify``: the log's integrity, checked from the rows alone."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, echo_json, pass_env


@click.command()
@click.option("--all-problems", is_flag=True, help="Report every bad event, not only the first.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_env
def verify(env: Env, all_problems: bool, as_json: bool) -> None:
    """Check every stream's version sequence and hash chain.

    Exits 1 naming the first bad event (stream, version, position) when a payload,
    a hash or the order was altered.

    \b
    Example:
        kartludo verify
    """
    from kartludo.store.integrity import verify as run_verify

    report = run_verify(env.store, stop_at_first=not all_problems)
    if as_json:
        echo_json({"ok": report.ok, "streams": report.streams, "events": report.events,
                   "problems": [p for p in report.problems]})
    elif report.ok:
        click.echo(f"ok: {report.events} events in {report.streams} streams, every hash chain intact")
    else:
        for problem in report.problems:
            click.echo(f"BAD {problem}", err=True)
    if not report.ok:
        raise click.exceptions.Exit(1)
