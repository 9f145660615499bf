"""What every command shares: the opened store, error reporting and output."""

from __future__ import annotations

import sys
from typing import Any

import click


class Env:
    """Per-invocation state: the database URL and the store, opened on first use."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self._store: Any = None

    @property
    def store(self) -> Any:
        if self._store is None:
            from kartludo.store import EventStore

            self._store = EventStore.open(self.db_url)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


pass_env = click.make_pass_decorator(Env)


class CommandError(click.ClickException):
    """A refused command or bad input: one line on stderr, exit 1, nothing written."""

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def known_errors() -> tuple[type[BaseException], ...]:
    """Errors reported as one line (no traceback): refused commands, bad input,
    unreachable or un-migrated databases."""
    from kartludo.engine.base import BadCommand, IllegalCommand
    from kartludo.events.base import UndecodableEvent, UnknownEventType
    from kartludo.store.errors import StoreError

    errors: list[type[BaseException]] = [StoreError, IllegalCommand, BadCommand, UnknownEventType, UndecodableEvent]
    try:
        from kartludo.app.errors import AppError

        errors.append(AppError)
    except ImportError:  # the app layer arrives with the match pipeline
        pass
    return tuple(errors)


def as_click_error(exc: BaseException) -> CommandError | None:
    if isinstance(exc, known_errors()):
        return CommandError(str(exc))
    return None


def echo_json(data: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")
