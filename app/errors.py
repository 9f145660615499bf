"""Errors of the application layer, reported by the CLI (and later the service)
as one line naming the problem."""

from __future__ import annotations


class AppError(Exception):
    """Bad input at the application level: nothing was written."""


class UnknownMatch(AppError):
    pass


class AmbiguousMatch(AppError):
    pass


class UnknownPlayer(AppError):
    pass


class TooMuchContention(AppError):
    """A command kept losing the race for its match (see ``MatchService.max_retries``)."""


class CommandConflict(AppError):
    """An idempotency key reused by its caller for a different request: nothing was written."""


class NotAllowed(AppError):
    """The caller may not do this (e.g. decide a ruling of a match they play in)."""
