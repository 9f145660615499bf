"""Uxinjo benchmark: simulated matches into SQLite, then re-folding them all.

1. Simulate N matches (default 1,000) with heuristic bots through the normal
   command path into a fresh SQLite file: matches/s and events/s.
2. Re-fold every stored match from the database (read + decode + fold) and, in
   the same run, read + decode alone; report the ratio (target: <= 5x).

    python bench/uxinjo.py [--matches 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from kartludo.app.matches.pipeline import MatchService, fold_records
from kartludo.app.matches.simulate import simulate
from kartludo.store import EventStore


def read_all_matches(store: EventStore) -> dict[str, list]:
    by_stream: dict[str, list] = {}
    for rec in store.iter_all(0, 10_000):
        by_stream.setdefault(rec.stream_id, []).append(rec)
    return by_stream


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of N for the fold/decode timings")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{os.path.join(tmp, 'bench.db')}"
        store = EventStore.open(url)
        summary = simulate(MatchService(store), ["uxinjo"], args.matches, seed=args.seed, bots=["heuristic"])
        print(f"simulate: {summary.line()}")
        print(f"simulate: {summary.matches / summary.seconds:,.1f} matches/s, "
              f"{summary.events / summary.seconds:,.0f} events/s")
        decode_only, fold_only = [], []
        events = 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            streams = read_all_matches(store)
            decode_only.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for sid, records in streams.items():
                fold_records(sid, records)
            fold_only.append(time.perf_counter() - t0)
            events = sum(len(r) for r in streams.values())
        d = min(decode_only)
        f = d + min(fold_only)
        print(f"read+decode      {events:,} events in {d:.2f} s ({events / d:,.0f} events/s)")
        print(f"read+decode+fold {events:,} events in {f:.2f} s ({events / f:,.0f} events/s)")
        print(f"ratio (decode+fold) / decode = {f / d:.2f}  (target <= 5)")
        store.close()


if __name__ == "__main__":
    main()
