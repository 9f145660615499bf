"""Costs against a match's history: a cold load (what CLI `act` and `state` do first)
of a 1-deal match and of a 1,000-deal match, in the same run, with and without
snapshots. Prints each median and the ratio long / short (target: <= 2).

    python bench/history.py [--deals 1000] [--repeat 7] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

from fixtures import long_match  # noqa: E402

from kartludo.app.matches import MatchService, fold_records, stream_of  # noqa: E402
from kartludo.engine.base import PUBLIC  # noqa: E402
from kartludo.store import EventStore  # noqa: E402


def cold_state(store: EventStore, match_id: str) -> float:
    """A fresh service (as a CLI process has): load the match and render `state --json`."""
    t0 = time.perf_counter()
    svc = MatchService(store)
    svc.state_json(svc.load(match_id), PUBLIC)
    return time.perf_counter() - t0


def full_fold(store: EventStore, match_id: str) -> float:
    t0 = time.perf_counter()
    fold_records(match_id, store.read_stream(stream_of(match_id)))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 3
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'h.db')}")
        short, short_events = long_match(store, 1, seed=1, bots=("random",))
        long, long_events = long_match(store, args.deals, seed=2, bots=("random",))
        print(f"matches: 1 deal ({short_events} events), {args.deals} deals ({long_events:,} events)")
        for label, fn in [("cold load + state (snapshots)", cold_state), ("full fold (no snapshot)", full_fold)]:
            a = statistics.median(fn(store, short) for _ in range(args.repeat))
            b = statistics.median(fn(store, long) for _ in range(args.repeat))
            print(f"{label:32} 1 deal {a * 1000:7.1f} ms   {args.deals} deals {b * 1000:7.1f} ms   "
                  f"ratio {b / a:6.2f}" + ("  (target <= 2)" if "snapshots" in label else ""))
        store.close()


if __name__ == "__main__":
    main()
