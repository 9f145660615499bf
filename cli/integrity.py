"""``kartludo verify``: the log's integrity, checked from the rows, the seals and the key."""

from __future__ import annotations

from typing import Any

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env
from kartludo.cli.keys import KEY_OPTION, trusted_keys


@click.command()
@click.option("--all-problems", is_flag=True, help="Report every bad event, not only the first.")
@click.option("--no-fold", is_flag=True, help="Skip re-folding every match through its engine.")
@KEY_OPTION
@click.option("--trust", multiple=True, metavar="PUBKEY",
              help="A public key the seals must be signed by (repeatable; default: the local key's).")
@click.option("--head", "heads", multiple=True, metavar="POSITION:EVENTS:HEAD",
              help="A head written down earlier (`kartludo seal --print`) the log must still reach (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_env
def verify(env: Env, all_problems: bool, no_fold: bool, key_file: str | None, trust: tuple[str, ...],
           heads: tuple[str, ...], as_json: bool) -> None:
    """Check every stream's version sequence and hash chain, the global chain over
    the global order, every seal's signature and that the log still reaches each seal's
    head (and each --head), and that the commands table is what the events say; then
    re-fold every match through its game's engine (and check that every snapshot a load
    would start from is that fold, and that the read models behind standings, series and
    the audit trail are what the events give) and check every deal: its commitment
    matches its deck and salt, and a seeded deal's deck is exactly the seed's shuffle
    (a seeded match's deal entered by hand is named).

    Exits 1 naming the first problem (stream, version, position; or the seal, head or
    commands row) when an event was edited, deleted, inserted or moved, a seal does
    not verify or is no longer reached, a match no longer folds, or a deal is not the
    deck it committed to or its seed gives. Events after the newest chained position
    rest on their stream chains only (the report says how many).

    \b
    Example:
        kartludo verify --trust 6f1e…c2 --head 4123:4123:9ab0…
    """
    from kartludo.app.matches.fairness import DealReport, verify_deals
    from kartludo.store.chain import parse_head
    from kartludo.store.integrity import verify as run_verify
    from kartludo.store.transfer import format_us

    try:
        written = [parse_head(h) for h in heads]
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    trusted = trusted_keys(key_file, trust)
    report = run_verify(env.store, stop_at_first=not all_problems, trusted=trusted, heads=written)
    folded = 0
    fold_problems: list[Any] = []
    hypos = snapshots = projected = 0
    deals = DealReport()
    if report.ok:
        deals = verify_deals(env.store)
    if report.ok and not no_fold:
        from kartludo.app.hypotheticals.hypothetical import verify_all
        from kartludo.app.matches.refold import refold_all
        from kartludo.app.matches.snapshots import check as check_snapshots
        from kartludo.projections.checks import check as check_projections

        folded, fold_problems = refold_all(env.store)
        hypos, hypo_problems = verify_all(env.store)
        snapshots, snapshot_problems = check_snapshots(env.store)
        projected, projection_problems = check_projections(env.store)
        fold_problems = [*fold_problems, *hypo_problems, *snapshot_problems, *projection_problems]
    deal_problems = deals.problems if all_problems else deals.problems[:1]
    ok = report.ok and not fold_problems and not deal_problems
    newest = report.newest_seal.text() if report.newest_seal else None
    sealed_at = format_us(report.newest_sealed_at_us) if report.newest_sealed_at_us is not None else None
    if as_json:
        echo_json({"ok": ok, "streams": report.streams, "events": report.events, "problems": report.problems,
                   "chained": report.chained, "chain_end": report.chain_end, "unchained": report.unchained,
                   "seals": report.seals, "seals_trusted": report.seals_trusted, "newest_seal": newest,
                   "newest_sealed_at": sealed_at,
                   "commands": report.commands,
                   "matches_folded": folded, "snapshots": snapshots, "projection_rows": projected,
                   "fold_problems": fold_problems,
                   "deals": deals.deals,
                   "deals_committed": deals.committed, "deals_seeded": deals.seeded,
                   "deals_by_hand_in_seeded_matches": deals.by_hand,
                   "deal_problems": deal_problems})
    elif ok:
        folds = "" if no_fold else f"; {folded} matches re-fold" + (
            f", {hypos} hypotheticals cite their origin and re-fold" if hypos else "") + (
            f", {snapshots} snapshots are their match's fold" if snapshots else "") + (
            f", {projected} read-model rows are what the events give" if projected else "")
        click.echo(f"ok: {report.events} events in {report.streams} streams, every hash chain intact{folds}; "
                   f"{deals.deals} deals: {deals.committed} commitments match, {deals.seeded} seeded deals "
                   "are their seed's shuffle")
        if deals.by_hand:
            n = len(deals.by_hand)
            click.echo(f"{n} deal{'s' if n > 1 else ''} of a seeded match {'were' if n > 1 else 'was'} entered by "
                       f"hand, not shuffled from {'their' if n > 1 else 'its'} seed: "
                       + ", ".join(str(d) for d in deals.by_hand))
        click.echo(f"global chain: {report.chained} events up to position {report.chain_end}; "
                   f"{report.commands} command records match the events")
        if report.seals:
            by = "a trusted key" if report.seals_trusted else "the keys they name (pass --trust PUBKEY to pin one)"
            click.echo(f"seals: {report.seals} signed by {by}; the log reaches the newest, {newest} "
                       f"(sealed {sealed_at})")
        else:
            click.echo("seals: none yet (`kartludo seal` records one)")
        if heads:
            click.echo(f"written-down heads reached: {len(heads)}")
        if report.unchained:
            click.echo(f"not yet chained: {report.unchained} events after position {report.chain_end} "
                       "(covered by their stream chains only)")
    else:
        for problem in [*report.problems, *fold_problems, *deal_problems]:
            click.echo(f"BAD {problem}", err=True)
    if not ok:
        raise click.exceptions.Exit(1)

