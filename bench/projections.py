"""Projection benchmark: a full rebuild of every projection against decoding alone,
on two shapes of log measured in the same run:

  - a league of many short matches over every game (heuristic bots);
  - one long Uxinjo match of random bots (thousands of deals, hundreds of rulings
    whose penalties void transfers at every deal).

For each: decode only (read and decode every event in global order) and rebuild
(empty every projection, read, decode, fold each match, write the read models).
Prints events/s for both and the ratio rebuild rate / decode rate (target >= 0.3).

Then decoding like for like: the long match's events against the same number of
deals played as 10-deal Uxinjo matches by the same random bots (the league's short
matches mix four games, whose events differ in size), and the ratio short / long
(issue 41's target: a long match decodes within 1.5x of short ones).
Each log is built once on SQLite and copied (export, import) into a fresh PostgreSQL
schema, measured there too unless ``--no-pg``.

With ``--each`` it also prints where a rebuild's time goes, per event: decoding alone,
a catch-up that only folds (batches and checkpoints included), and each projection
on its own above that.

    python bench/projections.py [--matches 2000] [--deals 10000] [--quick] [--seed 1] [--no-pg] [--each]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
import uuid
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(__file__))

from fixtures import long_match, short_league  # noqa: E402

from kartludo.projections import all_projections  # noqa: E402
from kartludo.projections.runner import Projection, catch_up, reset  # noqa: E402
from kartludo.store import EventStore  # noqa: E402
from kartludo.store.database import create_engine, upgrade  # noqa: E402
from kartludo.store.transfer import export_events, import_events  # noqa: E402


def decode_rate(store: EventStore, repeat: int = 3) -> float:
    """Best-of-``repeat`` events/s of reading and decoding the whole log."""
    best, events = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        events = sum(1 for _ in store.iter_all(0, 5000))
        best = min(best, time.perf_counter() - t0)
    return events / best


def rebuild_ratio(store: EventStore, label: str, repeat: int = 3, each: bool = False) -> float:
    """Best-of-``repeat`` decode-only and rebuild rates; prints and returns the ratio
    (with ``each``, also where the rebuild's time goes: ``rebuild_shares``)."""
    decodes, rebuilds = [], []
    events = 0
    projections = all_projections()
    for _ in range(repeat):
        t0 = time.perf_counter()
        events = sum(1 for _ in store.iter_all(0, 5000))
        decodes.append(time.perf_counter() - t0)
        for p in projections:
            reset(store, p)
        t0 = time.perf_counter()
        read = catch_up(store, projections)
        rebuilds.append(time.perf_counter() - t0)
        assert read == events, (read, events)
    decode, rebuild = min(decodes), min(rebuilds)
    ratio = decode / rebuild
    print(f"{label}: decode only {events:,} events {events / decode:>9,.0f} events/s; "
          f"rebuild {events / rebuild:>9,.0f} events/s; ratio rebuild/decode = {ratio:.2f} (target >= 0.3)")
    if each:
        rebuild_shares(store, label, repeat, decode / events, rebuild / events)
    return ratio


class FoldOnly(Projection):
    """Writes nothing: a catch-up with it alone costs the read, decode, fold and
    checkpoint of every batch, what every projection shares."""

    name = "bench_fold_only"
    tables = ()

    def apply_batch(self, conn, items) -> None:
        pass


def rebuild_shares(store: EventStore, label: str, repeat: int, decode: float, rebuild: float) -> None:
    """Microseconds per event of decoding alone, of a catch-up that only folds, of
    each projection on its own above that, and of the whole rebuild (best of
    ``repeat``): which part to work on."""
    runs: dict[str, list[float]] = {}
    for _ in range(repeat):
        for name, projections in [("fold only", [FoldOnly()])] + [(p.name, [FoldOnly(), p])
                                                                  for p in all_projections()]:
            for p in projections:
                reset(store, p)
            t0 = time.perf_counter()
            read = catch_up(store, projections)
            runs.setdefault(name, []).append((time.perf_counter() - t0) / read)
    fold = min(runs.pop("fold only"))
    parts = [("decode only", decode), ("+ fold, batches, checkpoints", fold - decode)]
    parts += [(f"+ projection {name}", min(times) - fold) for name, times in runs.items()]
    for part, seconds in parts + [("whole rebuild", rebuild)]:
        print(f"{label}:   {part:32} {seconds * 1e6:6.2f} us/event  {seconds / rebuild:6.1%} of the rebuild")


def on_postgres(store: EventStore, base: str, label: str, each: bool = False) -> None:
    """The same log copied into a fresh PostgreSQL schema, measured there, dropped."""
    import psycopg

    schema = "kb_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        url = f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={schema}')}"
        upgrade(create_engine(url))
        pg = EventStore.open(url)
        out = io.BytesIO()
        export_events(store, out)
        import_events(pg, io.BytesIO(out.getvalue()), unsigned=True)
        rebuild_ratio(pg, f"{label} (PostgreSQL)", each=each)
        pg.close()
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2000, help="short matches in all, spread over the games")
    ap.add_argument("--deals", type=int, default=10_000, help="deals of the long Uxinjo match")
    ap.add_argument("--quick", action="store_true", help="400 short matches, a 2,000-deal match")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pg", default=os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--no-pg", action="store_true", help="SQLite only")
    ap.add_argument("--each", action="store_true", help="also the share of each projection in the rebuild")
    args = ap.parse_args()
    if args.quick:
        args.matches, args.deals = 400, 2000
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'league.db')}")
        print(short_league(store, args.matches, args.seed))
        rebuild_ratio(store, "short matches", each=args.each)
        if not args.no_pg:
            on_postgres(store, args.pg, "short matches", each=args.each)
        store.close()
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'long.db')}")
        match_id, events = long_match(store, args.deals, args.seed)
        print(f"long match {match_id}: {args.deals} deals, {events:,} events")
        rebuild_ratio(store, f"one {args.deals}-deal match", each=args.each)
        if not args.no_pg:
            on_postgres(store, args.pg, f"one {args.deals}-deal match", each=args.each)
        short_store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'short.db')}")
        short_events = sum(long_match(short_store, 10, args.seed * 100_000 + i)[1] for i in range(args.deals // 10))
        long_rate, short_rate = decode_rate(store), decode_rate(short_store)
        print(f"decode, like for like: the {args.deals}-deal match {long_rate:,.0f} events/s; "
              f"{args.deals // 10} 10-deal Uxinjo matches ({short_events:,} events) {short_rate:,.0f} events/s; "
              f"short / long = {short_rate / long_rate:.2f} (target <= 1.5)")
        short_store.close()
        store.close()


if __name__ == "__main__":
    main()
