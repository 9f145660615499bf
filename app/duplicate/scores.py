"""A duplicate event's results: each board's traveller (every table's result on it,
compared seat by seat) and the event's standings, read from the duplicate projection
(``projections.duplicate``: each played board's totals as its match stands, so a
ruling, an appeal's decision or an adjusted score on a board reaches both;
``projections.matchpoints`` does the comparing). Whether a board may be shown is asked
of the boards' matches as folded (``board_complete``), never of a read model.

A board's score at a seat is the game's own total of that seat's player after the
board's one deal (the view's ``totals``: Uxinjo's markers facing the player, Hakamo's
and Laugavatnsmanni's points, Svoi Kozyri's deals lost, low winning there). Standings
count the boards every table has played, for everyone alike: a board still being
played somewhere is in nobody's total yet.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.duplicate.boards import Duplicate, board_complete
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.match import NotAllowed
from kartludo.engine.registry import get_game
from kartludo.projections.matchpoints import compare
from kartludo.projections.queries import board_rows


class SeatResult(msgspec.Struct, frozen=True):
    seat: str
    player: str
    score: int
    matchpoints: int
    top: int
    percentage: float
    difference: float


class TableResult(msgspec.Struct, frozen=True):
    table: int
    match: str
    results: list[SeatResult]


class Traveller(msgspec.Struct, frozen=True):
    duplicate: str
    board: int
    complete: bool
    higher_is_better: bool
    tables: list[TableResult]
    #: the board's commitment (public), and its deck and salt once every table has played it
    commitment: str
    deck: list[str] | None = None
    salt: str | None = None


class StandingRow(msgspec.Struct, frozen=True):
    rank: int
    player: str
    table: int
    boards: int
    matchpoints: int
    top: int
    percentage: float
    difference: float


class Standings(msgspec.Struct, frozen=True):
    duplicate: str
    game: str
    boards: int
    boards_complete: int
    rows: list[StandingRow]


class _Played(msgspec.Struct, frozen=True):
    """One table's result on one board, from the duplicate projection."""

    match: str
    players: list[str]
    scores: list[int]


def _played(svc: MatchService, dup: Duplicate, board: int | None = None) -> dict[int, dict[int, _Played]]:
    """Board -> table -> its result, for the boards the tables have played (of ``board``
    only, if given), from the duplicate projection (brought up to date first)."""
    out: dict[int, dict[int, _Played]] = {}
    rows: dict[tuple[int, int], list[Any]] = {}
    for r in board_rows(svc.store, dup.id, board):
        rows.setdefault((r.board, r.table_no), []).append(r)
    for (k, table), seats in rows.items():
        out.setdefault(k, {})[table] = _Played(seats[0].match_id, [r.player for r in seats],
                                               [r.score for r in seats])
    return out


def _compared(dup: Duplicate, played: dict[int, _Played]) -> dict[int, list[SeatResult]]:
    """Each table's results on one board, seat by seat, compared with the other tables'."""
    game = get_game(dup.created.game)
    higher = not game.low_totals_win
    out: dict[int, list[SeatResult]] = {t: [] for t in played}
    for seat in range(len(dup.created.tables[0])):
        scores = {t: p.scores[seat] for t, p in played.items()}
        for t, scored in compare(scores, higher_is_better=higher).items():
            out[t].append(SeatResult(game.seat_names[seat] if seat < len(game.seat_names) else str(seat + 1),
                                     played[t].players[seat], scored.score, scored.matchpoints, scored.top,
                                     round(scored.percentage, 2), round(float(scored.difference), 2)))
    return out


def traveller(svc: MatchService, dup: Duplicate, board: int, *, td: bool) -> Traveller:
    """Every table's result on ``board``: a TD's at any time (the tables that have played
    it, compared among themselves), anyone's once every table has played it."""
    if not 1 <= board <= dup.boards:
        raise NotAllowed(f"duplicate {dup.id} has boards 1 to {dup.boards}, not {board}")
    complete = board_complete(svc, dup, board)
    played = _played(svc, dup, board).get(board, {})
    if not complete and not td:
        waiting = [str(t) for t in range(1, dup.tables + 1) if t not in played]
        raise NotAllowed(f"board {board} is still to be played at table {', '.join(waiting)}: its traveller "
                         "is shown once every table has played it (a TD sees it now)")
    compared = _compared(dup, played)
    shown = complete or td
    k = board - 1
    return Traveller(dup.id, board, complete, not get_game(dup.created.game).low_totals_win,
                     [TableResult(t, played[t].match, compared[t]) for t in sorted(played)],
                     dup.created.commitments[k], dup.created.decks[k] if shown else None,
                     dup.created.salts[k] if shown else None)


def standings(svc: MatchService, dup: Duplicate) -> Standings:
    """Every player's matchpoints over the boards every table has played, as a
    percentage of the top (ranked by it, ties sharing a rank), with the sum of their
    differences from each board's mean."""
    per: dict[str, list[Any]] = {p: [t, 0, 0, 0, 0.0] for t, players in enumerate(dup.created.tables, 1)
                                 for p in players}
    complete = 0
    for _board, played in sorted(_played(svc, dup).items()):
        if len(played) < dup.tables:
            continue  # still to be played somewhere: in nobody's total yet
        complete += 1
        for results in _compared(dup, played).values():
            for r in results:
                row = per[r.player]
                row[1] += 1
                row[2] += r.matchpoints
                row[3] += r.top
                row[4] += r.difference
    rows = [(p, t, n, mp, top, 100.0 * mp / top if top else 50.0, diff) for p, (t, n, mp, top, diff) in per.items()]
    rows.sort(key=lambda r: (-r[5], -r[6], r[0]))
    out, rank = [], 0
    for i, (p, t, n, mp, top, pct, diff) in enumerate(rows):
        if i == 0 or (pct, diff) != (rows[i - 1][5], rows[i - 1][6]):
            rank = i + 1
        out.append(StandingRow(rank, p, t, n, mp, top, round(pct, 2), round(diff, 2)))
    return Standings(dup.id, dup.created.game, dup.boards, complete, out)


def progress(svc: MatchService, dup: Duplicate) -> list[dict[str, Any]]:
    """Each table's boards: ``played``, ``playing`` (with its deal's phase) or ``waiting``,
    and who sits where on the board in play (what a TD's progress page shows)."""
    rows = []
    for table in range(1, dup.tables + 1):
        boards = []
        for board in range(1, dup.boards + 1):
            match_id = dup.started.get((table, board))
            if match_id is None:
                boards.append({"board": board, "status": "waiting", "match": None})
                continue
            match = svc.load(match_id)
            status = "played" if match.over else "playing"
            boards.append({"board": board, "status": status, "match": match_id,
                           **({} if match.over else {"phase": match.game.phase(match.state),
                                                     "to_act": [match.players[s]
                                                                for s in match.game.to_act(match.state)]})})
        latest = dup.latest(table)
        rows.append({"table": table, "players": dup.created.tables[table - 1], "boards": boards,
                     "seats": dup.seats(table, latest[0]) if latest else dup.created.tables[table - 1]})
    return rows
