"""What every command shares: the opened store, error reporting and output."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


class Env:
    """Per-invocation state: the database URL and the store, opened on first use.

    A SQLite file that does not exist is a mistyped ``--db`` as often as a new
    database: a command that only reads refuses it, naming the file; a command that
    writes (``pass_env(writes=True)``) creates it and says so once, on stderr."""

    def __init__(self, db_url: str, read_urls: list[str] | None = None, read_max_lag: float = 2.0) -> None:
        self.db_url = db_url
        self.read_urls = read_urls or []
        self.read_max_lag = read_max_lag
        self.writes = False
        self._store: Any = None
        self._router: Any = None

    def read(self, run: Callable[[Any], Any]) -> Any:
        """``run(store)`` for a read of events: on a replica (``--read-db``) caught up
        within ``--read-max-lag`` and with this process's own writes, else (or if the
        replica fails meanwhile, or does not know the match yet) on the primary; without
        --read-db, on the store."""
        if not self.read_urls or self.writes:  # a command that writes reads its writes on the primary
            return run(self.store)
        from kartludo.app.errors import UnknownMatch

        return self.router().read(run, client=self, behind=(UnknownMatch,))

    def read_models(self, run: Callable[[Any, bool], Any]) -> Any:
        """``run(store, refreshed)`` for a read of the projections (standings, lists, the
        audit trail). Without --read-db: ``run(store, False)``, the query bringing them up
        to date itself. With it: brought up to date on the primary, then ``run(store,
        True)`` on a replica that has replayed past the primary's WAL position after
        that catch-up (within ``--read-max-lag``), else on the primary."""
        if not self.read_urls or self.writes:
            return run(self.store, False)
        from kartludo.projections import refresh

        refresh(self.store)
        router = self.router()
        fence = router.primary_lsn(since=router.clock())
        return router.read(lambda store: run(store, True), client=self, fence=fence)

    def router(self) -> Any:
        if self._router is None:
            from kartludo.store.replicas import ReadRouter

            self._router = ReadRouter(self.store, self.read_urls, max_lag=self.read_max_lag)
        return self._router

    @property
    def store(self) -> Any:
        if self._store is None:
            from kartludo.store import EventStore

            created = self.check_file()
            self._store = EventStore.open(self.db_url)
            if created:
                self.say_created(created)
        return self._store

    def check_file(self) -> Path | None:
        """The SQLite file this command is about to create (None: it exists, or the
        database is not a SQLite file); refuses a missing one for a reading command."""
        path = sqlite_file(self.db_url)
        try:
            if path is None or path.exists() or not path.resolve().parent.is_dir():
                return None  # (a missing folder: opening the store names it)
        except OSError as exc:  # a name the file system refuses (too long, …): one line, no traceback
            raise CommandError(f"cannot use the database file {path}: {exc.strerror or exc}") from None
        if not self.writes:
            raise CommandError(
                f"no database file {path} (database URL {self.db_url}, from --db or KARTLUDO_DB): is the path "
                "right? A command that only reads never creates one; `kartludo db upgrade` does")
        return path

    @staticmethod
    def say_created(path: Path) -> None:
        click.echo(f"note: created a new SQLite database {path}", err=True)

    def close(self) -> None:
        if self._router is not None:
            self._router.close()
            self._router = None
        if self._store is not None:
            self._store.close()
            self._store = None


def sqlite_file(url: str) -> Path | None:
    """The file behind a ``sqlite:///FILE`` URL (None for other databases, memory,
    or a URL that does not parse: opening it reports that)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" \
            or database.startswith("file:"):
        return None
    return Path(database).expanduser()


_pass_env = click.make_pass_decorator(Env)


def pass_env(command: Callable[..., Any] | None = None, *, writes: bool = False) -> Any:
    """Give a command the ``Env``, after refusing any argument that is not text: bytes
    the terminal's encoding could not decode reach Python as lone surrogates, which
    no store, hash or encoder takes. ``writes=True``: the command may create a
    missing SQLite file (see ``Env``)."""
    if command is None:
        return functools.partial(pass_env, writes=writes)

    @_pass_env
    @functools.wraps(command)
    def run(env: Env, *args: Any, **kwargs: Any) -> Any:
        for name, value in [*kwargs.items(), *(("argument", a) for a in args)]:
            for text in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(text, str) and any("\ud800" <= c <= "\udfff" for c in text):
                    raise CommandError(f"{name.replace('_', '-')} is not valid UTF-8 text: {_raw(text)}")
        env.writes = writes
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
    failed = _database_failure(exc)
    if failed is not None:  # a driver's error from outside the store's own calls (the read models, snapshots)
        return CommandError(str(failed))
    if isinstance(exc, OSError) and exc.filename is not None:
        # a file named on the command line that the system refuses (no such folder, a name too long, …)
        return CommandError(f"cannot use the file {exc.filename}: {exc.strerror or exc}")
    return None


def echo_json(data: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")


def _database_failure(exc: BaseException) -> Exception | None:
    """The store error a driver's error means (a database down, a full disk, a damaged
    file: ``store.database.as_store_error``), for the command's database; None if none."""
    from kartludo.store.database import as_store_error, normalise_url

    ctx = click.get_current_context(silent=True)
    env = ctx.find_object(Env) if ctx is not None else None
    if env is None:
        return None
    try:
        return as_store_error(exc, normalise_url(env.db_url))
    except Exception:  # noqa: BLE001 - a URL that does not parse: nothing to add
        return None
