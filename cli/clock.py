"""``kartludo clock``: a match's clocks: show them, apply due flag falls, and a TD's
extra time and pauses."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.output import DOCUMENT, output_options


@click.group()
def clock() -> None:
    """Match clocks (`match new --clock 5m+10s`): show, sweep, add time, pause, resume.

    Clocks are folded from the events' recorded times; a flag fall is a ruling
    (`audit list`), appended by the server or by `clock sweep`.

    \b
    Example:
        kartludo clock show 3f9c
        kartludo clock sweep
        kartludo clock add 3f9c --seat ann --time 60s --by td1 --reason "phone call"
    """


def _match(env: Env, match_id: str) -> str:
    from kartludo.app.matches.pipeline import MatchService

    return MatchService(env.store).resolve(match_id)


@clock.command("show")
@click.argument("match_id", metavar="MATCH")
@output_options(formats=DOCUMENT)
@pass_env
def show(env: Env, match_id: str, fmt: str) -> None:
    """Show MATCH's clocks now (each seat's remaining time; ▶ the seat running).

    \b
    Example:
        kartludo clock show 3f9c --json
    """
    from kartludo.app.errors import AppError
    from kartludo.app.matches import clock as clocks

    mid = _match(env, match_id)
    reading = clocks.reading(env.store, mid)
    if reading is None:
        raise AppError(f"match {mid} has no clock")
    if fmt == "json":
        echo_json(reading)
    else:
        click.echo(clocks.line(env.store, mid))


@clock.command("sweep")
@click.option("--match", "match_id", help="Only this match (default: every running match with a clock).")
@pass_env(writes=True)
def sweep(env: Env, match_id: str | None) -> None:
    """Apply the flag falls that are due, without a server: each one a ruling with the
    times as facts, the seat's turn played by the game's heuristic bot. Safe beside a
    running server: each is appended at the version it was decided on, so none is
    applied twice.

    \b
    Example:
        kartludo clock sweep
    """
    from kartludo.app.matches import clock as clocks
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.events.match import FlagFall

    svc = MatchService(env.store)
    if match_id:
        mid = svc.resolve(match_id)
        done = [(mid, r) for r in clocks.apply_due(svc, mid) if isinstance(r.event, FlagFall)]
    else:
        done = clocks.sweep(svc)
    for mid, rec in done:
        event = rec.event
        assert isinstance(event, FlagFall)
        click.echo(f"{mid}/{event.ruling_id}: flag fall, {event.facts.get('player')} "
                   f"(fell at {event.facts.get('flag_fell_at')})")
    if not done:
        click.echo("no flag fall is due")


def _td_options(command):  # type: ignore[no-untyped-def]
    command = click.option("--reason", required=True, help="Why (recorded).")(command)
    return click.option("--by", required=True, help="The TD (the label of a live TD token).")(command)


@clock.command("add")
@click.argument("match_id", metavar="MATCH")
@click.option("--seat", "player", required=True, help="The player who gets the time.")
@click.option("--time", "amount", required=True, help="How much, e.g. 60s, 2m.")
@_td_options
@pass_env(writes=True)
def add(env: Env, match_id: str, player: str, amount: str, by: str, reason: str) -> None:
    """A TD gives a seat more time (an event, with who and why).

    \b
    Example:
        kartludo clock add 3f9c --seat ann --time 60s --by td1 --reason "the lights went out"
    """
    from kartludo.app.matches import clock as clocks

    mid = _match(env, match_id)
    event = clocks.add_time(env.store, mid, player, amount, by=by, reason=reason, named=True)
    click.echo(f"{by} gives {player} {clocks.duration_text(event.amount_us)}: {reason}")


@clock.command("pause")
@click.argument("match_id", metavar="MATCH")
@_td_options
@pass_env(writes=True)
def pause(env: Env, match_id: str, by: str, reason: str) -> None:
    """A TD stops every clock of MATCH until `clock resume`.

    \b
    Example:
        kartludo clock pause 3f9c --by td1 --reason "dispute at the table"
    """
    from kartludo.app.matches import clock as clocks

    mid = _match(env, match_id)
    clocks.pause(env.store, mid, by=by, reason=reason, named=True)
    click.echo(f"{by} pauses the clocks of {mid}: {reason}")


@clock.command("resume")
@click.argument("match_id", metavar="MATCH")
@_td_options
@pass_env(writes=True)
def resume(env: Env, match_id: str, by: str, reason: str) -> None:
    """A TD restarts the clocks of a paused MATCH.

    \b
    Example:
        kartludo clock resume 3f9c --by td1 --reason "settled"
    """
    from kartludo.app.matches import clock as clocks

    mid = _match(env, match_id)
    clocks.pause(env.store, mid, by=by, reason=reason, resume=True, named=True)
    click.echo(f"{by} resumes the clocks of {mid}: {reason}")
