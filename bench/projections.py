"""Projection benchmark: a full rebuild of every projection against decoding alone.

Simulates a league of at least 2,000 matches spread over every available game
(heuristic bots) into a fresh SQLite file, then in the same run times:
  - decode only: reading and decoding every event in global order;
  - rebuild: emptying every projection and rebuilding it from the log (read,
    decode, fold each match through its engine, write the read models).
Prints events/s for both and the ratio rebuild / decode.

    python bench/projections.py [--matches 2000] [--seed 1] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from kartludo.app.matches import MatchService
from kartludo.app.simulate import simulate
from kartludo.engine.registry import game_names
from kartludo.projections import all_projections
from kartludo.projections.runner import catch_up, reset
from kartludo.store import EventStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2000, help="matches in all, spread over the games")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    args = ap.parse_args()
    games = game_names()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{os.path.join(tmp, 'league.db')}"
        store = EventStore.open(url)
        per_game = -(-args.matches // len(games))
        summary = simulate(MatchService(store), games, per_game, seed=args.seed, bots=["heuristic"])
        print(f"league: {', '.join(games)}: {summary.line()}")
        t0 = time.perf_counter()
        events = sum(1 for _ in store.iter_all(0, 5000))
        decode = time.perf_counter() - t0
        projections = all_projections()
        t0 = time.perf_counter()
        for p in projections:
            reset(store, p)
        read = catch_up(store, projections)
        rebuild = time.perf_counter() - t0
        assert read == events, (read, events)
        print(f"decode only   {events:,} events in {decode:6.2f} s  ({events / decode:>10,.0f} events/s)")
        print(f"rebuild all   {events:,} events in {rebuild:6.2f} s  ({events / rebuild:>10,.0f} events/s)"
              f"  [{', '.join(p.name for p in projections)}]")
        print(f"ratio rebuild / decode = {rebuild / decode:.2f}")
        store.close()


if __name__ == "__main__":
    main()
