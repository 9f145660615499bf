"""Watch commands: how watchers (the public view, no token) see a match."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.output import DOCUMENT, output_options


@click.group()
def watch() -> None:
    """How watchers (anyone without a token) see a match: live, or delayed.

    \b
    Example:
        kartludo watch set 3f9c --delay 2 --by mia --reason "final table"
        kartludo watch show 3f9c
    """


@watch.command("set")
@click.argument("match_id", metavar="MATCH")
@click.option("--delay", required=True, metavar="DELAY", help="How far behind the table watchers are: 2 (moves: "
              "seats' commands), 30s (seconds; 2min), 0 (live).")
@click.option("--hands", is_flag=True, help="Watchers see every hand, in the delayed view only (needs a delay).")
@click.option("--by", required=True, help="The TD: the label of a live TD token.")
@click.option("--reason", default="", help="Why (recorded).")
@pass_env
def set_(env: Env, match_id: str, delay: str, hands: bool, by: str, reason: str) -> None:
    """Set how watchers see MATCH from now on (a TD's setting, recorded in the match's
    table stream). A bad delay, --hands without a delay or a --by that is no TD is
    refused, naming it, and writes nothing.

    \b
    Example:
        kartludo watch set 3f9c --delay 30s --hands --by mia
        kartludo watch set 3f9c --delay 0 --by mia       # live again
    """
    from kartludo.app.audit.rulings import td_labels
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.watching import event, parse_delay, set_watch

    moves, seconds = parse_delay(delay)
    setting = event(moves, seconds, hands, by, reason)
    mid = MatchService(env.store).resolve(match_id)
    now = set_watch(env.store, mid, setting, tds=td_labels(env.store))
    click.echo(f"match {mid}: watchers see it {_said(now)}")


def _said(now: object) -> str:
    from kartludo.app.watching import Watch

    assert isinstance(now, Watch)
    if not now.delayed:
        return "live (hands hidden while a deal runs)"
    hands = "every hand" if now.hands else "hands hidden while a deal runs"
    return f"delayed by {now.text()} ({hands})"


@watch.command("show")
@click.argument("match_id", metavar="MATCH")
@output_options(formats=DOCUMENT)
@pass_env
def show(env: Env, match_id: str, fmt: str) -> None:
    """How watchers see MATCH now.

    \b
    Example:
        kartludo watch show 3f9c --format json
    """
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.watching import current

    mid = MatchService(env.store).resolve(match_id)
    now = current(env.store, mid)
    if fmt == "json":
        echo_json({"match": mid, **now.json(), "by": now.by})
    else:
        click.echo(f"match {mid}: watchers see it {_said(now)}" + (f" (set by {now.by})" if now.by else ""))
