"""League commands: standings, series, projections."""

from __future__ import annotations

import csv
import sys
from typing import Any

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env


def _table(headers: list[str], rows: list[list[Any]], title: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, h in enumerate(headers):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*["" if v is None else str(v) for v in row])
    Console(width=max(100, sum(len(h) + 3 for h in headers) + 20)).print(table)


@click.command()
@click.option("--game", help="Only this game (default: across all games).")
@click.option("--series", "series_id", help="A series' standings (same as `series show`).")
@click.option("--sort", type=click.Choice(["rating", "matches", "wins", "score", "placement", "player"]),
              default="rating", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@pass_env
def standings(env: Env, game: str | None, series_id: str | None, sort: str, fmt: str) -> None:
    """League standings from every finished match: matches, wins, places, the
    game's own totals, placement points and an openskill rating.

    \b
    Example:
        kartludo standings --game uxinjo
        kartludo standings --format csv > league.csv
    """
    if series_id:
        from kartludo.app.series import resolve_series

        return _show_series(env, resolve_series(env.store, series_id), fmt)
    from kartludo.app.standings import standings as compute

    rows = compute(env.store, game, sort)
    if fmt == "json":
        echo_json(rows)
        return
    headers = ["player", "matches", "wins", "places", "score", "placement", "rating", "mu", "sigma"]
    data = [[r.player, r.matches, r.wins, " ".join(f"{k}:{v}" for k, v in sorted(r.places.items())),
             r.score, r.placement_points, f"{r.rating:.2f}{'*' if r.provisional else ''}", f"{r.mu:.2f}",
             f"{r.sigma:.2f}"] for r in rows]
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(headers[:-3] + ["rating", "provisional", "mu", "sigma"])
        for r in rows:
            writer.writerow([r.player, r.matches, r.wins, " ".join(f"{k}:{v}" for k, v in sorted(r.places.items())),
                             "" if r.score is None else r.score, r.placement_points, r.rating,
                             int(r.provisional), r.mu, r.sigma])
        return
    title = f"standings · {game or 'all games'}"
    _table(headers, data, title)
    click.echo("* provisional: fewer than 5 matches; rating = mu - 3 sigma (openskill Plackett-Luce)")


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
@pass_env
def series_new(env: Env, game: str, players: str, minutes: int, starts_at: str | None) -> None:
    """Create a series and print only its id.

    \b
    Example:
        s=$(kartludo series new --game uxinjo --players ann,bob,cy --minutes 90 --starts-at 2026-12-01T18:00Z)
    """
    from kartludo.app.series import create_series, parse_time

    names = [p.strip() for p in players.split(",") if p.strip()]
    start = parse_time(starts_at) if starts_at else None
    click.echo(create_series(env.store, game, names, minutes, starts_at_us=start, actor="cli"))


@series.command("show")
@click.argument("series_id", metavar="SERIES")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@pass_env
def series_show(env: Env, series_id: str, fmt: str) -> None:
    """A series' standings (MP, −2 MP per Uxinjo foul) and its matches.

    \b
    Example:
        kartludo series show 5e1f
    """
    from kartludo.app.series import resolve_series

    _show_series(env, resolve_series(env.store, series_id), fmt)


def _show_series(env: Env, series_id: str, fmt: str) -> None:
    from kartludo.app.series import series_report

    report = series_report(env.store, series_id)
    if fmt == "json":
        echo_json(report)
        return
    headers = ["player", "matches", "finished", "MP", "fouls", "foul MP", "total"]
    data = [[r.player, r.matches, r.finished, r.match_points, r.fouls, r.foul_mp, r.total] for r in report.standings]
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(headers)
        writer.writerows(data)
        return
    state = "ended" if report.ended else "running"
    _table(headers, data, f"series {report.series} · {report.game} · {report.starts_at} → {report.deadline} ({state})")
    for i, m in enumerate(report.matches, 1):
        click.echo(f"  match {i}: {m['match']}  {m['status']:<12} seats {','.join(m['seats'])}")


@click.group()
def projections() -> None:
    """Read models: their checkpoints, and rebuilding them from the log.

    \b
    Example:
        kartludo projections status
        kartludo projections rebuild audit
    """


@projections.command("status")
@click.option("--json", "as_json", is_flag=True)
@pass_env
def projections_status(env: Env, as_json: bool) -> None:
    """Each projection's checkpoint (global position) and lag behind the log.

    \b
    Example:
        kartludo projections status
    """
    from kartludo.projections import all_projections
    from kartludo.projections.runner import status

    rows = status(env.store, all_projections())
    if as_json:
        echo_json([{"name": n, "checkpoint": c, "lag": lag} for n, c, lag in rows])
        return
    for name, position, lag in rows:
        click.echo(f"{name:<10} checkpoint {position:>9}  lag {lag}")


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
