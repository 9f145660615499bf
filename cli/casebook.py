"""``kartludo audit casebook`` and ``audit annotate``: the published cases and the
hearing's comments (thin: the logic is in ``app.casebook`` and ``app.audit.hearing``)."""

from __future__ import annotations

from pathlib import Path

import click

from kartludo.cli.context import Env, pass_env


@click.command()
@click.option("--game", help="Only rulings in matches of this game.")
@click.option("--match", "match_id", help="Only rulings of this match (any unique id prefix).")
@click.option("--format", "fmt", type=click.Choice(["html", "md"]), default="html", show_default=True,
              help="html: self-contained pages (inline SVG and CSS, open from disk); md: Markdown with SVG files.")
@click.option("-o", "--output", "out", required=True, type=click.Path(file_okay=False),
              help="The folder to write (index, cases/, rules/).")
@pass_env
def casebook(env: Env, game: str | None, match_id: str | None, fmt: str, out: str) -> None:
    """Write the casebook: one page per penalty ruling (the deal diagram when ruled,
    every hand in compass layout; the facts; the rule with its link; the appeal and
    decision; the deal's hypotheticals with their rollout summaries; the hearing's
    annotations) and an index. A ruling whose deal is still being played is left
    out (listed as not published).

    \b
    Example:
        kartludo audit casebook -o casebook
        kartludo audit casebook --game uxinjo --format md -o cases-md
    """
    from kartludo.app.audit.trail import list_rulings
    from kartludo.app.casebook.cases import write

    written, skipped = write(env.store, Path(out), fmt, rulings=list_rulings(env.store, match_id), game=game)
    for s in skipped:
        click.echo(f"not published: {s.id}: {s.reason}")
    click.echo(f"wrote {len(written)} case pages and {Path(out) / ('index.' + fmt)}")


@click.command()
@click.argument("ruling")
@click.option("--by", required=True, help="Who comments: a player of the match, or a TD by a live TD token's label.")
@click.option("--event", "position", required=True, type=click.IntRange(min=1),
              help="The event commented on: its position (#N in `audit show`), an event of the ruled deal.")
@click.option("--text", required=True, help="The comment (at most 500 characters).")
@pass_env(writes=True)
def annotate(env: Env, ruling: str, by: str, position: int, text: str) -> None:
    """Attach a short comment to an event of RULING's deal. It is stored in the
    hearing's own stream (never the match's) and shows in `audit show` and the
    casebook.

    \b
    Example:
        kartludo audit annotate 3f9c/uxinjo-d2-Su --by td-mia --event 41 --text "the split was legal here"
    """
    from kartludo.app.audit.hearing import annotate as run
    from kartludo.app.audit.trail import resolve_ruling

    a = run(env.store, resolve_ruling(env.store, ruling), by, position, text)
    click.echo(f"annotated event #{a.position} (step {a.step}) by {a.by}")
