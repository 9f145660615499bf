"""Ids as people type them: any unique prefix of a stream's id names it (one rule for
matches, series and hypotheticals)."""

from __future__ import annotations

from kartludo.app.errors import AmbiguousMatch, UnknownMatch
from kartludo.store import EventStore

#: longer than any id this service makes: refused before a store is asked
ID_LIMIT = 100


def resolve_prefix(store: EventStore, stream_prefix: str, text: str, noun: str, *, hint: str = "") -> str:
    """The id (without ``stream_prefix``) of the one ``stream_prefix`` stream whose id
    is ``text`` or starts with it (``text`` may carry the prefix); ``hint`` follows a
    "no such" message."""
    prefix = text.removeprefix(stream_prefix)
    if not prefix:
        raise UnknownMatch(f"no {noun} id given")
    if len(prefix) > ID_LIMIT:
        raise UnknownMatch(f"no {noun} {prefix[:40]!r}…")
    found = [s.removeprefix(stream_prefix) for s in store.streams(stream_prefix + prefix)]
    if not found:
        raise UnknownMatch(f"no {noun} {prefix!r}{hint}")
    if prefix in found:
        return prefix
    if len(found) > 1:
        shown = ", ".join(found[:5]) + (" …" if len(found) > 5 else "")
        raise AmbiguousMatch(f"{noun} id {prefix!r} is ambiguous: {shown}")
    return found[0]
