"""``kartludo replay``: a deal, step by step."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env
from kartludo.cli.output import DOCUMENT, output_options

if TYPE_CHECKING:
    from kartludo.app.reading.replay import Navigator

HELP = ("keys: n/→/space next · p/← back · t/T end of next/prev turn or trick · r/R next/prev ruling or settlement · "
        "g first · G last · j jump · v all hands/each seat · q quit")


@click.command()
@click.argument("match_id", metavar="MATCH")
@click.option("--deal", type=click.IntRange(min=1), help="Which deal (default: the latest).")
@click.option("--to", "to", type=click.IntRange(min=1), help="Show only step K.")
@click.option("--as", "player", help="Show only what PLAYER could see at each step.")
@output_options(formats=DOCUMENT)
@click.option("--interactive/--no-interactive", default=None,
              help="Step with keys (default: on a terminal, unless --to or --json).")
@click.option("--diagram", type=click.Choice(["svg", "png"]),
              help="Write the deal diagram of step K (default: the last step) to -o FILE instead.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, writable=True),
              help="The diagram's file (with --diagram).")
@pass_env
def replay(env: Env, match_id: str, deal: int | None, to: int | None, player: str | None, fmt: str,
           interactive: bool | None, diagram: str | None = None, out: str | None = None) -> None:
    """Replay a deal of MATCH by folding its stored events, one event per step.

    On a terminal it is interactive (next, back, next turn or trick, next ruling,
    jump, toggle all hands / one seat, quit); otherwise it prints every step, or
    only step K with --to, and exits.

    \b
    Example:
        kartludo replay 3f9c --deal 2 --as bob
        kartludo replay 3f9c --deal 2 --to 14 --json
        kartludo replay 3f9c --deal 2 --to 14 --diagram svg -o d2-14.svg
    """
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.reading.reader import MatchReader
    from kartludo.app.reading.replay import Navigator
    from kartludo.engine.base import ALL

    mid = MatchService(env.store).resolve(match_id)
    # without --as: a TD's view (the seed too); --as: what that seat may see (from the
    # nearest snapshot before the deal)
    read = env.read(lambda store: MatchReader(MatchService(store)).replay(
        mid, lambda m: ALL if player is None else m.seat_of(player), td=player is None, deal=deal))
    rep = read.replay
    viewer = ALL if player is None else rep.match.seat_of(player)
    count = len(rep.steps)
    if to is not None and to > count:
        raise CommandError(f"deal {rep.deal} has {count} steps, not {to}")
    if (diagram is None) != (out is None):
        raise click.UsageError("--diagram svg|png and -o FILE go together")
    if diagram is not None and out is not None:
        from kartludo.cli.diagram import write_diagram

        write_diagram(rep, to or count, viewer, diagram, out)
        return
    wanted = [to] if to else list(range(1, count + 1))
    if fmt == "json":
        import msgspec

        steps = msgspec.to_builtins(read.steps(wanted, viewer))
        echo_json(steps[0] if to else steps)
        return
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty() and to is None
    if not interactive:
        for k in wanted:
            nav = Navigator(rep, viewer, k)
            click.echo(nav.screen())
            click.echo("")
        return
    _interactive(Navigator(rep, viewer))


def _interactive(nav: Navigator) -> None:
    keys = {
        "n": nav.next, " ": nav.next, "\r": nav.next, "\x1b[C": nav.next, "l": nav.next,
        "p": nav.prev, "b": nav.prev, "\x1b[D": nav.prev, "h": nav.prev,
        "t": nav.next_turn, "\x1b[B": nav.next_turn, "]": nav.next_turn,
        "T": nav.prev_turn, "\x1b[A": nav.prev_turn, "[": nav.prev_turn,
        "r": nav.next_ruling, "R": nav.prev_ruling, "g": nav.first, "G": nav.last, "v": nav.toggle_view,
    }
    while True:
        click.clear()
        click.echo(nav.screen())
        click.echo("")
        click.echo(HELP)
        key = click.getchar()
        if key in ("q", "\x1b", "\x03"):
            return
        if key == "j":
            nav.jump(click.prompt("jump to step", type=int, default=nav.k))
        elif key in keys:
            keys[key]()
