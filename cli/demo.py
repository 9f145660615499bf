"""``kartludo demo``: the one-command tour on a fresh folder."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, pass_env


@click.command()
@click.option("--matches", type=click.IntRange(min=1), default=6, show_default=True, help="Matches per game.")
@click.option("--seed", type=int, default=2026, show_default=True)
@pass_env
def demo(env: Env, matches: int, seed: int) -> None:
    """Simulate a small league in every game, then print the standings and one
    deal replayed step by step.

    \b
    Example:
        kartludo demo
    """
    from kartludo.app.league import standings
    from kartludo.app.matches import MatchService
    from kartludo.app.replay import steps
    from kartludo.app.simulate import simulate
    from kartludo.engine.base import ALL
    from kartludo.engine.registry import game_names

    service = MatchService(env.store)
    games = game_names()
    click.echo(f"database: {env.store.url}")
    summary = simulate(service, games, matches, seed=seed)
    click.echo(f"simulated {summary.line()}")
    all_matches = service.list()
    for game in games:
        rows = standings(all_matches, game)
        click.echo("")
        click.echo(f"standings · {game}")
        click.echo(f"  {'player':<8} {'matches':>7} {'wins':>5} {'score':>6} {'placement':>9}")
        for row in rows:
            click.echo(f"  {row.player:<8} {row.matches:>7} {row.wins:>5} {row.score:>6} {row.placement_points:>9}")
    first = summary.match_ids[0]
    match = service.load(first)
    click.echo("")
    click.echo(f"replay · match {first} ({match.game.title}) deal 1, all hands")
    last = None
    for step in steps(service.records(first), 1, ALL):
        click.echo(f"  {step.index:>3}. {step.description}")
        last = step
    if last is not None:
        click.echo("")
        click.echo(match.game.render(last.state, ALL))
    click.echo("")
    click.echo(f"next: kartludo match list · kartludo state {first[:6]} --all · kartludo verify")
