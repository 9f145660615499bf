"""Errors of the application layer, reported by the CLI (and later the service)
as one line naming the problem."""

from __future__ import annotations

# the match aggregate, below the application, raises these: they are defined beside it
from kartludo.engine.match import AppError, NotAllowed, UnknownMatch, UnknownPlayer

__all__ = ["AmbiguousMatch", "AppError", "CommandConflict", "InvalidInput", "NotAllowed", "TooMuchContention",
           "UnknownMatch", "UnknownPlayer", "check_text"]


class AmbiguousMatch(AppError):
    pass


class TooMuchContention(AppError):
    """A command kept losing the race for its match (see ``MatchService.max_retries``)."""


class CommandConflict(AppError):
    """An idempotency key reused by its caller for a different request: nothing was written."""


def check_text(what: str, text: str, limit: int, *, empty: bool = False) -> None:
    """Free text as recorded: not blank (unless ``empty`` allows ""), at most ``limit``
    characters, no control characters but tab and line breaks (PostgreSQL's text
    refuses NUL, and an actor column holds 200 characters)."""
    if not text.strip() and not (empty and not text):
        raise AppError(f"{what} is empty")
    if len(text) > limit:
        raise AppError(f"{what} is {len(text)} characters long: at most {limit}")
    bad = next((c for c in text if (ord(c) < 32 and c not in "\t\n\r") or ord(c) == 127), None)
    if bad is not None:
        raise AppError(f"{what} holds the control character {bad!r}")


class InvalidInput(AppError):
    """A request the application cannot read (e.g. a view that names nobody): nothing was written."""
