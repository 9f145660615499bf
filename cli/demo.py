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
    from kartludo.app.matches import MatchService
    from kartludo.app.replay import Navigator, build
    from kartludo.app.simulate import simulate
    from kartludo.app.standings import standings
    from kartludo.engine.base import ALL
    from kartludo.engine.registry import game_names, get_game

    service = MatchService(env.store)
    games = game_names()
    click.echo(f"database: {env.store.url}")
    summary = simulate(service, games, matches, seed=seed)
    click.echo(f"simulated {summary.line()}")
    for game in games:
        rows = standings(env.store, game)
        click.echo("")
        click.echo(f"standings · {get_game(game).title}")
        click.echo(f"  {'player':<8} {'matches':>7} {'wins':>5} {'score':>6} {'placement':>9} {'rating':>8}")
        for r in rows:
            flag = "*" if r.provisional else " "
            click.echo(f"  {r.player:<8} {r.matches:>7} {r.wins:>5} {r.score:>6} {r.placement_points:>9} "
                       f"{r.rating:>7.2f}{flag}")
    click.echo("  (* provisional rating: fewer than 5 matches)")
    first = summary.match_ids[0]
    replay = build(first, service.records(first), 1)
    click.echo("")
    click.echo(f"replay · match {first} ({replay.game.title}) deal 1, all hands")
    for step in replay.steps:
        click.echo(f"  {step.index:>3}. {replay.description(step.index, ALL)}")
    click.echo("")
    click.echo(Navigator(replay, ALL, len(replay.steps)).screen())
    click.echo("")
    click.echo(f"next: kartludo standings · kartludo replay {first[:6]} --deal 1 · kartludo audit list · "
               "kartludo verify")
    click.echo(f"in a browser: kartludo serve, then http://127.0.0.1:8000/ui/replay/{first}?deal=1")
