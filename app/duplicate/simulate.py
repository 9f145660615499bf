"""Bots compared by duplicate: every table plays the same boards, the bots sitting at
each table turned one seat against the table before, so on every board each seat's cards
are played by each bot (with two bots and two tables: once by each). A board then says
how much better one bot did than the other on the same cards, and the luck of the deal
cancels out. How many deals that saves depends on how much of a result the cards are
(``bench/duplicate.py`` measures it against plain play; README "Duplicate play").

Used by ``kartludo simulate --duplicate``. Everything comes from one seed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from kartludo.app.duplicate.boards import after_command, create_duplicate, load_duplicate
from kartludo.app.duplicate.scores import standings
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import pick_bots
from kartludo.engine.base import PUBLIC, BadCommand
from kartludo.engine.legal import Legal
from kartludo.engine.match import Match
from kartludo.engine.registry import get_game

#: the one-sided normal quantile for 95 % confidence that one bot beats the other
Z95 = 1.6449


class BotRow(msgspec.Struct, frozen=True):
    """One bot's result over the event: its seats' mean matchpoint percentage."""

    bot: str
    seats_played: int
    percentage: float


class DuplicateSummary(msgspec.Struct):
    duplicate: str
    game: str
    boards: int
    tables: int
    deals: int
    seconds: float
    bots: list[BotRow]
    #: per board, the first bot's game score minus the second's on the same cards, each
    #: seat position's difference averaged (a higher-is-better score: Svoi Kozyri's negated)
    edge: float | None = None
    #: its standard error over the boards
    edge_error: float | None = None
    #: deals a comparison like this one needs for 95 % one-sided confidence in the
    #: edge's sign ((z * sd / mean)^2 boards, times the tables): None without an edge
    deals_needed: int | None = None

    def line(self) -> str:
        rows = ", ".join(f"{r.bot} {r.percentage:.1f}%" for r in self.bots)
        text = (f"duplicate {self.duplicate}: {self.game}, {self.boards} boards x {self.tables} tables, "
                f"{self.deals} deals in {self.seconds:.1f} s; matchpoints {rows}")
        if self.edge is not None and len(self.bots) >= 2:
            err = f" ± {self.edge_error:.2f}" if self.edge_error is not None else ""
            text += f"; {self.bots[0].bot} - {self.bots[1].bot} per board {self.edge:+.2f}{err}"
            if self.deals_needed is not None:
                text += f" ({self.deals_needed} deals for 95% confidence)"
        return text


def seat_bot(names: Sequence[str], table: int, seat: int) -> str:
    """The bot at ``seat`` (from 0) of ``table`` (from 1): turned one seat per table."""
    return names[(seat + table - 1) % len(names)]


def players_for(names: Sequence[str], tables: int, seats: int) -> list[list[str]]:
    """Player names that say which bot plays them and where: ``random-t2s1``."""
    return [[f"{seat_bot(names, t, s)}-t{t}s{s + 1}" for s in range(seats)] for t in range(1, tables + 1)]


def bot_of(player: str) -> str:
    return player.rsplit("-t", 1)[0]


def simulate_duplicate(svc: MatchService, game_name: str, *, boards: int, tables: int, bots: Sequence[str],
                       seed: int = 0, seats: int | None = None, options: dict[str, str] | None = None,
                       on_deal: Callable[[int], None] | None = None, max_commands: int = 1_000_000
                       ) -> DuplicateSummary:
    """Create a duplicate event of bots and play it to its end through the command path
    (each command as a player's: ``after_command`` moves each table on)."""
    game = get_game(game_name)
    seats = seats or game.player_counts[0]
    if seats not in game.player_counts:
        raise BadCommand(f"{game.name} is played by {' or '.join(map(str, game.player_counts))}, not {seats}")
    chosen = {name: bot for name, bot in zip(bots, pick_bots(game.name, bots))}
    names = list(dict.fromkeys(bots))
    start = time.perf_counter()
    duplicate_id = create_duplicate(svc, game.name, players_for(bots, tables, seats), boards, seed=seed,
                                     options=options, actor="simulator", label=f"bots {', '.join(names)}")
    rng = random.Random(f"duplicate:{seed}:{game.name}")
    deals = 0
    for _ in range(max_commands):
        dup = load_duplicate(svc.store, duplicate_id)
        running = [(t, latest[1]) for t in range(1, tables + 1)
                   if (latest := dup.latest(t)) is not None and not svc.load(latest[1]).over]
        if not running:
            break
        for _table, match_id in running:
            match = svc.load(match_id)
            if match.over:
                continue
            to_act = game.to_act(match.state)
            seat = to_act[0] if len(to_act) == 1 else to_act[rng.randrange(len(to_act))]
            player = match.players[seat]
            command = chosen[bot_of(player)].choose(game, match.state, seat, Legal(game, match.state, seat), rng)
            svc.execute(match_id, svc.play(command), actor=player)
            after_command(svc, match_id)
            if svc.load(match_id).over:
                deals += 1
                if on_deal is not None:
                    on_deal(1)
    else:
        raise RuntimeError(f"duplicate {duplicate_id} did not end within {max_commands} commands")
    dup = load_duplicate(svc.store, duplicate_id)
    table = standings(svc, dup)
    per: dict[str, list[float]] = {n: [] for n in names}
    for row in table.rows:
        per[bot_of(row.player)].append(row.percentage)
    rows = [BotRow(n, len(v) * boards, round(sum(v) / len(v), 2) if v else 0.0) for n, v in per.items()]
    summary = DuplicateSummary(duplicate_id, game.name, boards, tables, deals, time.perf_counter() - start, rows)
    if len(names) >= 2:
        edges = [edge_of(board_matches(svc, dup, k), names[0], names[1]) for k in range(1, boards + 1)]
        summary.edge, summary.edge_error, needed = edge_statistics([e for e in edges if e is not None])
        summary.deals_needed = None if needed is None else math.ceil(needed) * tables
    return summary


def deal_scores(game_name: str, state: Any, players: Sequence[str]) -> list[float]:
    """Each seat's score of a one-deal match, higher better (the game's own total)."""
    game = get_game(game_name)
    totals = game.view(state, PUBLIC)["totals"]
    sign = -1.0 if game.low_totals_win else 1.0
    return [sign * float(totals[p]) for p in players]


def board_matches(svc: MatchService, dup: Any, board: int) -> list[Match]:
    """Board ``board``'s match at every table, in table order."""
    return [svc.load(dup.started[table, board]) for table in range(1, dup.tables + 1)]


def edge_of(matches: Sequence[Match], first: str, second: str) -> float | None:
    """``first``'s score minus ``second``'s, per seat position, averaged over the
    positions both played in ``matches`` (one-deal matches, bots named by ``players_for``):
    on one board's matches, the edge on the same cards."""
    by_seat: dict[int, dict[str, list[float]]] = {}
    for match in matches:
        for seat, (player, score) in enumerate(zip(match.players, deal_scores(match.game.name, match.state,
                                                                               match.players))):
            by_seat.setdefault(seat, {}).setdefault(bot_of(player), []).append(score)
    return mean_edge(by_seat, first, second)


def mean_edge(by_seat: dict[int, dict[str, list[float]]], first: str, second: str) -> float | None:
    diffs = [sum(s[first]) / len(s[first]) - sum(s[second]) / len(s[second])
             for s in by_seat.values() if s.get(first) and s.get(second)]
    return sum(diffs) / len(diffs) if diffs else None


def edge_statistics(samples: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """(mean, its standard error, samples needed for 95 % one-sided confidence in its sign)."""
    n = len(samples)
    if n == 0:
        return None, None, None
    mean = sum(samples) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1))
    # at least two samples: one has no spread to go by
    needed = None if mean == 0 else max(2.0, (Z95 * sd / mean) ** 2)
    return round(mean, 3), round(sd / math.sqrt(n), 3), needed
