"""The ``kartludo`` command: a thin layer over the library.

Subcommands are imported only when run, so ``kartludo --help`` starts without
importing SQLAlchemy, Alembic or any game.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

#: command name -> (module, attribute, one-line help shown by ``kartludo --help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("kartludo.cli.demo", "demo", "A simulated league with a foul, an appeal and a TD ruling."),
    "db": ("kartludo.cli.db", "db", "Upgrade the schema; status: what a database holds."),
    "match": ("kartludo.cli.matches", "match", "Create matches, start deals, list matches."),
    "act": ("kartludo.cli.matches", "act", "Give one command in a match as a player."),
    "state": ("kartludo.cli.matches", "state", "Show a match now (one player's view, public, or all hands)."),
    "legal": ("kartludo.cli.matches", "legal", "List the commands a player may give now."),
    "watch": ("kartludo.cli.watch", "watch", "How watchers (no token) see a match: live or delayed (a TD's)."),
    "simulate": ("kartludo.cli.simulate", "simulate", "Play whole matches with bots through the command path."),
    "standings": ("kartludo.cli.league", "standings", "League standings with ratings, per game or across games."),
    "series": ("kartludo.cli.league", "series", "Time-limited series: create, list, show."),
    "projections": ("kartludo.cli.league", "projections", "Read models: status and rebuild."),
    "duplicate": ("kartludo.cli.duplicate", "duplicate", "Duplicate play: the same boards at many tables, scored "
                  "across them."),
    "clock": ("kartludo.cli.clock", "clock", "Match clocks: show, sweep due flag falls, a TD's time and pauses."),
    "replay": ("kartludo.cli.replay", "replay", "Replay a deal step by step (interactive on a terminal)."),
    "audit": ("kartludo.cli.audit", "audit", "Penalty rulings: list, show, appeal, decide, recheck."),
    "hypo": ("kartludo.cli.hypo", "hypo", "Hypotheticals from any recorded moment; bot rollouts."),
    "verify": ("kartludo.cli.integrity", "verify", "Check every stream's hash chain and re-fold every match."),
    "events": ("kartludo.cli.transfer", "events", "Export or import the event log as JSON Lines."),
    "serve": ("kartludo.cli.serve", "serve", "Serve the match API over HTTP (Litestar on uvicorn)."),
    "token": ("kartludo.cli.tokens", "token", "API bearer tokens: issue (optionally expiring), revoke."),
    "key": ("kartludo.cli.keys", "key", "The seal key (outside the database): create it, show its public half."),
    "seal": ("kartludo.cli.keys", "seal", "Record a signed head of the log; --print shows it to write down."),
}


class LazyGroup(click.Group):
    """A group whose subcommands live in modules imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str, str]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module, attr, _ = self.lazy[name]
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, name)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:  # (`kartludo --help | head` prints while the arguments are parsed)
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            _quiet_stdout()
            raise click.exceptions.Exit(0) from None

    def invoke(self, ctx: click.Context) -> Any:
        from kartludo.cli.context import as_click_error

        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except BrokenPipeError:  # `kartludo replay … | head`: the reader has all it wanted
            _quiet_stdout()
            raise click.exceptions.Exit(0) from None
        except Exception as exc:
            error = as_click_error(exc)
            if error is None:
                raise
            raise error from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy:
                rows.append((name, self.lazy[name][2]))
            else:
                cmd = super().get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(formatter.width)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_url",
    envvar="KARTLUDO_DB",
    default="sqlite:///kartludo.db",
    show_default=True,
    metavar="URL",
    help="Database URL: sqlite:///FILE or postgresql://USER@HOST/DB (env KARTLUDO_DB).",
)
@click.option(
    "--read-db",
    "read_dbs",
    multiple=True,
    metavar="URL",
    help="A PostgreSQL hot standby of --db that serves reads (replays, events, live streams, "
         "standings, match and series lists, the audit trail); repeat for "
         "several, or list them in env KARTLUDO_READ_DB (comma- or space-separated). A reader still sees its "
         "own writes; a lagging or unreachable replica is skipped.",
)
@click.option(
    "--read-max-lag",
    type=click.FloatRange(0, 3600),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Skip a replica further behind the primary than this.",
)
@click.version_option(package_name="kartludo")
@click.pass_context
def cli(ctx: click.Context, db_url: str, read_dbs: tuple[str, ...], read_max_lag: float) -> None:
    """kartludo: an event-sourced match service for Uxinjo, Hakamo,
    Laugavatnsmanni and Svoi Kozyri.

    Every action is an event in a SQL store; every state is a fold of events.

    \b
    Example:
        kartludo demo
        kartludo --db postgresql://postgres@127.0.0.1/test db upgrade
    """
    from kartludo.cli.context import Env
    from kartludo.store.replicas import read_urls_from_env

    ctx.obj = Env(db_url, read_urls_from_env(read_dbs), read_max_lag)
    ctx.call_on_close(ctx.obj.close)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null once its reader has gone: a closed pipe is not an error,
    and what is still buffered must not fail again when Python flushes it at exit (click
    itself would exit 1 on EPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test's captured output)
        pass


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    try:
        cli.main(args=argv, prog_name="kartludo")
    except BrokenPipeError:  # e.g. `kartludo replay … | head`, met outside a command
        _quiet_stdout()
        sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
