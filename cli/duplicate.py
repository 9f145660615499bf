"""Duplicate play: the same boards at many tables, each result compared on its board."""

from __future__ import annotations

from typing import Any

import click

from kartludo.cli.context import CommandError, Env, pass_env
from kartludo.cli.output import emit, output_options


@click.group()
def duplicate() -> None:
    """Duplicate play: every table plays the same boards from the same seats, and each
    result counts only against the other tables' results on that board (matchpoints:
    2 per table beaten, 1 per tie, as a percentage).

    A board at a table is a match of its own (one deal: nothing carries from board to
    board); the players' commands go to it as to any match (`act`, `state`, `legal`),
    and when its deal ends the table's next board starts by itself. A board's deck and
    every table's result on it stay hidden from the players until every table has
    played it.

    \b
    Example:
        e=$(kartludo duplicate new --game uxinjo --boards 8 --tables "ann,bob,cy;dee,eve,fay;gus,hal,ida")
        kartludo duplicate show $e
        kartludo duplicate traveller $e --board 3
        kartludo duplicate standings $e --format csv
    """


@duplicate.command("new")
@click.option("--game", required=True)
@click.option("--boards", type=click.IntRange(1, 64), required=True, help="Boards (a deck each), 1 to 64.")
@click.option("--tables", required=True,
              help='The tables, separated by ";", each its players in seat order, separated by ",".')
@click.option("--seed", type=int, help="Derive the boards' decks from this seed (a reproducible event; the seed "
                                       "stays secret until every board has been played).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option, for every board.")
@click.option("--label", default="", help="A name for the event (shown by list and show).")
@pass_env(writes=True)
def duplicate_new(env: Env, game: str, boards: int, tables: str, seed: int | None, options: tuple[str, ...],
                  label: str) -> None:
    """Create a duplicate event, start board 1 at every table, and print only its id.

    Board k seats each table's players turned k - 1 places (the dealing seat goes
    round), the same way at every table, so a seat holds the same cards everywhere.

    \b
    Example:
        e=$(kartludo duplicate new --game hakamo --boards 6 --tables "ann,bob,cy,dee;eve,fay,gus,hal" --seed 7)
    """
    from kartludo.app.duplicate.boards import create_duplicate, parse_tables
    from kartludo.app.matches.pipeline import MatchService

    given: dict[str, str] = {}
    for text in options:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{text!r} is not KEY=VALUE", param_hint="--option")
        given[key.strip()] = value.strip()
    click.echo(create_duplicate(MatchService(env.store), game, parse_tables(tables), boards, seed=seed,
                                options=given, actor="cli", label=label))


def _load(env: Env, text: str) -> Any:
    from kartludo.app.duplicate.boards import load_duplicate, resolve_duplicate

    return load_duplicate(env.store, resolve_duplicate(env.store, text))


@duplicate.command("show")
@click.argument("duplicate_id", metavar="EVENT")
@output_options(formats=("text", "json"))
@pass_env
def duplicate_show(env: Env, duplicate_id: str, fmt: str) -> None:
    """The event's progress: boards × tables (played, playing, waiting), each table's
    board in play with its match and who is to act. EVENT is any unique prefix of its id.

    \b
    Example:
        kartludo duplicate show 5e1f --json
    """
    from kartludo.app.duplicate.scores import progress
    from kartludo.app.matches.pipeline import MatchService

    dup = _load(env, duplicate_id)
    rows = progress(MatchService(env.store), dup)
    played = sum(1 for r in rows for b in r["boards"] if b["status"] == "played")
    if fmt == "json":
        from kartludo.cli.context import echo_json

        created = dup.created
        echo_json({"duplicate": dup.id, "game": created.game, "label": created.label, "boards": dup.boards,
                   "tables": rows, "commitments": created.commitments,
                   "played": played, "total": dup.boards * dup.tables})
        return
    title = f"duplicate {dup.id} · {dup.created.game}" + (f" · {dup.created.label}" if dup.created.label else "")
    click.echo(f"{title} · {dup.boards} boards × {dup.tables} tables · {played} of {dup.boards * dup.tables} "
               "played")
    mark = {"played": "done", "playing": "play", "waiting": "-"}
    width = max(4, len(str(dup.boards)) + 1)
    click.echo("table  " + "".join(f"{'b' + str(k):>{width + 1}}" for k in range(1, dup.boards + 1)))
    for r in rows:
        click.echo(f"{r['table']:>5}  " + "".join(f"{mark[b['status']]:>{width + 1}}" for b in r["boards"]))
    for r in rows:
        playing = next((b for b in r["boards"] if b["status"] == "playing"), None)
        if playing is None:
            done = all(b["status"] == "played" for b in r["boards"])
            click.echo(f"table {r['table']}: {'every board played' if done else 'waiting'}")
        else:
            click.echo(f"table {r['table']}: board {playing['board']} · match {playing['match']} · seats "
                       f"{','.join(r['seats'])} · {playing['phase']}"
                       + (f" · to act: {', '.join(playing['to_act'])}" if playing["to_act"] else ""))


