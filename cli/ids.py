"""Ids as a TD types them: any unique prefix, of a match or a series, for the
commands that take a stream (``events export``); an ambiguous one is refused
naming the candidates."""

from __future__ import annotations

from typing import Any


def resolve_stream(store: Any, text: str) -> str:
    """A stream id from itself, or from a unique prefix of a match's or a series' id
    (with or without ``match-`` / ``series-``)."""
    from kartludo.app.errors import AmbiguousMatch, UnknownMatch
    from kartludo.app.league.series import resolve_series
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.events.streams import MATCH_PREFIX, SERIES_PREFIX

    if store.stream_version(text):
        return text
    found: list[str] = []
    if not text.startswith(SERIES_PREFIX):
        try:
            found.append(MATCH_PREFIX + MatchService(store).resolve(text))
        except UnknownMatch:  # (an ambiguous prefix raises AmbiguousMatch, naming the candidates)
            pass
    if not text.startswith(MATCH_PREFIX):
        try:
            found.append(SERIES_PREFIX + resolve_series(store, text))
        except UnknownMatch:  # (an ambiguous prefix raises AmbiguousMatch, naming the candidates)
            pass
    if len(found) > 1:
        raise AmbiguousMatch(f"id {text!r} is ambiguous: {', '.join(found)}")
    if not found:
        raise UnknownMatch(f"no stream, match or series {text!r} in {store.url}")
    return found[0]
