"""``kartludo demo``: the one-command tour on a fresh folder.

It fills an empty database only: run twice on the same one it would add a second
league to the first, so it refuses, naming ``--fresh`` (start the SQLite file over)
and ``--db`` (another database). Besides the simulated league it plays one scripted
Uxinjo deal with a foul, appeals the ruling and has a TD uphold it, so `audit list`
has a trail to show. Its closing hints are commands that run as printed.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import sys
from typing import Any

import click

from kartludo.cli.context import CommandError, Env, pass_env, sqlite_file
from kartludo.cli.simulate import MATCHES, SEEDS

DEFAULT_DB = "sqlite:///kartludo.db"
#: the scripted club night: its players, the player who fouls appeals, this TD decides
CLUB_NIGHT = ["ann", "bob", "cy"]
TD = "td-mia"


@click.command()
@click.option("--matches", type=MATCHES, default=6, show_default=True, help="Matches per game (at most 100,000).")
@click.option("--seed", type=SEEDS, default=2026, show_default=True, help="Seed of the whole demo (0 to 2^63-1).")
@click.option("--fresh", is_flag=True,
              help="Delete this SQLite database file first and start over (never on PostgreSQL).")
@pass_env(writes=True)
def demo(env: Env, matches: int, seed: int, fresh: bool) -> None:
    """Simulate a small league in every game, play one Uxinjo deal with a foul that
    is appealed and upheld by a TD, then print the standings, the audit trail and one
    deal replayed step by step.

    The demo needs an empty database; on one that holds events it refuses (run it
    with --fresh to start the SQLite file over, or give another --db).

    \b
    Example:
        kartludo demo
        kartludo --db sqlite:///tour.db demo --matches 3
    """
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import simulate
    from kartludo.engine.bots import HEURISTIC, stand_in
    from kartludo.engine.registry import game_names, get_game

    if fresh:
        _start_over(env)
    held = env.store.count_events()
    if held:
        raise CommandError(
            f"{env.store.url} already holds {held:,} events (an earlier demo?): a second demo would add another "
            f"league to them. Look at it with `{_prefix(env)} standings`, start over with "
            f"`{_prefix(env)} demo --fresh`, or use another database: `{_prefix(env, None)} --db "
            "sqlite:///demo2.db demo`")
    service = MatchService(env.store)
    games = game_names()
    click.echo(f"database: {env.store.url}")
    summary = simulate(service, games, matches, seed=seed)
    click.echo(f"simulated {summary.line()}")
    for name in games:
        note = stand_in(get_game(name), [HEURISTIC])
        if note:
            click.echo(f"  note: {note}")
    ruled = _club_night(env, service, seed)
    _standings(env, games)
    _audit(env, ruled)
    _replay(service, summary.match_ids[0])
    k = _prefix(env)
    click.echo("")
    click.echo("next (each runs as printed):")
    for line in [f"{k} standings --game svoi-kozyri", f"{k} audit list",
                 f"{k} audit show {ruled[:6]}/{ruled.split('/', 1)[1]}",
                 f"{k} replay {summary.match_ids[0][:6]} --deal 1",
                 f"{k} match list --status finished", f"{k} verify"]:
        click.echo(f"  {line}")
    click.echo(f"in a browser: {k} serve, then http://127.0.0.1:8000/ui/replay/{summary.match_ids[0]}?deal=1")


def _start_over(env: Env) -> None:
    """Delete the SQLite file (and its WAL files) so the demo starts on an empty one."""
    path = sqlite_file(env.db_url)
    if path is None:
        raise CommandError(f"--fresh deletes a SQLite file; {env.db_url} is not one: empty that database "
                           "yourself or give the demo another --db")
    env.close()
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if leftover.exists():
            leftover.unlink()
    click.echo(f"note: deleted {path} to start the demo over", err=True)


def _club_night(env: Env, service: Any, seed: int) -> str:
    """One Uxinjo match: the first player draws and declares munt on a hand that
    forms no two combinations (a foul), appeals the ruling, and a TD upholds it; the
    bots then play the match out. Returns the ruling's audit id."""
    from kartludo.app.audit.rulings import appeal, decide
    from kartludo.app.audit.trail import list_rulings, resolve_ruling
    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.cli.matches import describe_outcome
    from kartludo.engine.base import PUBLIC

    rng = random.Random(f"{seed}:club-night")
    match_id = service.create("uxinjo", CLUB_NIGHT, seed=rng.getrandbits(32), actor="demo")
    click.echo("")
    click.echo(f"club night · Uxinjo match {match_id} · {', '.join(CLUB_NIGHT)}")
    rulings: list[Any] = []
    for _ in range(10):  # a munt on the first hand drawn is all but always a foul; if it wins, deal again
        service.deal(match_id, actor="demo")
        match = service.load(match_id)
        player = match.players[match.game.to_act(match.state)[0]]
        for verb in ("draw", "munt"):
            before = service.load(match_id)
            outcome = service.act(match_id, player, verb, ())
            for line in describe_outcome(before, outcome, PUBLIC):
                click.echo(f"  {line}")
        rulings = list_rulings(env.store, match_id)
        if rulings:
            break
    else:
        raise CommandError(f"the demo's scripted deal in match {match_id} made no foul (try another --seed)")
    ruling = rulings[0]
    appeal(env.store, ruling, ruling.player, "I thought my six cards made two combinations")
    click.echo(f"  {ruling.player} appeals ruling {ruling.id}")
    decide(env.store, ruling, TD, "uphold", "the six cards shown form no two combinations: a foul")
    decided = resolve_ruling(env.store, ruling.id)
    click.echo(f"  {TD} decides: {decided.status}")
    play_match(service, "uxinjo", CLUB_NIGHT, pick_bots("uxinjo", None), rng, match_id=match_id)
    click.echo(f"  the bots play the match out: {service.load(match_id).status}")
    return ruling.id


