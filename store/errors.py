"""Errors the store raises; each message is one line a user can act on."""

from __future__ import annotations


class StoreError(Exception):
    """Base of store errors the CLI reports without a traceback."""


class ConcurrencyConflict(StoreError):
    """The stream moved on since the caller read it: re-read, re-decide, retry."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"concurrency conflict on stream {stream!r}: expected version {expected}, "
            f"but the stream is at version {actual}"
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


class DatabaseUnavailable(StoreError):
    """The database URL cannot be opened or reached."""


class DiskFull(DatabaseUnavailable):
    """A SQLite write (or the file's opening) found no space left: nothing was written."""


class DatabaseDamaged(DatabaseUnavailable):
    """A SQLite file whose pages do not hold together (``kartludo verify`` names them)."""


class BadSetting(StoreError):
    """A store setting from the environment that cannot be used (``KARTLUDO_POOL_SIZE``)."""


class DatabaseNotMigrated(StoreError):
    """The database exists but its schema is missing or older than this build."""


class StoreBusy(StoreError):
    """Another writer held the database lock for longer than the retry bound."""


class ImportRefused(StoreError):
    """An events file whose content, hash chain or versions do not check out."""


class InvalidValue(StoreError, ValueError):
    """A value one of the backends cannot store (too long, a NUL, not text): refused on
    every backend alike, so that every log moves between them."""
