"""``kartludo verify``: the log's integrity, checked from the rows, the seals and the key."""

from __future__ import annotations

from typing import Any

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env
from kartludo.cli.keys import KEY_OPTION, trusted_keys
from kartludo.store import EventStore
from kartludo.store.integrity import Problem


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
    from kartludo.app.fairness import DealReport, verify_deals
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
        from kartludo.app.hypotheticals import verify_all
        from kartludo.app.matches import refold_all

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


def check_snapshots(store: EventStore) -> tuple[int, list[Problem]]:
    """(snapshot rows, problems): every snapshot a load would start from (its match's
    current code, the stored event's hash at its version) must decode to the match
    folded from its events up to that version. The snapshots table is a cache outside
    every hash chain, and `state`, replays and the service fold from it: an edited row
    would change what they show while the log itself verifies. A row that fits no stored
    event is named too; a row of another code (rules or state layout since changed) is
    stale, not wrong, and left alone: no load uses it."""
    from kartludo.app import aggregate
    from kartludo.app import snapshots as snaps
    from kartludo.engine.registry import get_game
    from kartludo.events.match import MatchCreated
    from kartludo.events.streams import MATCH_PREFIX

    try:
        rows = store.select("SELECT stream_id, code, version, event_hash, state FROM snapshots "
                            "ORDER BY stream_id, version")
    except Exception:  # noqa: BLE001 - no table (it may be dropped at any time): nothing to check
        return 0, []
    by_stream: dict[str, list[Any]] = {}
    for row in rows:
        by_stream.setdefault(row[0], []).append(row)
    problems: list[Problem] = []
    for stream, snapshots in by_stream.items():
        records = store.read_stream(stream)
        created = records[0].event if records else None
        for _sid, _code, version, event_hash, _state in snapshots:
            if not isinstance(created, MatchCreated) or not 1 <= version <= len(records) \
                    or records[version - 1].hash != bytes(event_hash):
                # snapshots are written beside the match's own events, which never change:
                # a row that fits none was edited (its stream, version or event hash)
                problems.append(Problem(stream, int(version), 0, "fits no stored event (no such match, version "
                                        "or event hash): an altered row (snapshots are a cache: delete it)",
                                        f"snapshot of {stream} at version {version}"))
        if not isinstance(created, MatchCreated):
            continue
        try:
            code = snaps.code_of(get_game(created.game), created)
        except Exception:  # noqa: BLE001 - an unknown game: the fold check reports the stream
            continue
        usable = {int(version): bytes(state) for _sid, row_code, version, event_hash, state in snapshots
                  if row_code == code and 1 <= version <= len(records)
                  and records[version - 1].hash == bytes(event_hash)}
        if not usable:
            continue
        match_id = stream.removeprefix(MATCH_PREFIX)
        try:
            match = aggregate.start(match_id, records[0])
            for rec in records[:max(usable)]:
                if rec.version > 1:
                    match.apply(rec.event, rec.version)
                state = usable.get(rec.version)
                if state is None:
                    continue
                place = f"snapshot of {stream} at version {rec.version}"
                try:
                    stored = snaps.decode(match.game, created, state)
                except Exception as exc:  # noqa: BLE001 - a load from it would fail
                    problems.append(Problem(stream, rec.version, rec.position, f"does not decode ({exc}): "
                                            f"loads of match {match_id} fail (altered)", place))
                    continue
                if stored != (match.state, match.closed, match.disputes):
                    problems.append(Problem(stream, rec.version, rec.position, "is not the match folded from its "
                                            "events: `state`, replays and the service would show what the log "
                                            "does not say (altered; snapshots are a cache: delete the row)",
                                            place))
        except Exception:  # noqa: BLE001 - a match that does not fold: the fold check reports it
            continue
    return len(rows), problems


def check_projections(store: EventStore) -> tuple[int, list[Problem]]:
    """(projection rows, problems): the read models (standings, series, the audit
    trail) must be exactly what their events give. They live beside the log, outside
    every hash chain, and `standings` and the service read them: an edited row would
    change a league table while the log verifies. Each projection is rebuilt, up to its
    checkpoint, in a scratch SQLite file from a copy of the events (positions kept), and
    compared row by row; the first row that differs in each table is named."""
    import tempfile
    from pathlib import Path

    import sqlalchemy as sa

    from kartludo.projections import all_projections
    from kartludo.projections.runner import catch_up, dump, status
    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.schema import events

    projections = all_projections()
    try:
        # a running service may project meanwhile: its rows and checkpoint commit
        # together, so rows read between two equal readings of the checkpoints agree
        for _attempt in range(10):
            checkpoints = {name: position for name, position, _lag in status(store, projections)}
            live = {p.name: dump(store, p) for p in projections}
            if checkpoints == {name: position for name, position, _lag in status(store, projections)}:
                break
    except Exception:  # noqa: BLE001 - no projection tables yet: nothing to compare
        return 0, []
    problems: list[Problem] = []
    head = store.head_position()
    for name, position in checkpoints.items():
        if position > head:
            problems.append(Problem("", 0, position, f"at position {position}, beyond the log's last event "
                                    f"({head}): the events after {head} would never reach it (altered)",
                                    f"projection checkpoint {name!r}"))
            checkpoints[name] = head
    rows = 0
    with tempfile.TemporaryDirectory(prefix="kartludo-verify-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'scratch.db'}"
        engine = create_engine(url)
        upgrade(engine)
        engine.dispose()
        scratch = EventStore.open(url)
        scratch.sealer = None
        try:
            copied = 0
            for end in sorted(set(checkpoints.values())):
                while batch := [r for r in store.rows_in_order(copied, 5000, settled=False) if r[0] <= end]:
                    with scratch.engine.begin() as conn:
                        conn.execute(sa.insert(events), [dict(zip(("position", *events.c.keys()[1:]), r))
                                                         for r in batch])
                    copied = batch[-1][0]
                due = [p for p in projections if checkpoints[p.name] == end]
                catch_up(scratch, due)
                for projection in due:
                    for table, expected in dump(scratch, projection).items():
                        found = live[projection.name].get(table, [])
                        rows += len(found)
                        problem = _first_difference(table, found, expected)
                        if problem is not None:
                            problems.append(problem)
        finally:
            scratch.close()
    return rows, problems


def _first_difference(table: str, found: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> Problem | None:
    """The first row of ``table`` (sorted) where the stored rows and the rebuilt ones part."""
    found_set, expected_set = set(found), set(expected)
    extra = [r for r in found if r not in expected_set]
    missing = [r for r in expected if r not in found_set]
    if not extra and not missing:
        return None
    fix = "(altered; `kartludo projections rebuild` recomputes it from the log)"
    place = f"projection table {table}"
    if extra:
        row = ", ".join(repr(v) for v in extra[0])
        return Problem("", 0, 0, f"row ({row}) is not what the events give {fix}", place)
    row = ", ".join(repr(v) for v in missing[0])
    return Problem("", 0, 0, f"row ({row}) the events give is missing {fix}", place)