def _standings(env: Env, games: list[str]) -> None:
    from kartludo.app.league.standings import PROVISIONAL_BELOW, standings
    from kartludo.app.league.standings_table import standing_rows, table_cells
    from kartludo.cli.output import render_table, table_width
    from kartludo.engine.registry import get_game

    general: list[str] = []
    for game in games:
        columns, rows, notes = standing_rows(standings(env.store, game), game, "rating", PROVISIONAL_BELOW)
        columns = [c for c in columns if c not in ("provisional", "mu", "sigma")]
        click.echo("")
        click.echo(f"standings · {get_game(game).title}")
        shown = [table_cells(r) for r in rows]
        for line in render_table(columns, [[r[c] for c in columns] for r in shown], width=table_width() - 2):
            click.echo(f"  {line}")
        click.echo(f"  {notes[1]}")  # what this game's total counts, and which way is better
        general = [notes[0], *notes[2:]]
    click.echo("")
    for note in general:
        click.echo(note)


def _audit(env: Env, ruling_id: str) -> None:
    from kartludo.app.audit.trail import resolve_entry

    record = resolve_entry(env.store, ruling_id)
    click.echo("")
    click.echo(f"audit trail · ruling {record.id} ({record.status})")
    click.echo(f"  {record.player}, deal {record.deal}: {record.rule}")
    for h in record.history:
        click.echo(f"  {h['kind']:<9} by {h['by']}: {h['reason']}")


def _replay(service: Any, match_id: str) -> None:
    from kartludo.app.reading.replay import Navigator, build
    from kartludo.engine.base import ALL

    replay = build(match_id, service.records(match_id), 1)
    click.echo("")
    click.echo(f"replay · match {match_id} ({replay.game.title}) deal 1, all hands")
    for step in replay.steps:
        click.echo(f"  {step.index:>3}. {replay.description(step.index, ALL)}")
    click.echo("")
    click.echo(Navigator(replay, ALL, len(replay.steps)).screen())


def _prefix(env: Env, db: str | None = "") -> str:
    """The command as the user can type it now: ``kartludo`` when that is on PATH,
    else the path they ran it by (``.venv/bin/kartludo``), with ``--db`` unless the
    database is the default or KARTLUDO_DB's (``db=None``: never)."""
    program = "kartludo"
    invoked = sys.argv[0] if sys.argv else ""
    if os.path.basename(invoked) == "kartludo" and os.path.dirname(invoked):
        on_path = shutil.which("kartludo")
        if on_path is None or os.path.realpath(on_path) != os.path.realpath(invoked):
            program = invoked if not os.path.isabs(invoked) else _shorter(invoked)
    if db is None or env.db_url in (DEFAULT_DB, os.environ.get("KARTLUDO_DB")):
        return program
    return f"{program} --db {shlex.quote(env.db_url)}"


def _shorter(path: str) -> str:
    """An absolute path, relative to the current folder when that is shorter."""
    relative = os.path.relpath(path)
    return relative if len(relative) < len(path) else path
