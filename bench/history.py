"""Costs against a match's history: what a fresh CLI process (or one HTTP request) pays
to read a 1-deal match and a 1,000-deal match, in the same run. Each path runs cold:
a new CLI invocation (``CliRunner``, no subprocess) or a new ``MatchService``, so no
process cache helps. Prints each median and the ratio long / short (target: <= 2 for
the first three):

- ``act``: CLI ``act`` (a legal command of the seat to act, picked untimed)
- ``state --json``: CLI ``state --json``
- ``replay --deal LAST``: CLI ``replay --deal N --json`` of the last deal
- ``audit show``: CLI ``audit show --json`` of a ruling in the last deal
- ``events?after``: ``MatchReader.events`` for a seat after a recent position
- full fold: the whole stream read and folded (no snapshot), for scale

A match of a tenth of the deals is measured too: ``growth`` is the long match's time
over its. A load reads the nearest snapshot (0.35-0.43 ms at 100, 1,000 and 3,000 deals)
and folds at most the ~100 events after it, a constant the shortest paths pay over a
1-deal match (``events?after``: 0.2-0.3 ms against 0.5 and 0.7-0.8; so short a path swings
most, growth 1.45-1.75). What growth remains (1.2-1.45 on the CLI rows, 2 cores) is the
match's present, not its past: random bots foul and rarely lift a penalty, so at 100
deals each seat has about 45 penalties standing and at 1,000 about 420, and every state,
view and fold step carries them.

    python bench/history.py [--deals 1000] [--repeat 7] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(__file__))

from click.testing import CliRunner  # noqa: E402
from fixtures import long_match  # noqa: E402

from kartludo.app.matches.pipeline import MatchService  # noqa: E402
from kartludo.cli.main import cli  # noqa: E402
from kartludo.engine.match import fold  # noqa: E402
from kartludo.events.streams import match_stream  # noqa: E402
from kartludo.store import EventStore  # noqa: E402


class Bench:
    def __init__(self, store: EventStore, url: str, match_id: str) -> None:
        self.store, self.url, self.id = store, url, match_id
        self.runner = CliRunner()
        svc = MatchService(store)
        m = svc.load(match_id)
        self.last_deal = m.game.deal_number(m.state)
        self.ruling = self._last_ruling()
        recs = store.read_stream(match_stream(match_id))
        self.after = recs[max(0, len(recs) - 6)].position  # the last 5 events are new to the reader

    def _last_ruling(self) -> str | None:
        from kartludo.app.audit.trail import list_rulings

        found = [r for r in list_rulings(self.store, self.id) if r.deal == self.last_deal]
        return found[-1].id if found else None

    def cli(self, *args: str) -> float:
        t0 = time.perf_counter()
        result = self.runner.invoke(cli, ["--db", self.url, *args], catch_exceptions=False)
        took = time.perf_counter() - t0
        if result.exit_code != 0:
            raise RuntimeError(f"{args}: exit {result.exit_code}: {result.output[-500:]}")
        return took

    def act(self) -> float:
        """One legal command of the seat to act (a new deal first, untimed, between deals)."""
        svc = MatchService(self.store)
        m = svc.load(self.id)
        if m.game.can_deal(m.state):
            svc.deal(self.id, actor="bench")
            m = svc.load(self.id)
        seat = m.game.to_act(m.state)[0]
        legal = m.game.legal_commands(m.state, seat)
        words = random.Random(m.version).choice(legal).text().split()
        return self.cli("act", self.id, "--as", m.players[seat], *words)

    def state(self) -> float:
        return self.cli("state", self.id, "--json")

    def replay(self) -> float:
        return self.cli("replay", self.id, "--deal", str(self.last_deal), "--json", "--no-interactive")

    def audit(self) -> float:
        return self.cli("audit", "show", self.ruling, "--json") if self.ruling else float("nan")

    def events(self) -> float:
        from kartludo.app.reading.reader import MatchReader

        t0 = time.perf_counter()
        MatchReader(MatchService(self.store)).events(self.id, 0, after=self.after)
        return time.perf_counter() - t0

    def full_fold(self) -> float:
        t0 = time.perf_counter()
        fold(self.id, self.store.read_stream(match_stream(self.id)))
        return time.perf_counter() - t0


#: the rows with a target: a 1,000-deal match within 2x of a 1-deal match
TARGETED = ("act", "state --json", "replay --deal LAST")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 3
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{os.path.join(tmp, 'h.db')}"
        store = EventStore.open(url)
        short, short_events = long_match(store, 1, seed=1, bots=("random",))
        tenth = max(2, args.deals // 10)
        mid, mid_events = long_match(store, tenth, seed=3, bots=("random",))
        long, long_events = long_match(store, args.deals, seed=2, bots=("random",))
        print(f"matches: 1 deal ({short_events} events), {tenth} deals ({mid_events:,} events), "
              f"{args.deals} deals ({long_events:,} events)")
        a, m, b = Bench(store, url, short), Bench(store, url, mid), Bench(store, url, long)
        print(f"rulings in the last deal: short {a.ruling}, long {b.ruling}")
        runs: list[tuple[str, Callable[[Bench], float]]] = [
            ("act", Bench.act), ("state --json", Bench.state), ("replay --deal LAST", Bench.replay),
            ("audit show (last deal)", Bench.audit), ("events?after (seat)", Bench.events),
            ("full fold (no snapshot)", Bench.full_fold),
        ]
        for bench in (a, m, b):  # warm up: projections caught up, snapshots written by a first load
            for _, fn in runs:
                fn(bench)
        for label, fn in runs:
            # the three matches in turn, so a busy moment of the machine hits all three alike
            times: tuple[list[float], list[float], list[float]] = ([], [], [])
            for _ in range(args.repeat):
                for bench, took in zip((a, m, b), times, strict=True):
                    took.append(fn(bench))
            ta, tm, tb = (statistics.median(t) for t in times)
            target = ("  ok" if tb / ta <= 2 else "  OVER 2x") if label in TARGETED else ""
            print(f"{label:26} 1 deal {ta * 1000:7.1f} ms   {tenth} deals {tm * 1000:7.1f} ms   "
                  f"{args.deals} deals {tb * 1000:8.1f} ms   ratio {tb / ta:6.2f}   growth {tb / tm:5.2f}{target}")
        store.close()


if __name__ == "__main__":
    main()
