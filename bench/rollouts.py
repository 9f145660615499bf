"""Rollout speed: 1,000 heuristic-bot rollouts of one deal per game, from its first
step (``hypo rollout H --n 1000`` on a hypothetical made at step 1), actual and
resampled hidden cards, with a profile of where the time goes (figures, not tests;
target for Uxinjo: <= 10 s on the 2-core reference box).

    .venv/bin/python bench/rollouts.py [--n 1000] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import tempfile
import time
from pathlib import Path

from kartludo.app import hypotheticals as hy
from kartludo.app import rollouts as ro
from kartludo.app.matches import MatchService
from kartludo.app.simulate import pick_bots, play_match
from kartludo.store import EventStore

PLAYERS = {"uxinjo": 3, "hakamo": 4, "laugavatnsmanni": 3, "svoi-kozyri": 3}
OPTIONS = {"laugavatnsmanni": {"max_deals": "1"}, "svoi-kozyri": {"deals": "1"}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="print the top functions by own time")
    parser.add_argument("--games", default=",".join(PLAYERS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{Path(tmp) / 'bench.db'}")
        svc = MatchService(store)
        for game in args.games.split(","):
            mid, _, _ = play_match(svc, game, ["ann", "bob", "cy", "dan"][: PLAYERS[game]],
                                   pick_bots(game, ["heuristic"]), random.Random(1), options=OPTIONS.get(game),
                                   max_deals=1)
            h = hy.load(store, hy.create(store, mid, 1, 1))
            for hidden in ("actual", "resample"):
                profiler = cProfile.Profile() if args.profile and hidden == "actual" else None
                start = time.perf_counter()
                if profiler:
                    profiler.enable()
                result = ro.rollout(h, args.n, seed=1, hidden=hidden)
                if profiler:
                    profiler.disable()
                seconds = time.perf_counter() - start
                means = ", ".join(f"{p} {s['mean']:+.2f}" for p, s in result.players.items())
                print(f"{game:<16} {hidden:<8} {args.n} rollouts in {seconds:6.2f} s "
                      f"({1000 * seconds / args.n:.2f} ms each; {len(result.outcomes)} outcomes; means {means})"
                      + ("  [profiled: slower]" if profiler else ""))
                if profiler:
                    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
        store.close()


if __name__ == "__main__":
    main()
