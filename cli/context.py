"""What every command shares: the opened store, error reporting and output."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

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


_pass_env = click.make_pass_decorator(Env)


def pass_env(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the ``Env``, after refusing any argument that is not text: bytes
    the terminal's encoding could not decode reach Python as lone surrogates, which
    no store, hash or encoder takes."""

    @_pass_env
    @functools.wraps(command)
    def run(env: Env, *args: Any, **kwargs: Any) -> Any:
        for name, value in [*kwargs.items(), *(("argument", a) for a in args)]:
            for text in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(text, str) and any("\ud800" <= c <= "\udfff" for c in text):
                    raise CommandError(f"{name.replace('_', '-')} is not valid UTF-8 text: {_raw(text)}")
        return command(env, *args, **kwargs)

    return run


def _raw(text: str) -> str:
    """Text with undecodable bytes shown as the bytes they were."""
    try:
        return repr(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return repr(text.encode("utf-8", "backslashreplace"))


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
