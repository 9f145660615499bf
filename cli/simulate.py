"""``kartludo simulate``: bots play whole matches through the normal command path."""

from __future__ import annotations

import sys

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.output import DOCUMENT, output_options

#: bounds of a simulation's numbers, refused at the edge with a usage error (exit 2): seeds as
#: every seed (``app.matches.SEED_LIMIT``); matches and deals so a typo cannot run for days
SEEDS = click.IntRange(0, 2**63 - 1)
MATCHES = click.IntRange(1, 100_000)
MAX_DEALS = click.IntRange(1, 10_000)


@click.command()
@click.argument("game")
@click.option("--matches", type=MATCHES, default=10, show_default=True, help="Matches per game (at most 100,000).")
@click.option("--seed", type=SEEDS, default=0, show_default=True, help="Seed of the whole simulation (0 to 2^63-1).")
@click.option("--bots", help="Bots by seat, cycled, e.g. random,heuristic (default: heuristic).")
@click.option("--max-deals", type=MAX_DEALS, default=60, show_default=True,
              help="Stop a match that has not ended after this many deals.")
@output_options(formats=DOCUMENT)
@pass_env(writes=True)
def simulate(env: Env, game: str, matches: int, seed: int, bots: str | None, max_deals: int, fmt: str) -> None:
    """Play MATCHES matches of GAME (or `all` games) with bots.

    Shows a progress bar on a terminal and ends with one summary line.

    \b
    Example:
        kartludo simulate uxinjo --matches 20 --seed 1 --bots random,heuristic
    """
    from kartludo.app.matches import MatchService
    from kartludo.app.simulate import simulate as run
    from kartludo.engine.registry import game_names, get_game

    games = game_names() if game == "all" else [get_game(game).name]
    service = MatchService(env.store)
    names = [b.strip() for b in bots.split(",")] if bots else None
    total = matches * len(games)
    if sys.stderr.isatty() and fmt != "json":
        from rich.progress import Progress

        with Progress(transient=True) as progress:
            task = progress.add_task(f"simulating {', '.join(games)}", total=total)
            summary = run(service, games, matches, seed=seed, bots=names, max_deals=max_deals,
                          on_match=lambda n: progress.advance(task, n))
    else:
        summary = run(service, games, matches, seed=seed, bots=names, max_deals=max_deals)
    if fmt == "json":
        echo_json(summary)
    else:
        click.echo(summary.line())
