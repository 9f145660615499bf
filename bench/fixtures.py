"""Logs the benchmarks share: a league of short matches, one long Uxinjo match.

Everything is derived from a seed (``app.matches.simulate``), so two runs build the same log.
"""

from __future__ import annotations

import random

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import play_match, simulate
from kartludo.engine.registry import game_names
from kartludo.store import EventStore


def short_league(store: EventStore, matches: int, seed: int = 1) -> str:
    """``matches`` heuristic-bot matches spread over every game; a one-line summary."""
    games = game_names()
    per_game = -(-matches // len(games))
    summary = simulate(MatchService(store), games, per_game, seed=seed, bots=["heuristic"])
    return f"league: {summary.line()}"


def long_match(store: EventStore, deals: int, seed: int = 1, bots: tuple[str, ...] = ("random",)) -> tuple[str, int]:
    """One Uxinjo match of ``deals`` deals played by random bots (they foul, so it
    collects rulings; it never reaches finito for long: random play rarely wins).
    Returns (match id, events)."""
    from kartludo.app.matches.simulate import pick_bots

    svc = MatchService(store)
    rng = random.Random(f"long:{seed}")
    match_id, _, events = play_match(svc, "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", list(bots)), rng,
                                     max_deals=deals, max_commands=10**9)
    return match_id, events
