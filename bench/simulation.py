"""Simulation and rollout speed, this tree against a baseline tree in the same run.

Each measurement runs in a fresh process, alternating this tree and the baseline
(``--baseline REF``, default ``main``, extracted with ``git archive`` as in
``bench/scaling.py``), ``--rounds`` times; medians are printed with the ratio
this / baseline:

* ``--matches`` Uxinjo matches of heuristic bots simulated into a fresh SQLite file
  (``kartludo simulate``'s path): matches/s (target >= 50); where the tree has it,
  also its per-command write path (``simulate(batch=False)``: one transaction per
  command, as before deals were written in one), to tell the store's share from the
  engine's;
* ``hypo rollout --n 1000`` from step 1 of a simulated Uxinjo deal, actual and
  resampled hidden cards: seconds.

    python bench/simulation.py [--matches 300] [--n 1000] [--rounds 3] [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from scaling import ROOT, Trees  # noqa: E402


def child(matches: int, n: int) -> dict[str, float]:
    import inspect
    import random

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.hypotheticals import rollouts as ro
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import pick_bots, play_match, simulate
    from kartludo.store import EventStore

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(f"sqlite:///{os.path.join(tmp, 'sim.db')}")
        summary = simulate(MatchService(store), ["uxinjo"], matches, seed=1, bots=["heuristic"])
        out["matches/s"] = summary.matches / summary.seconds
        out["events"] = summary.events
        if "batch" in inspect.signature(simulate).parameters:  # this tree's per-command write path
            store_1 = EventStore.open(f"sqlite:///{os.path.join(tmp, 'sim1.db')}")
            one = simulate(MatchService(store_1), ["uxinjo"], matches, seed=1, bots=["heuristic"], batch=False)
            out["matches/s per-command"] = one.matches / one.seconds
            store_1.close()
        mid, _, _ = play_match(MatchService(store), "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", ["heuristic"]),
                               random.Random(1), max_deals=1)
        h = hy.load(store, hy.create(store, mid, 1, 1))
        for hidden in ("actual", "resample"):
            t0 = time.perf_counter()
            ro.rollout(h, n, seed=1, hidden=hidden)
            out[f"rollout {hidden} s"] = time.perf_counter() - t0
        store.close()
    return out


def run(trees: Trees, tree: str, matches: int, n: int) -> dict[str, float]:
    env = dict(os.environ)
    if trees.paths[tree]:
        env["PYTHONPATH"] = trees.paths[tree] + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "_child", str(matches), str(n)], env=env,
                          capture_output=True, text=True, timeout=3600, cwd=ROOT)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{tree} child failed:\n{proc.stderr[-3000:]}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        print("RESULT " + json.dumps(child(int(sys.argv[2]), int(sys.argv[3]))), flush=True)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", default="main")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = Trees(tmp, args.baseline)
        results: dict[str, list[dict[str, float]]] = {"this": [], "baseline": []}
        for _ in range(args.rounds):
            for tree in ("baseline", "this"):
                results[tree].append(run(trees, tree, args.matches, args.n))
        print(f"{args.matches} Uxinjo matches into SQLite, {args.n} rollouts; medians of {args.rounds} runs "
              f"(baseline: {args.baseline})")
        for key in results["this"][0]:
            this = statistics.median(r[key] for r in results["this"])
            if key not in results["baseline"][0]:  # measured in this tree only
                print(f"{key:22} baseline       n/a   this {this:9.2f}")
                continue
            base = statistics.median(r[key] for r in results["baseline"])
            target = "  (target >= 50)" if key == "matches/s" else ""
            print(f"{key:22} baseline {base:9.2f}   this {this:9.2f}   ratio {this / base:5.2f}{target}")


if __name__ == "__main__":
    main()
