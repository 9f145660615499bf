"""Rollouts: a hypothetical's deal played to its settlement many times by bots, in memory.

Each rollout folds through the same engine as a match (``check``, ``evolve``, then the
rules' ``automatic`` events until none: exactly ``decide``), with the game's bots, and
scores the deal as the change of each player's ``totals``. Nothing is written per
rollout; the summary is recorded as one ``RolloutRecorded`` event on the hypothetical's
stream, so its figures are part of the record.

``hidden="actual"`` keeps the cards nobody had seen where they really were;
``"resample"`` deals them afresh for every rollout, consistent with what every seat had
seen: the positions of the deal's deck holding a card no seat had seen are shuffled
among themselves, and the deal's history is re-folded on that deck. A card any seat
had seen (in its view of any state, or of any event, up to the moment) never moves, so
every seat's view of the moment is unchanged. A card code seen once keeps every copy
of it in place (the Jx deck has twins): conservative, never inconsistent.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from kartludo.app.errors import AppError
from kartludo.app.hypotheticals.hypothetical import Hypothetical, deal_settled, hypo_stream, score_change
from kartludo.app.matches.setup import check_seed
from kartludo.engine.base import Bot, Game
from kartludo.engine.bots import stand_in
from kartludo.engine.legal import Legal
from kartludo.engine.match import step
from kartludo.events.hypo import RolloutRecorded
from kartludo.events.match import DealStarted
from kartludo.store import EventStore

#: the most rollouts one request may ask for
MAX_ROLLOUTS = 10_000
HIDDEN = ("actual", "resample")
#: a deal longer than this is a bot or engine bug, not a deal
MAX_COMMANDS = 20_000


class RolloutResult(msgspec.Struct):
    """The JSON ``hypo rollout`` prints: ``{"n", "players": {name: {"mean", "p10",
    "p50", "p90"}}, "outcomes": [{"scores": {name: n}, "count": k}, …]}``."""

    n: int
    players: dict[str, dict[str, float]]
    outcomes: list[dict[str, Any]]
    bots: str = "heuristic"
    hidden: str = "actual"
    seed: int | None = None
    hypothetical: str = ""
    at_version: int = 0
    #: the random bot played for a heuristic bot the game lacks (``engine.bots.stand_in``)
    note: str | None = None


def _codes(value: Any, deck: frozenset[str], out: set[str]) -> None:
    if isinstance(value, str):
        if value in deck:
            out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            _codes(v, deck, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _codes(v, deck, out)


def seen_cards(h: Hypothetical) -> set[str]:
    """The card codes any seat had seen up to the hypothetical's moment: in its view of
    every state of the deal from the moment it was dealt (step 0 with no move since:
    none) and in its view of every event."""
    game, m = h.game, h.moment
    deck = frozenset(game.deck(h.match.created.options))
    history = list(m.history) + list(h.events)
    seats = range(len(h.match.players))
    seen: set[str] = set()
    if h.started.step == 0 and not h.events:
        return seen
    state = m.before_deal
    for event in history:
        for seat in seats:
            if not isinstance(event, DealStarted):
                _codes(msgspec.to_builtins(game.redact(state, event, seat)), deck, seen)
        state = step(game, state, event)
        for seat in seats:
            _codes(game.view(state, seat), deck, seen)
    return seen


def resampled(h: Hypothetical, seen: set[str], rng: random.Random) -> Any:
    """The hypothetical's state with the cards nobody had seen dealt afresh."""
    game, m = h.game, h.moment
    dealt = m.history[0]
    if not isinstance(dealt, DealStarted):
        raise AppError(f"deal {h.started.deal} does not start with its deal event")
    deck = list(dealt.deck)
    free = [i for i, c in enumerate(deck) if c not in seen]
    cards = [deck[i] for i in free]
    rng.shuffle(cards)
    for i, c in zip(free, cards):
        deck[i] = c
    state = game.evolve(m.before_deal, msgspec.structs.replace(dealt, deck=deck))
    for event in [*m.history[1:], *h.events]:
        state = step(game, state, event)
    return state


