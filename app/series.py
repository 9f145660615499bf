"""Time-limited series: creating them, adding matches, and their standings.

Series as the project implements them (Uxinjo's §6.x): players total match points
within the time limit, those of a game that scores them (its ``Result.match_points``)
or else placement match points; every foul costs the game's ``foul_series_mp``
(Uxinjo: 2 MP); after each match the seats pass to the left, so the next match's
first seat is the previous match's second; no match starts after the deadline, and a
match running at the deadline ends with the deal in progress and is scored as it
stands then. Deadlines are judged by the events' recorded times, never by the clock
of whoever reads them.
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

    def seat_order(self, index: int) -> list[str]:
        """Players in seat order for the series' ``index``-th match (0-based): the
        markers pass left after each match, so each match starts one seat on."""
        players = self.created.players
        k = index % len(players)
        return players[k:] + players[:k]


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
) -> str:
    from kartludo.app.matches import check_players

    game = get_game(game_name)
    players = list(players)
    check_players(game, players)
    if not 1 <= minutes <= MAX_MINUTES:
        raise BadCommand(f"a series lasts at least 1 minute and at most {MAX_MINUTES} (a year), not {minutes}")
    series_id = series_id or os.urandom(5).hex()
    start = store.clock() if starts_at_us is None else starts_at_us
    check_start(start)
    event = SeriesCreated(game=game.name, players=players, minutes=minutes, starts_at_us=start)
    store.append(series_stream(series_id), [event], 0, actor=actor)
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


def check_can_add(series: Series, game_name: str, players: list[str] | None, now_us: int) -> list[str]:
    """The seat order for the series' next match, or why no match may start now."""
    if game_name != series.created.game:
        raise AppError(f"series {series.id} is a {series.created.game} series, not {game_name}")
    if now_us >= series.deadline_us:
        raise AppError(
            f"series {series.id} ended at {fmt_time(series.deadline_us)}: no match starts after its deadline"
        )
    if now_us < series.created.starts_at_us:
        raise AppError(f"series {series.id} starts at {fmt_time(series.created.starts_at_us)}")
    expected = series.seat_order(len(series.match_ids))
    if players is not None and players != expected:
        if sorted(players) == sorted(expected):
            raise AppError(
                f"series {series.id}: the seat markers pass left, so this match seats {','.join(expected)}"
            )
        raise AppError(f"series {series.id} is played by {', '.join(series.created.players)}")
    return expected


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
