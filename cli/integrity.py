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
    match through its game's engine and check every deal: its commitment matches its
    deck and salt, and a seeded deal's deck is exactly the seed's shuffle.

    Exits 1 naming the first bad event (stream, version, position) when a payload,
    a hash or the order was altered, a match no longer folds, or a deal is not the
    deck it committed to or its seed gives.

    \b
    Example:
        kartludo verify
    """
    from kartludo.store.integrity import verify as run_verify

    from kartludo.app.fairness import DealReport, verify_deals

    report = run_verify(env.store, stop_at_first=not all_problems)
    folded, fold_problems = 0, []
    deals = DealReport()
    if report.ok:
        deals = verify_deals(env.store)
    if report.ok and not no_fold:
        from kartludo.app.matches import refold_all

        folded, fold_problems = refold_all(env.store)
    deal_problems = deals.problems if all_problems else deals.problems[:1]
    ok = report.ok and not fold_problems and not deal_problems
    if as_json:
        echo_json({"ok": ok, "streams": report.streams, "events": report.events, "problems": report.problems,
                   "matches_folded": folded, "fold_problems": fold_problems, "deals": deals.deals,
                   "deals_committed": deals.committed, "deals_seeded": deals.seeded,
                   "deal_problems": deal_problems})
    elif ok:
        folds = "" if no_fold else f"; {folded} matches re-fold"
        click.echo(f"ok: {report.events} events in {report.streams} streams, every hash chain intact{folds}; "
                   f"{deals.deals} deals: {deals.committed} commitments match, {deals.seeded} seeded deals "
                   "are their seed's shuffle")
    else:
        for problem in [*report.problems, *fold_problems, *deal_problems]:
            click.echo(f"BAD {problem}", err=True)
    if not ok:
        raise click.exceptions.Exit(1)
