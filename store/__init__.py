"""The event store: append-only, hash-chained streams in SQLite or PostgreSQL."""

from kartludo.store.errors import (
    ConcurrencyConflict,
    DatabaseNotMigrated,
    DatabaseUnavailable,
    ImportRefused,
    StoreBusy,
    StoreError,
)
from kartludo.store.eventstore import Appended, EventStore, Recorded

__all__ = [
    "Appended",
    "ConcurrencyConflict",
    "DatabaseNotMigrated",
    "DatabaseUnavailable",
    "EventStore",
    "ImportRefused",
    "Recorded",
    "StoreBusy",
    "StoreError",
]