TRAVELLER_COLUMNS = ["table", "seat", "player", "score", "matchpoints", "top", "percentage", "difference"]


@duplicate.command("traveller")
@click.argument("duplicate_id", metavar="EVENT")
@click.option("--board", type=int, required=True, help="The board (from 1).")
@output_options
@pass_env
def duplicate_traveller(env: Env, duplicate_id: str, board: int, fmt: str) -> None:
    """Every table's result on one board, seat by seat, with its matchpoints (2 per
    table beaten at that seat, 1 per tie) and difference from the seat's mean. On the
    command line (a TD's tool) it shows a board still being played at some table too,
    compared among the tables that have played it, and the board's deck.

    \b
    Example:
        kartludo duplicate traveller 5e1f --board 3
    """
    import msgspec

    from kartludo.app.duplicate.scores import traveller
    from kartludo.app.matches.pipeline import MatchService

    dup = _load(env, duplicate_id)
    if not 1 <= board <= dup.boards:
        raise CommandError(f"duplicate {dup.id} has boards 1 to {dup.boards}, not {board}")
    t = traveller(MatchService(env.store), dup, board, td=True)
    rows = [{"table": tr.table, **msgspec.to_builtins(r)} for tr in t.tables for r in tr.results]
    state = "played at every table" if t.complete else f"played at {len(t.tables)} of {dup.tables} tables"
    better = "higher" if t.higher_is_better else "lower"
    emit(fmt, TRAVELLER_COLUMNS, rows, title=f"duplicate {dup.id} · board {board} · {state}",
         empty="no table has played this board yet", json_data=t,
         notes=[f"score: the game's own total after the board ({better} is better); percentage: matchpoints "
                "of the top at that seat", f"commitment {t.commitment}"])


STANDINGS_COLUMNS = ["rank", "player", "table", "boards", "matchpoints", "top", "percentage", "difference"]


@duplicate.command("standings")
@click.argument("duplicate_id", metavar="EVENT")
@output_options
@pass_env
def duplicate_standings(env: Env, duplicate_id: str, fmt: str) -> None:
    """The event's standings: each player's matchpoints over the boards every table has
    played, as a percentage of the top, ranked by it (then by the summed difference).

    \b
    Example:
        kartludo duplicate standings 5e1f --format csv
    """
    import msgspec

    from kartludo.app.duplicate.scores import standings
    from kartludo.app.matches.pipeline import MatchService

    dup = _load(env, duplicate_id)
    s = standings(MatchService(env.store), dup)
    emit(fmt, STANDINGS_COLUMNS, msgspec.to_builtins(s.rows), json_data=s,
         title=f"duplicate {dup.id} · {dup.created.game} · {s.boards_complete} of {s.boards} boards played "
               "at every table", empty="no player")


@duplicate.command("list")
@output_options
@pass_env
def duplicate_list(env: Env, fmt: str) -> None:
    """Every duplicate event: id, game, label, boards, tables, boards played at every table.

    \b
    Example:
        kartludo duplicate list --json
    """
    from kartludo.app.duplicate.boards import board_complete, list_duplicates
    from kartludo.app.matches.pipeline import MatchService

    svc = MatchService(env.store)
    rows = [{"duplicate": d.id, "game": d.created.game, "label": d.created.label, "boards": d.boards,
             "tables": d.tables, "complete": sum(1 for k in range(1, d.boards + 1) if board_complete(svc, d, k))}
            for d in list_duplicates(env.store)]
    emit(fmt, ["duplicate", "game", "label", "boards", "tables", "complete"], rows, empty="no duplicate event")
