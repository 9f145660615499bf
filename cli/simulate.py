"""``kartludo simulate``: bots play whole matches through the normal command path."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.output import DOCUMENT, output_options

#: bounds of a simulation's numbers, refused at the edge with a usage error (exit 2): seeds as
#: every seed (``app.matches.setup.SEED_LIMIT``); matches and deals so a typo cannot run for days
SEEDS = click.IntRange(0, 2**63 - 1)
MATCHES = click.IntRange(1, 100_000)
MAX_DEALS = click.IntRange(1, 10_000)


@click.command()
@click.argument("game")
@click.option("--matches", type=MATCHES, default=10, show_default=True, help="Matches per game (at most 100,000).")
@click.option("--seed", type=SEEDS, default=0, show_default=True, help="Seed of the whole simulation (0 to 2^63-1).")
@click.option("--bots", help="Bots by seat, cycled, e.g. random,heuristic (default: heuristic; the random bot plays "
                             "for a game without one, and a note says so).")
@click.option("--max-deals", type=MAX_DEALS, default=60, show_default=True,
              help="Stop a match that has not ended after this many deals.")
@click.option("--duplicate", is_flag=True,
              help="Compare the bots by duplicate instead: one event of --boards boards at --tables tables, the "
                   "bots turned one seat per table, so each seat's cards are played by each bot.")
@click.option("--boards", type=click.IntRange(1, 64), default=8, show_default=True,
              help="With --duplicate: boards (a deal each).")
@click.option("--tables", type=click.IntRange(2, 64), default=2, show_default=True,
              help="With --duplicate: tables.")
@click.option("--players", type=click.IntRange(2, 8), help="With --duplicate: players at a table (default: the "
                                                           "fewest the game takes).")
@output_options(formats=DOCUMENT)
@pass_env(writes=True)
def simulate(env: Env, game: str, matches: int, seed: int, bots: str | None, max_deals: int, duplicate: bool,
             boards: int, tables: int, players: int | None, fmt: str) -> None:
    """Play MATCHES matches of GAME (or `all` games) with bots.

    Shows a progress bar on a terminal and ends with one summary line. With
    --duplicate, the bots play one duplicate event of GAME instead (see `kartludo
    duplicate`), and the line gives each bot's matchpoints and the first bot's edge
    over the second per board, on the same cards.

    \b
    Example:
        kartludo simulate uxinjo --matches 20 --seed 1 --bots random,heuristic
        kartludo simulate hakamo --duplicate --boards 16 --tables 2 --bots heuristic,random
    """
    import msgspec

    if duplicate:
        _simulate_duplicate(env, game, seed, bots, boards, tables, players, fmt)
        return
    given = click.get_current_context().get_parameter_source
    for name in ("boards", "tables", "players"):
        if given(name) == click.core.ParameterSource.COMMANDLINE:
            raise click.UsageError(f"--{name} is for a duplicate comparison: add --duplicate")

    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import simulate as run
    from kartludo.engine.bots import HEURISTIC, stand_in
    from kartludo.engine.registry import game_names, get_game

    games = game_names() if game == "all" else [get_game(game).name]
    service = MatchService(env.store)
    names = [b.strip() for b in bots.split(",")] if bots else None
    # said in the document (JSON) or on stderr (text)
    notes = [note for note in (stand_in(get_game(name), names or [HEURISTIC]) for name in games) if note]
    if fmt != "json":
        for note in notes:
            click.echo(f"note: {note}", err=True)
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
        echo_json({**msgspec.to_builtins(summary), "notes": notes} if notes else summary)
    else:
        click.echo(summary.line())


def _simulate_duplicate(env: Env, game: str, seed: int, bots: str | None, boards: int, tables: int,
                        players: int | None, fmt: str) -> None:
    import msgspec

    from kartludo.app.duplicate.simulate import DuplicateSummary, simulate_duplicate
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.engine.bots import HEURISTIC, stand_in
    from kartludo.engine.registry import get_game

    if game == "all":
        raise click.UsageError("--duplicate compares bots on one game: name it (not `all`)")
    names = [b.strip() for b in bots.split(",") if b.strip()] if bots else [HEURISTIC, "random"]
    note = stand_in(get_game(game), names)
    if note and fmt != "json":
        click.echo(f"note: {note}", err=True)
    service = MatchService(env.store)

    def run(on_deal: Callable[[int], None] | None = None) -> DuplicateSummary:
        return simulate_duplicate(service, game, boards=boards, tables=tables, bots=names, seed=seed, seats=players,
                                  on_deal=on_deal)

    if sys.stderr.isatty() and fmt != "json":
        from rich.progress import Progress

        with Progress(transient=True) as progress:
            task = progress.add_task(f"duplicate {game}", total=boards * tables)
            summary = run(lambda n: progress.advance(task, n))
    else:
        summary = run()
    if fmt == "json":
        echo_json({**msgspec.to_builtins(summary), "notes": [note]} if note else summary)
    else:
        click.echo(summary.line())
