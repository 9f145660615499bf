"""What a match is given when it is created and keeps for good (whether it is a duplicate
board, whether it runs on a clock): both are written in the transaction that creates the
match and never after, so a long-lived process remembers them per store instead of
reading the match's table stream again on every command."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from kartludo.store import EventStore

T = TypeVar("T")

#: what ``read`` returns when it cannot tell yet (no such match): asked again next time
UNKNOWN: Any = object()

#: matches remembered per store and kind, at most (the oldest are forgotten first)
LIMIT = 65_536

_kept: weakref.WeakKeyDictionary[EventStore, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def remembered(store: EventStore, kind: str, match_id: str, read: Callable[[], T]) -> T:
    """``read()``'s answer for ``match_id``, read once per store and kept (unless it was
    ``UNKNOWN``, which is returned as it is)."""
    key = (kind, match_id)
    with _lock:
        kept = _kept.setdefault(store, {})
        if key in kept:
            found: T = kept[key]
            return found
    value = read()
    if value is not UNKNOWN:
        with _lock:
            if len(kept) >= LIMIT:
                del kept[next(iter(kept))]  # (dicts keep insertion order: the oldest)
            kept[key] = value
    return value
