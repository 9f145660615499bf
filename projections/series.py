"""Time-limited series: their settings and how many matches each has."""

from __future__ import annotations

import sqlalchemy as sa

from kartludo.events.series import SeriesCreated, SeriesMatchAdded
from kartludo.projections.runner import MatchStep, Projection, dumps
from kartludo.projections.schema import series
from kartludo.store import Recorded

SERIES_PREFIX = "series-"


class SeriesProjection(Projection):
    name = "series"
    tables = (series,)
    about = "time-limited series and their matches"

    def apply(self, conn: sa.Connection, rec: Recorded, step: MatchStep | None) -> None:
        event = rec.event
        if isinstance(event, SeriesCreated):
            conn.execute(sa.insert(series).values(
                series_id=rec.stream_id[len(SERIES_PREFIX):], game=event.game, players=dumps(event.players),
                minutes=event.minutes, starts_at_us=event.starts_at_us,
                deadline_us=event.starts_at_us + event.minutes * 60_000_000, matches=0,
            ))
        elif isinstance(event, SeriesMatchAdded):
            conn.execute(sa.update(series).where(series.c.series_id == rec.stream_id[len(SERIES_PREFIX):])
                         .values(matches=series.c.matches + 1))
