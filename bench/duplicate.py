"""How many deals a duplicate comparison of two bots needs against plain play, for the
same confidence (95 %, one-sided) that the first bot beats the second (issue 39).

Both arms have the same design: two tables, the bots turned one seat between them
(``app.duplicate.simulate``), so every seat position is played once by each bot. In
the duplicate arm both tables hold the same cards (one event's board k); in the plain
arm they do not (board k of one event at its table 1 against board k of another event,
with other decks, at its table 2). Each pair of deals gives one sample: the first bot's
game score minus the second's, averaged over the seat positions. A comparison needs
``(z * sd / mean)^2`` samples, two deals each; the ratio plain / duplicate is what
duplicate saves.

    python bench/duplicate.py [--boards 64] [--events 4] [--games all] [--bots heuristic,random]

Prints, per game, mean ± sd of the per-pair edge in both arms and the deals needed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=64, help="boards per event (at most 64)")
    parser.add_argument("--events", type=int, default=4, help="events per game (an even number: they pair up)")
    parser.add_argument("--games", default="all")
    parser.add_argument("--bots", default="heuristic,random")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from kartludo.app.duplicate.boards import load_duplicate
    from kartludo.app.duplicate.simulate import Z95, board_matches, edge_of, simulate_duplicate
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.engine.registry import game_names
    from kartludo.store import EventStore

    bots = [b.strip() for b in args.bots.split(",")]
    first, second = bots[0], bots[1]
    games = game_names() if args.games == "all" else args.games.split(",")
    events = max(2, args.events - args.events % 2)
    print(f"bots {first} vs {second}; {events} events x {args.boards} boards x 2 tables per game; "
          f"samples are pairs of deals")
    print(f"{'game':16} {'arm':10} {'samples':>7} {'mean':>8} {'sd':>8} {'deals needed':>12} {'plain/dup':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            store = EventStore.open(f"sqlite:///{os.path.join(tmp, game + '.db')}")
            svc = MatchService(store)
            ids = [simulate_duplicate(svc, game, boards=args.boards, tables=2, bots=bots,
                                      seed=args.seed * 1000 + e).duplicate for e in range(events)]
            dups = [load_duplicate(store, i) for i in ids]
            boards = {i: {k: board_matches(svc, d, k) for k in range(1, args.boards + 1)} for i, d in zip(ids, dups)}
            same, other = [], []
            for i in ids:
                same += [edge_of(boards[i][k], first, second) for k in boards[i]]
            for a, b in zip(ids[0::2], ids[1::2]):  # events paired: a's table 1 with b's table 2, and back
                for k in range(1, args.boards + 1):
                    other.append(edge_of([boards[a][k][0], boards[b][k][1]], first, second))
                    other.append(edge_of([boards[b][k][0], boards[a][k][1]], first, second))
            needed = {}
            for arm, samples in (("duplicate", same), ("plain", other)):
                xs = [x for x in samples if x is not None]
                n = len(xs)
                mean = sum(xs) / n
                sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
                needed[arm] = 2 * max(1, math.ceil((Z95 * sd / mean) ** 2)) if mean else math.inf
                ratio = f"{needed['plain'] / needed['duplicate']:9.1f}" if arm == "plain" else ""
                print(f"{game:16} {arm:10} {n:7d} {mean:8.2f} {sd:8.2f} {needed[arm]:12} {ratio}")
            store.engine.dispose()


if __name__ == "__main__":
    main()
