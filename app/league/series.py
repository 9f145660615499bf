"""Time-limited series: creating them, adding matches, and their standings.

Series as the project implements them (Uxinjo's §6.x): players total match points
within the time limit, those of a game that scores them (its ``Result.match_points``)
or else placement match points; every foul costs the game's ``foul_series_mp``
(Uxinjo: 2 MP); a series' next match is created only once the one before has ended
(finished, or closed at the deadline) and its match points are given, and the seats
pass to the left per match ended, so the next match's first seat is the previous
match's second (Uxinjo's series-order RULING, held for every game's series); no match
starts after the deadline, and a match running at the deadline ends with the deal in
progress and is scored as it stands then. Deadlines are judged by the events' recorded
times, never by the clock of whoever reads them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from kartludo.app.errors import AppError, UnknownMatch
from kartludo.app.ids import resolve_prefix
from kartludo.engine.base import BadCommand
from kartludo.engine.registry import get_game
from kartludo.events.series import SeriesCreated, SeriesMatchAdded
from kartludo.events.streams import SERIES_PREFIX, series_stream
from kartludo.projections import queries
from kartludo.store import EventStore

#: the longest series: a year (every deadline stays a representable time)
MAX_MINUTES = 525_600
#: a series starts between these times (microseconds since 1970; the latter is 9000-01-01 UTC)
EARLIEST_START_US = 0
LATEST_START_US = 221_845_392_000_000_000


class Series(msgspec.Struct):
    id: str
    created: SeriesCreated
    version: int
    match_ids: list[str]

    @property
    def deadline_us(self) -> int:
        return self.created.starts_at_us + self.created.minutes * 60_000_000

    def seat_order(self, ended: int) -> list[str]:
        """Players in seat order for a match created once ``ended`` of the series'
        matches have ended: the markers pass left after each match ended, so each
        starts one seat on (the first match of a series is ``seat_order(0)``)."""
        players = self.created.players
        k = ended % len(players)
        return players[k:] + players[:k]


class Progress(msgspec.Struct, frozen=True):
    """Where one of a series' matches stands, as its next match's creation asks."""

    match: str
    #: finished by the game's rules or closed at the series' deadline (``Match.over``)
    over: bool
    #: deals started so far (0 before the first)
    deal: int


def fmt_time(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def parse_time(text: str) -> int:
    """An ISO 8601 time (``2026-12-01T18:00Z``; no zone means UTC) as microseconds."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadCommand(f"not a time: {text!r} (use ISO 8601, e.g. 2026-12-01T18:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    us = int(moment.timestamp() * 1_000_000)
    check_start(us, text)
    return us


def check_start(us: int, shown: str | None = None) -> None:
    if not EARLIEST_START_US <= us < LATEST_START_US:
        raise BadCommand(f"start time {shown or us} is out of range: a series starts between "
                         f"{fmt_time(EARLIEST_START_US)} and {fmt_time(LATEST_START_US)}")


def create_series(
    store: EventStore,
    game_name: str,
    players: Sequence[str],
    minutes: int,
    *,
    starts_at_us: int | None = None,
    actor: str = "",
    series_id: str | None = None,
    clock: Any = None,
) -> str:
    """Create a series; ``clock`` (an ``events.clock.ClockSet``) is the time control
    of every match added to it, recorded after its ``SeriesCreated`` in one append."""
    from kartludo.app.matches.setup import check_players

    game = get_game(game_name)
    players = list(players)
    check_players(game, players)
    if not 1 <= minutes <= MAX_MINUTES:
        raise BadCommand(f"a series lasts at least 1 minute and at most {MAX_MINUTES} (a year), not {minutes}")
    series_id = series_id or os.urandom(5).hex()
    start = store.clock() if starts_at_us is None else starts_at_us
    check_start(start)
    event = SeriesCreated(game=game.name, players=players, minutes=minutes, starts_at_us=start)
    store.append(series_stream(series_id), [event, *([clock] if clock is not None else [])], 0, actor=actor)
    return series_id


def resolve_series(store: EventStore, prefix: str) -> str:
    """A series id from any unique prefix of it."""
    return resolve_prefix(store, SERIES_PREFIX, prefix, "series")


def load_series(store: EventStore, series_id: str) -> Series:
    records = store.read_stream(series_stream(series_id))
    if not records or not isinstance(records[0].event, SeriesCreated):
        raise UnknownMatch(f"no series {series_id!r}")
    matches = [r.event.match_id for r in records if isinstance(r.event, SeriesMatchAdded)]
    return Series(series_id, records[0].event, records[-1].version, matches)


def check_can_add(series: Series, game_name: str, players: list[str] | None, now_us: int,
                  progress: Sequence[Progress]) -> list[str]:
    """The seat order for the series' next match, or why no match may start now.

    ``progress``: where each of the series' matches stands. By the series-order
    RULING a match is created only once every earlier one has ended (its match points
    given), and the seats rotate by the matches ended, not by those created."""
    if game_name != series.created.game:
        raise AppError(f"series {series.id} is a {series.created.game} series, not {game_name}")
    if now_us >= series.deadline_us:
        raise AppError(
            f"series {series.id} ended at {fmt_time(series.deadline_us)}: no match starts after its deadline"
        )
    if now_us < series.created.starts_at_us:
        raise AppError(f"series {series.id} starts at {fmt_time(series.created.starts_at_us)}")
    running = next((p for p in progress if not p.over), None)
    if running is not None:
        where = f"deal {running.deal}" if running.deal else "not dealt yet"
        raise AppError(f"series {series.id}: match {running.match} is still in progress ({where}): "
                       "its next match starts once it has ended")
    expected = series.seat_order(sum(p.over for p in progress))
    if players is not None and players != expected:
        if sorted(players) == sorted(expected):
            raise AppError(
                f"series {series.id}: the seat markers pass left, so this match seats {','.join(expected)}"
            )
        raise AppError(f"series {series.id} is played by {', '.join(series.created.players)}")
    return expected


def list_series(store: EventStore, *, game: str | None = None, player: str | None = None,
                status: str | None = None) -> list[dict[str, Any]]:
    """Every series (``series list``, ``GET /series``), earliest start first: id, game,
    status, start, deadline, minutes, matches and players; ``game`` a registry name.
    A series is upcoming before its start, running until its deadline and ended after
    it, judged by the newest recorded event's time (as ``series show`` does)."""
    newest = store.newest_recorded_at()
    rows = []
    for stream in store.streams(SERIES_PREFIX):
        s = load_series(store, stream.removeprefix(SERIES_PREFIX))
        state = ("upcoming" if newest < s.created.starts_at_us
                 else "ended" if newest >= s.deadline_us else "running")
        if (game and s.created.game != game) or (player and player not in s.created.players) \
                or (status and state != status):
            continue
        rows.append({"series": s.id, "game": s.created.game, "status": state,
                     "starts_at": fmt_time(s.created.starts_at_us), "deadline": fmt_time(s.deadline_us),
                     "minutes": s.created.minutes, "matches": len(s.match_ids),
                     "players": list(s.created.players), "_start": s.created.starts_at_us})
    rows.sort(key=lambda r: (r.pop("_start"), r["series"]))
    return rows


class SeriesRow(msgspec.Struct):
    player: str
    matches: int = 0
    finished: int = 0
    match_points: int = 0
    fouls: int = 0
    foul_mp: int = 0
    total: int = 0


class SeriesReport(msgspec.Struct):
    series: str
    game: str
    players: list[str]
    minutes: int
    starts_at: str
    deadline: str
    ended: bool
    matches: list[dict[str, Any]]
    standings: list[SeriesRow]


def series_report(store: EventStore, series_id: str, *, refreshed: bool = False) -> SeriesReport:
    """Series standings from the projections.

    ``ended`` compares the deadline with the newest recorded event time in the
    database, so a replayed or imported series reads the same."""
    status, result_rows = queries.series_results(store, series_id, refreshed=refreshed)
    series = load_series(store, series_id)
    foul_mp = get_game(series.created.game).foul_series_mp
    rows = {p: SeriesRow(p) for p in series.created.players}
    listed = []
    newest = store.newest_recorded_at()
    for r in result_rows:
        row = rows.setdefault(r.player, SeriesRow(r.player))
        row.matches += 1
        row.finished += r.final
        row.match_points += r.match_points if r.match_points is not None else r.placement_points
        row.fouls += r.fouls
    for row in rows.values():
        row.foul_mp = -foul_mp * row.fouls
        row.total = row.match_points + row.foul_mp
    for i, mid in enumerate(series.match_ids):
        listed.append({"match": mid, "seats": series.seat_order(i), "status": status.get(mid, "in_progress")})
    return SeriesReport(
        series=series_id, game=series.created.game, players=series.created.players,
        minutes=series.created.minutes, starts_at=fmt_time(series.created.starts_at_us),
        deadline=fmt_time(series.deadline_us), ended=newest >= series.deadline_us, matches=listed,
        standings=sorted(rows.values(), key=lambda r: (-r.total, r.player)),
    )