def play_out(game: Game[Any], state: Any, bots: Sequence[Bot[Any]], rng: random.Random) -> Any:
    """Play the deal from ``state`` to its settlement; the state there."""
    check, evolve, automatic = game.check, game.evolve, game.automatic
    for _ in range(MAX_COMMANDS):
        if deal_settled(game, state):
            return state
        seats = game.to_act(state)
        if not seats:
            more = automatic(state)
            if not more:
                raise AppError(f"{game.name}: nobody to act in phase {game.phase(state)} and nothing automatic")
            for event in more:
                state = evolve(state, event)
            continue
        seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
        command = bots[seat].choose(game, state, seat, Legal(game, state, seat), rng)
        for event in check(state, command):
            state = evolve(state, event)
        while True:
            more = automatic(state)
            if not more:
                break
            for event in more:
                state = evolve(state, event)
    raise AppError(f"{game.name}: a rollout took more than {MAX_COMMANDS} commands without settling the deal")


def percentile(ordered: Sequence[int], p: int) -> int:
    """Nearest-rank percentile of sorted values (p10 of 200 values: the 20th)."""
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summarise(players: Sequence[str], results: list[tuple[int, ...]]) -> tuple[dict[str, dict[str, float]],
                                                                                list[dict[str, Any]]]:
    stats: dict[str, dict[str, float]] = {}
    for i, p in enumerate(players):
        values = sorted(r[i] for r in results)
        stats[p] = {"mean": round(sum(values) / len(values), 4), "p10": percentile(values, 10),
                    "p50": percentile(values, 50), "p90": percentile(values, 90)}
    counted = Counter(results)
    outcomes = [{"scores": dict(zip(players, scores)), "count": count}
                for scores, count in sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))]
    return stats, outcomes


def check_request(n: int, hidden: str, seed: int | None) -> None:
    if not 1 <= n <= MAX_ROLLOUTS:
        raise AppError(f"--n {n} is out of range: 1 to {MAX_ROLLOUTS:,} rollouts")
    if hidden not in HIDDEN:
        raise AppError(f"--hidden {hidden!r}: use actual or resample")
    check_seed(seed)


def rollout(h: Hypothetical, n: int, *, bots: str = "heuristic", seed: int | None = None, hidden: str = "actual",
            progress: Callable[[int], None] | None = None) -> RolloutResult:
    """``n`` rollouts of the hypothetical's deal from its moment (nothing written)."""
    from kartludo.app.matches.simulate import pick_bots

    check_request(n, hidden, seed)
    game = h.game
    players = h.match.players
    bot = pick_bots(game.name, [bots])[0]
    seat_bots = [bot] * len(players)
    seen = seen_cards(h) if hidden == "resample" else set()
    system = random.SystemRandom() if seed is None else None
    results: list[tuple[int, ...]] = []
    for i in range(n):
        rng = system if system is not None else random.Random(f"{seed}:{i}")
        start = resampled(h, seen, rng) if hidden == "resample" else h.match.state
        final = play_out(game, start, seat_bots, rng)
        scores = score_change(game, h.moment.before_deal, final, players)
        results.append(tuple(scores[p] for p in players))
        if progress is not None:
            progress(1)
    stats, outcomes = summarise(players, results)
    return RolloutResult(n, stats, outcomes, bots=bots, hidden=hidden, seed=seed, hypothetical=h.id,
                         at_version=h.version, note=stand_in(game, [bots]))


def record(store: EventStore, result: RolloutResult, actor: str = "td") -> None:
    """Append the summary to the hypothetical's stream (after whatever it holds now)."""
    stream = hypo_stream(result.hypothetical)
    event = RolloutRecorded(n=result.n, bots=result.bots, hidden=result.hidden, seed=result.seed,
                            at_version=result.at_version, players=result.players, outcomes=result.outcomes)
    from kartludo.store import ConcurrencyConflict

    for _ in range(8):
        try:
            store.append(stream, [event], store.stream_version(stream), actor=actor)
            return
        except ConcurrencyConflict:
            continue
    raise AppError(f"hypothetical {result.hypothetical}: could not record the rollout (too many concurrent writes)")


def result_json(result: RolloutResult) -> dict[str, Any]:
    out = {"n": result.n, "players": result.players, "outcomes": result.outcomes, "bots": result.bots,
           "hidden": result.hidden, "seed": result.seed, "hypothetical": result.hypothetical,
           "at_version": result.at_version}
    if result.note:  # only for a game without a heuristic bot
        out["note"] = result.note
    return out

