"""Whole matches played by bots through the same command path as humans.

Used by ``kartludo simulate``, the demo, the property tests and the benchmarks.
Everything is derived from one seed, so a simulation is reproducible.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence

import msgspec

from kartludo.app.matches import MatchService
from kartludo.engine.base import BadCommand, Bot
from kartludo.engine.registry import get_game

#: players drawn for simulated matches (a small club, so standings mean something)
CLUB = ("ann", "bob", "cy", "dan", "eve", "fay", "gus", "hal")


class Summary(msgspec.Struct):
    matches: int = 0
    finished: int = 0
    deals: int = 0
    events: int = 0
    seconds: float = 0.0
    match_ids: list[str] = []

    def line(self) -> str:
        rate = self.events / self.seconds if self.seconds else 0.0
        return (
            f"{self.matches} matches ({self.finished} finished), {self.deals} deals, "
            f"{self.events} events in {self.seconds:.1f} s ({rate:,.0f} events/s)"
        )


def pick_bots(game_name: str, names: Sequence[str] | None) -> list[Bot[Any]]:
    available = get_game(game_name).bots()
    chosen = list(names) if names else ["heuristic"]
    out = []
    for name in chosen:
        if name not in available:
            raise BadCommand(f"no bot {name!r} for {game_name} (bots: {', '.join(available)})")
        out.append(available[name])
    return out


def play_match(
    service: MatchService,
    game_name: str,
    players: Sequence[str],
    bots: Sequence[Bot[Any]],
    rng: random.Random,
    *,
    options: dict[str, str] | None = None,
    max_deals: int = 60,
    max_commands: int = 100_000,
    series: str | None = None,
    match_id: str | None = None,
) -> tuple[str, int, int]:
    """Play one match to its end (or ``max_deals``); returns (match id, deals, events).
    With ``match_id`` the bots take over that match where it stands (the demo plays
    a scripted deal first)."""
    game = get_game(game_name)
    events = 0
    if match_id is None:
        match_id = service.create(game_name, players, seed=rng.getrandbits(32), options=options, series=series,
                                  actor="simulator")
        events = 1
    seat_bots = [bots[i % len(bots)] for i in range(len(players))]
    deals = 0
    for _ in range(max_commands):
        match = service.load(match_id, refresh=False)
        state = match.state
        if game.is_finished(state):
            break
        if game.can_deal(state):
            if deals >= max_deals:
                break
            events += len(service.deal(match_id, actor="simulator").events)
            deals += 1
            continue
        seats = game.to_act(state)
        if not seats:
            raise RuntimeError(f"{game_name} match {match_id}: nobody to act in phase {game.phase(state)}")
        seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
        legal = game.legal_commands(state, seat)
        command = seat_bots[seat].choose(game, state, seat, legal, rng)
        events += len(service.execute(match_id, service.play(command), actor=players[seat]).events)
    return match_id, deals, events


def simulate(
    service: MatchService,
    games: Sequence[str],
    matches: int,
    *,
    seed: int = 0,
    bots: Sequence[str] | None = None,
    max_deals: int = 60,
    on_match: Callable[[int], None] | None = None,
) -> Summary:
    """Play ``matches`` matches of each game in ``games`` with players from ``CLUB``."""
    summary = Summary()
    start = time.perf_counter()
    for game_name in games:
        game = get_game(game_name)
        chosen = pick_bots(game_name, bots)
        for i in range(matches):
            rng = random.Random(f"{seed}:{game_name}:{i}")
            count = rng.choice(game.player_counts)
            players = rng.sample(CLUB, count)
            match_id, deals, events = play_match(service, game_name, players, chosen, rng, max_deals=max_deals)
            summary.matches += 1
            summary.deals += deals
            summary.events += events
            summary.match_ids.append(match_id)
            if service.load(match_id, refresh=False).status == "finished":
                summary.finished += 1
            if on_match is not None:
                on_match(1)
    summary.seconds = time.perf_counter() - start
    return summary
