"""Stream ids: which stream holds what (``match-<id>``, ``series-<id>``).

Defined once, beside the events the streams hold, so every layer (the store's import
checks too) names them alike."""

from __future__ import annotations

MATCH_PREFIX = "match-"
SERIES_PREFIX = "series-"


def match_stream(match_id: str) -> str:
    return MATCH_PREFIX + match_id


def series_stream(series_id: str) -> str:
    return SERIES_PREFIX + series_id


DUPLICATE_PREFIX = "duplicate-"


def duplicate_stream(duplicate_id: str) -> str:
    return DUPLICATE_PREFIX + duplicate_id
