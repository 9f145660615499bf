"""Time-limited series: their settings and how many matches each has."""

from __future__ import annotations

from collections import Counter
from typing import Any

import sqlalchemy as sa

from kartludo.events.series import SeriesCreated, SeriesMatchAdded
from kartludo.events.streams import SERIES_PREFIX
from kartludo.projections.runner import Item, Projection, dumps
from kartludo.projections.schema import series

_ADD = sa.update(series).where(series.c.series_id == sa.bindparam("b_series_id")).values(
    matches=series.c.matches + sa.bindparam("b_added"))


class SeriesProjection(Projection):
    name = "series"
    tables = (series,)
    about = "time-limited series and their matches"

    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        created: dict[str, dict[str, Any]] = {}
        added: Counter[str] = Counter()  # matches added to series created before this batch
        for rec, step in items:
            if step is not None:  # a match's event: never a series'
                continue
            event = rec.event
            if isinstance(event, SeriesCreated):
                sid = rec.stream_id[len(SERIES_PREFIX):]
                created[sid] = dict(
                    series_id=sid, game=event.game, players=dumps(event.players), minutes=event.minutes,
                    starts_at_us=event.starts_at_us, deadline_us=event.starts_at_us + event.minutes * 60_000_000,
                    matches=0,
                )
            elif isinstance(event, SeriesMatchAdded):
                sid = rec.stream_id[len(SERIES_PREFIX):]
                if sid in created:
                    created[sid]["matches"] += 1
                else:
                    added[sid] += 1
        if created:
            conn.execute(sa.insert(series), list(created.values()))
        if added:
            conn.execute(_ADD, [{"b_series_id": sid, "b_added": n} for sid, n in added.items()])
