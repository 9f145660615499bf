"""League commands: standings, series, projections."""

from __future__ import annotations

import click

from kartludo.cli.context import CommandError, Env, pass_env
from kartludo.cli.output import emit, output_options

SORTS = ["rating", "matches", "wins", "score", "placement", "player", "match_points", "points", "losses",
         "placement_points"]


@click.command()
@click.option("--game", help="Only this game (default: across all games).")
@click.option("--series", "series_id", help="A series' standings (same as `series show`; any unique id prefix).")
@click.option("--sort", type=click.Choice(SORTS), default="rating", show_default=True,
              help="Order (and rank) by this column; score is the game's own total (its column's name works too).")
@output_options
@pass_env
def standings(env: Env, game: str | None, series_id: str | None, sort: str, fmt: str) -> None:
    """League standings from every finished match: rank, matches, wins, places, the
    game's own total under its own name (Uxinjo match_points, Hakamo and
    Laugavatnsmanni points, Svoi Kozyri losses: lower is better), placement points,
    fouls and an openskill rating. A legend under the table explains each column.

    \b
    Example:
        kartludo standings --game svoi-kozyri
        kartludo standings --format csv > league.csv
    """
    if series_id:
        return _show_series(env, series_id, fmt)
    from kartludo.app.league.standings import PROVISIONAL_BELOW
    from kartludo.app.league.standings import standings as compute
    from kartludo.app.league.standings_table import SORT_ALIASES, standing_rows, table_cells, total_column
    from kartludo.engine.registry import get_game

    name = get_game(game).name if game else None
    total = total_column(name)
    if sort == "score" and total is None or sort in SORT_ALIASES and sort != "placement_points" \
            and (total is None or total[0] != sort):
        raise click.BadParameter(
            f"{sort!r} is a game's own total: " + (f"in {name} it is {total[0]!r}" if total else
                                                   "give --game (across games the totals do not add up)"),
            param_hint="--sort")
    sort = SORT_ALIASES.get(sort, sort)
    found = env.read_models(lambda store, done: compute(store, name, sort, refreshed=done))
    columns, rows, legend = standing_rows(found, name, sort, PROVISIONAL_BELOW)
    title = f"standings · {get_game(name).title if name else 'all games'}"
    # the table marks a provisional rating with * (the legend says so): its own column goes first when narrow
    emit(fmt, columns, rows, title=title, empty="no finished matches yet", notes=legend, table_cells=table_cells,
         drop=["provisional"])


@click.group()
def series() -> None:
    """Time-limited series: create one, add matches with `match new --series`, show it.

    \b
    Example:
        s=$(kartludo series new --game uxinjo --players ann,bob,cy --minutes 90)
        m=$(kartludo match new uxinjo --series $s)
        kartludo series show $s
    """


@series.command("new")
@click.option("--game", required=True)
@click.option("--players", required=True, help="Player names, comma-separated (seat order of the first match).")
@click.option("--minutes", type=click.IntRange(1, 525_600), required=True,
              help="The time limit, 1 to 525,600 minutes (a year).")
@click.option("--starts-at", help="Start time, ISO 8601 (default: now).")
@click.option("--clock", "clock_text", metavar="BASE+INC", help="Every match's time control, e.g. 5m+10s.")
@click.option("--move-limit", metavar="TIME", help="Every match's limit on each turn, e.g. 60s.")
@click.option("--on-flag", type=click.Choice(["bot", "bot-penalty"]), help="What a flag fall does in every match: "
              "the heuristic bot plays the turn (bot, the default), and the seat pays the game's time penalty "
              "(bot-penalty). Needs --clock or --move-limit.")
@pass_env(writes=True)
def series_new(env: Env, game: str, players: str, minutes: int, starts_at: str | None, clock_text: str | None,
               move_limit: str | None, on_flag: str | None) -> None:
    """Create a series and print only its id. With --clock or --move-limit every match
    of the series is played on that clock (unless `match new` gives its own).

    \b
    Example:
        s=$(kartludo series new --game uxinjo --players ann,bob,cy --minutes 90 --starts-at 2026-12-01T18:00Z)
        s=$(kartludo series new --game hakamo --players a,b,c,d --minutes 120 --clock 5m+10s)
    """
    from kartludo.app.league.series import create_series, parse_time
    from kartludo.app.matches.clock import control_of

    names = [p.strip() for p in players.split(",") if p.strip()]
    start = parse_time(starts_at) if starts_at else None
    control = control_of(clock_text, move_limit, on_flag or "bot", on_flag_given=on_flag is not None)
    click.echo(create_series(env.store, game, names, minutes, starts_at_us=start, actor="cli", clock=control))


