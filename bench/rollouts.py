"""Rollout speed per game, this tree against a baseline tree in the same run.

For each game, one deal played by heuristic bots, a hypothetical made as it was dealt
(step 0) and ``--n`` (1,000) seeded heuristic-bot rollouts of it, with the hidden cards
as they were (``actual``) and dealt afresh (``resample``: at step 0 every card moves,
so the deals vary most). Each measurement runs in a fresh process, alternating the
baseline tree (``--baseline REF``, extracted with ``git archive`` as in
``bench/scaling.py``; ``--baseline ''`` for this tree alone) and this one,
``--rounds`` times; medians are printed as rollouts/s with the ratio this / baseline,
then the 1,000-rollout Laugavatnsmanni time (resampled; issue 41's target: <= 5 s on
a quiet 2-core machine). Both trees must give the same figures (a bot or engine change
that moves a decision shows here as "results differ").

    .venv/bin/python bench/rollouts.py [--n 1000] [--rounds 3] [--baseline 5edccef] [--games …]
    .venv/bin/python bench/rollouts.py --profile --games laugavatnsmanni   # where the time goes (this tree)

These are figures, not tests: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from scaling import Trees, run_child  # noqa: E402

PLAYERS = {"uxinjo": 3, "hakamo": 4, "laugavatnsmanni": 3, "svoi-kozyri": 3}
OPTIONS = {"laugavatnsmanni": {"max_deals": "1"}, "svoi-kozyri": {"deals": "1"}}
HIDDEN = ("actual", "resample")


def _hypothetical(store, game: str):
    import random

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import pick_bots, play_match

    mid, _, _ = play_match(MatchService(store), game, ["ann", "bob", "cy", "dan"][: PLAYERS[game]],
                           pick_bots(game, ["heuristic"]), random.Random(1), options=OPTIONS.get(game), max_deals=1)
    return hy.load(store, hy.create(store, mid, 1, 0))


def child(games: list[str], n: int) -> dict[str, float | str]:
    """Seconds per (game, hidden) and a digest of the figures, in this process's tree."""
    from kartludo.app.hypotheticals import rollouts as ro
    from kartludo.store import EventStore

    out: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'bench.db')}")
        for game in games:
            h = _hypothetical(store, game)
            for hidden in HIDDEN:
                start = time.perf_counter()
                result = ro.rollout(h, n, seed=1, hidden=hidden)
                out[f"{game} {hidden}"] = time.perf_counter() - start
                figures = json.dumps([result.players, result.outcomes], sort_keys=True).encode()
                out[f"{game} {hidden} digest"] = hashlib.sha256(figures).hexdigest()[:16]
        store.close()
    return out


def profile(games: list[str], n: int) -> None:
    import cProfile
    import pstats

    from kartludo.app.hypotheticals import rollouts as ro
    from kartludo.store import EventStore

    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'bench.db')}")
        for game in games:
            h = _hypothetical(store, game)
            profiler = cProfile.Profile()
            profiler.enable()
            ro.rollout(h, n, seed=1, hidden="resample")
            profiler.disable()
            print(f"--- {game}: {n} resampled rollouts, profiled (slower than unprofiled)")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        store.close()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        print("RESULT " + json.dumps(child(sys.argv[2].split(","), int(sys.argv[3]))), flush=True)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", default="main", help="a git ref to compare with ('' for none)")
    ap.add_argument("--games", default=",".join(PLAYERS))
    ap.add_argument("--profile", action="store_true", help="profile this tree's resampled rollouts instead")
    args = ap.parse_args()
    games = args.games.split(",")
    if args.profile:
        profile(games, args.n)
        return
    with tempfile.TemporaryDirectory() as tmp:
        trees = Trees(tmp, args.baseline or None)
        runs: dict[str, list[dict]] = {tree: [] for tree in trees.names()}
        for _ in range(args.rounds):
            for tree in reversed(trees.names()):  # the baseline first, then this tree
                runs[tree].append(run_child(trees, tree, ",".join(games), str(args.n), script=__file__))
    base = "baseline" in runs
    print(f"{args.n} heuristic-bot rollouts from a deal's start, seed 1; medians of {args.rounds} runs, each in a "
          f"fresh process" + (f" (baseline: {args.baseline})" if base else ""))
    print(f"{'game':<16} {'hidden':<9}" + (f"{'baseline /s':>12}" if base else "") + f"{'this /s':>10}"
          + ("   ratio   figures" if base else ""))

    def median(tree: str, key: str) -> float:
        return statistics.median(float(r[key]) for r in runs[tree])

    for game in games:
        for hidden in HIDDEN:
            key = f"{game} {hidden}"
            this = args.n / median("this", key)
            line = f"{game:<16} {hidden:<9}"
            if base:
                was = args.n / median("baseline", key)
                same = {r[f"{key} digest"] for r in runs["this"] + runs["baseline"]}
                line += f"{was:>12.0f}{this:>10.0f}   {this / was:5.2f}   {'same' if len(same) == 1 else 'DIFFER'}"
            else:
                line += f"{this:>10.0f}"
            print(line)
    if "laugavatnsmanni" in games:
        key = "laugavatnsmanni resample"
        this = median("this", key) * 1000 / args.n
        line = f"\nLaugavatnsmanni 1,000 resampled rollouts: {this:.2f} s (target <= 5 s)"
        if base:
            was = median("baseline", key) * 1000 / args.n
            line += f"; baseline {was:.2f} s; ratio this / baseline {this / was:.2f}"
        print(line)


if __name__ == "__main__":
    main()
