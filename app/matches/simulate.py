"""Whole matches played by bots through the same command path as humans.

Used by ``kartludo simulate``, the demo, the property tests and the benchmarks.
Everything is derived from one seed, so a simulation is reproducible.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from kartludo.app.errors import AppError
from kartludo.app.matches import snapshots
from kartludo.app.matches.fairness import committed, random_deck
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine.base import BadCommand, Bot, Command, Game, StartDeal, seeded_deck
from kartludo.engine.bots import HEURISTIC, bots_of
from kartludo.engine.legal import Legal
from kartludo.engine.match import Match
from kartludo.engine.registry import get_game
from kartludo.events.base import Event
from kartludo.events.match import RANDOM_SHUFFLE, DealStarted
from kartludo.store import ConcurrencyConflict

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
    """The bots ``names`` (default: the heuristic one) of ``bots_of`` the game: a game
    without a heuristic bot is played by the random one (``stand_in`` says so)."""
    available = bots_of(get_game(game_name))
    chosen = list(names) if names else [HEURISTIC]
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
    batch: bool | None = None,
) -> tuple[str, int, int]:
    """Play one match to its end (or ``max_deals``); returns (match id, deals, events).
    With ``match_id`` the bots take over that match where it stands (the demo plays
    a scripted deal first).

    ``batch`` (default: for a match it creates outside a series) plays each deal on
    the folded match in memory and appends its commands in one transaction when the
    deal ends (``EventStore.append_commands``): the same events, rows and snapshots as
    one append per command, without a transaction per command. A series match goes
    command by command (its deadline may close it)."""
    game = get_game(game_name)
    events = 0
    if batch is None:
        batch = match_id is None and series is None
    if match_id is None:
        match_id = service.create(game_name, players, seed=rng.getrandbits(32), options=options, series=series,
                                  actor="simulator")
        events = 1
    seat_bots = [bots[i % len(bots)] for i in range(len(players))]
    if batch and service.load(match_id, refresh=False).created.series is None:
        deals, played = _play_batched(service, match_id, seat_bots, rng, max_deals, max_commands)
        return match_id, deals, events + played
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
        seat, command = _bot_move(game, state, seat_bots, rng, match_id)
        events += len(service.execute(match_id, service.play(command), actor=players[seat]).events)
    return match_id, deals, events


def _bot_move(game: Game[Any], state: Any, seat_bots: Sequence[Bot[Any]], rng: random.Random,
              match_id: str) -> tuple[int, Command]:
    """The seat that moves now (one of those the rules wait for, drawn by ``rng``) and
    its bot's command: one draw order, so a batched and an unbatched run agree."""
    seats = game.to_act(state)
    if not seats:
        raise RuntimeError(f"{game.name} match {match_id}: nobody to act in phase {game.phase(state)}")
    seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
    return seat, seat_bots[seat].choose(game, state, seat, Legal(game, state, seat), rng)


#: the most events a batched simulation keeps unwritten (a deal is far shorter)
BATCH_EVENTS = 4000


def _deal_events(match: Match) -> list[Event]:
    """The next deal's events as ``MatchService.deal`` decides them outside a series:
    the match's seeded shuffle (a fresh one without a seed), with salt and commitment."""
    full = match.game.deck(match.created.options)
    if match.created.seed is None:
        command = StartDeal(deck=random_deck(full), shuffle=RANDOM_SHUFFLE)
    else:
        order, shuffle = seeded_deck(full, match.created.seed, match.game.deal_number(match.state) + 1)
        command = StartDeal(deck=order, shuffle=shuffle)
    return [committed(e) if isinstance(e, DealStarted) else e for e in match.game.decide(match.state, command)]


def _play_batched(service: MatchService, match_id: str, seat_bots: list[Bot[Any]], rng: random.Random,
                  max_deals: int, max_commands: int) -> tuple[int, int]:
    """``play_match``'s loop on the service's folded match, each event folded once,
    written a deal at a time (and then handed to the match's log as folded: ``absorb``).
    Another writer moving the match meanwhile makes the write a conflict: the unwritten
    commands are dropped and play goes on from the stored match. Returns (deals, events
    written)."""
    log = service.log(match_id)
    match = log.match
    game, players, store, stream = match.game, match.players, service.store, stream_of(match_id)
    written = match.copy()
    pending: list[tuple[list[Event], str, str | None]] = []
    befores: list[Any] = []  # the state before each pending event
    unwritten = [0, 0]  # events, deals
    deals = events = 0

    def record(decided: list[Event], actor: str) -> None:
        pending.append((decided, actor, None))
        version = match.version
        for event in decided:
            version += 1
            befores.append(match.state)
            match.apply(event, version)
        unwritten[0] += len(decided)

    def fold_back() -> None:
        """The service's match back to what is written (nothing pending)."""
        match.state, match.version, match.closed, match.disputes = (
            written.state, written.version, written.closed, written.disputes)
        pending.clear()
        befores.clear()
        unwritten[:] = [0, 0]

    def flush() -> bool:
        """Write the pending commands; False when another writer moved the match first."""
        nonlocal written, events, deals
        if not pending:
            return True
        stored = True
        try:
            appended = store.append_commands(stream, pending, written.version)
        except ConcurrencyConflict:
            fold_back()
            service.load(match_id)  # catch up with the other writer
            stored = False
        except BaseException:
            fold_back()
            raise
        else:
            log.absorb([rec for a in appended for rec in a.records], befores)
            events += unwritten[0]
            deals += unwritten[1]
            snapshots.after_commit(store, match)
        pending.clear()
        befores.clear()
        unwritten[:] = [0, 0]
        written = match.copy()
        return stored

    try:
        for _ in range(max_commands):
            state = match.state
            if game.is_finished(state):
                break
            if game.can_deal(state):
                if not flush():
                    continue  # the match as the other writer left it
                if deals >= max_deals:
                    break
                if match.closed:
                    raise AppError(f"match {match_id} is closed: no more deals")
                record(_deal_events(match), "simulator")
                unwritten[1] += 1
                continue
            seat, command = _bot_move(game, state, seat_bots, rng, match_id)
            record(service.play(command)(match), players[seat])
            if unwritten[0] >= BATCH_EVENTS:
                flush()
    except BaseException:
        # what was accepted before the failure is written, as one append per command writes it
        flush()
        raise
    flush()
    return deals, events


def simulate(
    service: MatchService,
    games: Sequence[str],
    matches: int,
    *,
    seed: int = 0,
    bots: Sequence[str] | None = None,
    max_deals: int = 60,
    on_match: Callable[[int], None] | None = None,
    batch: bool = True,
) -> Summary:
    """Play ``matches`` matches of each game in ``games`` with players from ``CLUB``
    (``batch``: a deal's commands in one transaction, see ``play_match``)."""
    summary = Summary()
    start = time.perf_counter()
    for game_name in games:
        game = get_game(game_name)
        chosen = pick_bots(game_name, bots)
        for i in range(matches):
            rng = random.Random(f"{seed}:{game_name}:{i}")
            count = rng.choice(game.player_counts)
            players = rng.sample(CLUB, count)
            match_id, deals, events = play_match(service, game_name, players, chosen, rng, max_deals=max_deals,
                                                 batch=batch)
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
