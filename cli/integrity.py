"""``kartludo verify``: the log's integrity, checked from the rows alone."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, echo_json, pass_env


@click.command()
@click.option("--all-problems", is_flag=True, help="Report every bad event, not only the first.")
@click.option("--no-fold", is_flag=True, help="Skip re-folding every match through its engine.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_env
def verify(env: Env, all_problems: bool, no_fold: bool, as_json: bool) -> None:
    """Check every stream's version sequence and hash chain, then re-fold every
    match through its game's engine.

    Exits 1 naming the first bad event (stream, version, position) when a payload,
    a hash or the order was altered, or a match no longer folds.

    \b
    Example:
        kartludo verify
    """
    from kartludo.store.integrity import verify as run_verify

    report = run_verify(env.store, stop_at_first=not all_problems)
    folded, fold_problems = 0, []
    if report.ok and not no_fold:
        from kartludo.app.matches import refold_all

        folded, fold_problems = refold_all(env.store)
    ok = report.ok and not fold_problems
    if as_json:
        echo_json({"ok": ok, "streams": report.streams, "events": report.events, "problems": report.problems,
                   "matches_folded": folded, "fold_problems": fold_problems})
    elif ok:
        folds = "" if no_fold else f"; {folded} matches re-fold"
        click.echo(f"ok: {report.events} events in {report.streams} streams, every hash chain intact{folds}")
    else:
        for problem in [*report.problems, *fold_problems]:
            click.echo(f"BAD {problem}", err=True)
    if not ok:
        raise click.exceptions.Exit(1)
