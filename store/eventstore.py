"""The append-only event store: one row per event, hash-chained per stream.

``EventStore`` stacks three layers, a module each, so that each concern reads on its
own: ``connections`` (the pool, the driver, a connection per call), ``reading``
(streams, the global order, raw rows) and ``appending`` (reading below it: a refused
append reads what the stream holds). ``envelope`` is what one stored event is. This
module keeps exporting every name callers import from it.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.engine import Engine

from kartludo.store.appending import MAX_ROWS_PER_TRANSACTION, Appending
from kartludo.store.connections import Exclusive
from kartludo.store.database import create_engine, ensure_ready
from kartludo.store.envelope import (
    _COLUMNS,
    GENESIS,
    TEXT_LIMIT,
    Appended,
    Recorded,
    chain_hash,
    check_envelope,
    now_us,
)
from kartludo.store.reading import SETTLE_SECONDS, UNBOUNDED

#: the names callers import from here, wherever they are defined now
__all__ = [
    "_COLUMNS", "GENESIS", "MAX_ROWS_PER_TRANSACTION", "SETTLE_SECONDS", "TEXT_LIMIT", "UNBOUNDED",
    "Appended", "EventStore", "Exclusive", "Recorded", "chain_hash", "check_envelope", "now_us",
]


class EventStore(Appending):
    """Append, read and verify event streams in one SQL database."""

    def __init__(self, engine: Engine, *, clock: Callable[[], int] = now_us) -> None:
        super().__init__(engine)
        self.clock = clock
        self._heads = {}
        self._origins = {}
        self.sealer = None

    @classmethod
    def open(cls, url: str, *, create: bool = True, clock: Callable[[], int] = now_us) -> EventStore:
        engine = create_engine(url)
        ensure_ready(engine, create=create)
        store = cls(engine, clock=clock)
        from kartludo.store.chain import AutoSealer, seal_every

        every = seal_every()
        if every:
            store.sealer = AutoSealer(every)
        return store

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