@series.command("show")
@click.argument("series_id", metavar="SERIES")
@output_options
@pass_env
def series_show(env: Env, series_id: str, fmt: str) -> None:
    """A series' standings (match_points, fouls, foul_mp: −2 MP per Uxinjo foul,
    total) and its matches. SERIES is any unique prefix of its id.

    \b
    Example:
        kartludo series show 5e1f
    """
    _show_series(env, series_id, fmt)


SERIES_COLUMNS = ["player", "matches", "finished", "match_points", "fouls", "foul_mp", "total"]


def _show_series(env: Env, series_id: str, fmt: str) -> None:
    """``series_id``: any unique prefix."""
    import msgspec

    from kartludo.app.league.series import resolve_series, series_report

    report = env.read_models(lambda store, done: series_report(store, resolve_series(store, series_id),
                                                               refreshed=done))
    rows = msgspec.to_builtins(report.standings)
    state = "ended" if report.ended else "running"
    title = f"series {report.series} · {report.game} · {report.starts_at} → {report.deadline} ({state})"
    matches = [f"match {i}: {m['match']}  {m['status']:<12} seats {','.join(m['seats'])}"
               for i, m in enumerate(report.matches, 1)] or ["no match yet (add one: kartludo match new "
                                                              f"{report.game} --series {report.series})"]
    emit(fmt, SERIES_COLUMNS, rows, title=title, empty="no player yet", json_data=report,
         notes=["match_points: MP from finished and deadline-cut matches (placement points in a game without "
                "MP); foul_mp: what the fouls cost", *matches])


@series.command("list")
@click.option("--game", help="Only series of this game.")
@click.option("--player", help="Only series this player plays in.")
@click.option("--status", type=click.Choice(["running", "ended", "upcoming"]), help="Only series in this state.")
@output_options
@pass_env
def series_list(env: Env, game: str | None, player: str | None, status: str | None, fmt: str) -> None:
    """List series: id, game, status, start, deadline, matches, players.

    A series is upcoming before its start, running until its deadline and ended
    after it (judged by the newest recorded event's time, as `series show` does).

    \b
    Example:
        kartludo series list --status running
    """
    from kartludo.cli.listing import list_series

    rows = env.read(lambda store: list_series(store, game=game, player=player, status=status))
    emit(fmt, ["series", "game", "status", "starts_at", "deadline", "matches", "players"], rows,
         empty="no series found" + (" (filters: " + _filters(game=game, player=player, status=status) + ")"
                                    if game or player or status else ""))


def _filters(**given: str | None) -> str:
    return ", ".join(f"--{k} {v}" for k, v in given.items() if v)


@click.group()
def projections() -> None:
    """Read models: their checkpoints, and rebuilding them from the log.

    \b
    Example:
        kartludo projections status
        kartludo projections rebuild audit
    """


@projections.command("status")
@output_options
@pass_env
def projections_status(env: Env, fmt: str) -> None:
    """Each projection's checkpoint (global position) and lag behind the log.

    \b
    Example:
        kartludo projections status
    """
    from kartludo.projections import all_projections
    from kartludo.projections.runner import status

    rows = [{"name": n, "checkpoint": c, "lag": lag} for n, c, lag in status(env.store, all_projections())]
    emit(fmt, ["name", "checkpoint", "lag"], rows, empty="no projections",
         notes=["checkpoint: the global position read up to; lag: events after it (read commands catch up)"])


@projections.command("rebuild")
@click.argument("name", required=False)
@pass_env
def projections_rebuild(env: Env, name: str | None) -> None:
    """Empty NAME (default: every projection) and rebuild it from the log.

    Safe to interrupt: each batch commits its rows with its checkpoint, and the
    next read command (or rebuild) resumes where it stopped.

    \b
    Example:
        kartludo projections rebuild matches
    """
    from kartludo.projections import all_projections, get_projection
    from kartludo.projections.runner import catch_up, reset

    try:
        chosen = [get_projection(name)] if name else all_projections()
    except LookupError as exc:
        raise CommandError(str(exc)) from None
    for projection in chosen:
        reset(env.store, projection)
    n = catch_up(env.store, chosen)
    click.echo(f"rebuilt {', '.join(p.name for p in chosen)} from {n} events")
