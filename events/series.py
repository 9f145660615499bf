"""Events of a time-limited series (stream ``series-<id>``)."""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class SeriesCreated(Event, frozen=True, kw_only=True, tag="series.created"):
    """A series of matches of one game among ``players`` (seat order of its first
    match), open from ``starts_at_us`` for ``minutes``. Deadlines are judged by
    events' recorded times, never by the clock of whoever reads them."""

    game: str
    players: list[str]
    minutes: int
    starts_at_us: int





class SeriesMatchAdded(Event, frozen=True, kw_only=True, tag="series.match-added"):
    """A match joined the series, in the same transaction as its ``MatchCreated``:
    the series stream's version orders its matches (the seat rotation)."""

    match_id: str
    players: list[str]
series_decoder = register_union(SeriesCreated, SeriesMatchAdded)
