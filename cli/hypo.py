"""``kartludo hypo``: hypotheticals from any recorded moment, and bot rollouts."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, echo_json, pass_env
from kartludo.cli.matches import echo_legal, legal_options


@click.group()
def hypo() -> None:
    """Hypotheticals: continue a recorded deal otherwise, from any step (TD material).

    A hypothetical is its own hash-chained stream; it never counts in standings,
    ratings, series or the match list.

    \b
    Example:
        h=$(kartludo hypo new 3f9c --deal 2 --step 14 --label "had bob passed")
        kartludo hypo act $h --as bob pass
        kartludo hypo rollout $h --n 200 --seed 1
    """


@hypo.command("new")
@click.argument("match_id", metavar="MATCH")
@click.option("--deal", type=int, required=True, help="The deal (as numbered by `replay`).")
@click.option("--step", "k", type=int, required=True,
              help="Start after this step of the deal (`replay`'s numbers); 0: as dealt, before anyone acted.")
@click.option("--label", default="", help="What the hypothetical asks (recorded).")
@click.option("--by", default="td", show_default=True, help="Who made it (recorded).")
@pass_env
def new(env: Env, match_id: str, deal: int, k: int, label: str, by: str) -> None:
    """Start a hypothetical from step K of deal N of MATCH; prints only its id.

    \b
    Example:
        h=$(kartludo hypo new 3f9c --deal 2 --step 14)
    """
    from kartludo.app.hypotheticals import hypothetical as hy

    click.echo(hy.create(env.store, match_id, deal, k, label=label, by=by))


@hypo.command("act", context_settings={"ignore_unknown_options": True})
@click.argument("hypo_id", metavar="H")
@click.option("--as", "player", required=True, help="The player giving the command.")
@click.argument("verb")
@click.argument("args", nargs=-1)
@pass_env
def act(env: Env, hypo_id: str, player: str, verb: str, args: tuple[str, ...]) -> None:
    """Give one command in hypothetical H as PLAYER: VERB [ARG…] (the match's verbs).

    A refused command prints the rule it breaks, exits 1 and writes nothing.

    \b
    Example:
        kartludo hypo act 5e1d --as ann discard R5
    """
    from kartludo.app.hypotheticals import hypothetical as hy

    played = hy.act(env.store, hypo_id, player, verb, args)
    h = hy.load(env.store, played.hypothetical)
    for line in hy.describe_played(h, played, h.seat_of(player)):
        click.echo(line)
    scores = h.deal_scores()
    if scores is not None:
        click.echo("deal settled: " + ", ".join(f"{p} {v:+d}" for p, v in scores.items()))


@hypo.command("legal")
@click.argument("hypo_id", metavar="H")
@legal_options
@pass_env
def legal(env: Env, hypo_id: str, player: str, every: bool, fmt: str) -> None:
    """List what PLAYER may do now in hypothetical H, as `kartludo legal` does for a
    match (the same options and output).

    \b
    Example:
        kartludo hypo legal 5e1d --as bob
        kartludo hypo legal 5e1d --as bob --all
    """
    from kartludo.app.hypotheticals import hypothetical as hy

    h = hy.load(env.store, hypo_id)
    commands = hy.legal(h, player)
    echo_legal(h.game, hy.next_state(h), h.seat_of(player), commands, every=every, fmt=fmt)


@hypo.command("state")
@click.argument("hypo_id", metavar="H")
@click.option("--as", "player", help="Show what PLAYER may see.")
@click.option("--all", "all_hands", is_flag=True, help="Show every hand (the default: a TD's view).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the fields of `state --json`, and the origin).")
@pass_env
def state(env: Env, hypo_id: str, player: str | None, all_hands: bool, as_json: bool) -> None:
    """Show hypothetical H now: every hand, or one player's view.

    \b
    Example:
        kartludo hypo state 5e1d --as ann --json
    """
    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.engine.base import ALL

    if player and all_hands:
        raise click.UsageError("use either --as PLAYER or --all")
    h = hy.load(env.store, hypo_id)
    viewer = h.seat_of(player) if player else ALL
    if as_json:
        echo_json(hy.state_json(env.store, h, viewer))
        return
    s = h.started
    click.echo(f"hypothetical {h.id} · {h.game.title} · match {s.match} deal {s.deal} step {s.step}"
               + (" · settled" if h.settled else ""))
    click.echo(h.game.render(h.match.state, viewer))


@hypo.command("replay")
@click.argument("hypo_id", metavar="H")
@click.option("--as", "player", help="Show what PLAYER may see (default: every hand).")
@pass_env
def replay(env: Env, hypo_id: str, player: str | None) -> None:
    """Print hypothetical H step by step: its moment, then each of its own moves.

    \b
    Example:
        kartludo hypo replay 5e1d
    """
    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.engine.base import ALL

    h = hy.load(env.store, hypo_id)
    for line in hy.replay_lines(h, h.seat_of(player) if player else ALL):
        click.echo(line)


@hypo.command("list")
@click.argument("match_id", metavar="[MATCH]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_env
def list_(env: Env, match_id: str | None, as_json: bool) -> None:
    """List hypotheticals (of MATCH): id, origin, moves, settled deal scores.

    \b
    Example:
        kartludo hypo list 3f9c
    """
    from kartludo.app.hypotheticals import hypothetical as hy

    rows = hy.list_hypotheticals(env.store, match_id)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        scores = r["deal_scores"]
        result = ("settled " + ", ".join(f"{p} {v:+d}" for p, v in scores.items())) if scores is not None \
            else "in play"
        label = f"  {r['label']}" if r["label"] else ""
        click.echo(f"{r['hypothetical']}  {r['game']:<16} match {r['match']} deal {r['deal']} step {r['step']:<4} "
                   f"{r['moves']} moves  {result}  {r['rollouts']} rollouts{label}")



@hypo.command("rollout")
@click.argument("hypo_id", metavar="H")
@click.option("--n", "n", type=int, default=200, show_default=True, help="Rollouts to play (at most 10,000).")
@click.option("--bots", type=click.Choice(["heuristic", "random"]), default="heuristic", show_default=True,
              help="The bot every seat plays.")
@click.option("--seed", type=int, help="Reproducible rollouts (default: the OS's CSPRNG, not reproducible).")
@click.option("--hidden", type=click.Choice(["actual", "resample"]), default="actual", show_default=True,
              help="actual: the unseen cards stay where they were; resample: dealt afresh each time, "
                   "consistent with what every seat had seen.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@pass_env
def rollout(env: Env, hypo_id: str, n: int, bots: str, seed: int | None, hidden: str, fmt: str) -> None:
    """Play hypothetical H's deal to its settlement N times with bots; print per
    player the mean, p10, p50 and p90 of the deal's score and each distinct outcome's
    frequency. The summary is recorded on H's stream (one event).

    \b
    Example:
        kartludo hypo rollout 5e1d --n 200 --seed 1 --hidden resample --format json
    """
    import sys

    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.hypotheticals import rollouts as ro
    ro.check_request(n, hidden, seed)
    h = hy.load(env.store, hypo_id)
    if sys.stderr.isatty():  # the bar on stderr: stdout stays the result alone (`--format json > f`)
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"{n} rollouts", total=n)
            result = ro.rollout(h, n, bots=bots, seed=seed, hidden=hidden,
                                progress=lambda k: bar.advance(task, k))
    else:
        result = ro.rollout(h, n, bots=bots, seed=seed, hidden=hidden)
    ro.record(env.store, result)
    if fmt == "json":
        echo_json(ro.result_json(result))  # a stand-in bot's note in the document
        return
    if result.note:
        click.echo(f"note: {result.note}", err=True)
    click.echo(f"{n} rollouts of hypothetical {h.id} ({bots} bots, hidden cards {hidden}"
               + (f", seed {seed}" if seed is not None else "") + ")")
    click.echo(f"{'player':<12} {'mean':>8} {'p10':>5} {'p50':>5} {'p90':>5}")
    for p, st in result.players.items():
        click.echo(f"{p:<12} {st['mean']:>+8.2f} {st['p10']:>+5d} {st['p50']:>+5d} {st['p90']:>+5d}")
    click.echo("outcomes:")
    for o in result.outcomes:
        share = 100 * o["count"] / n
        click.echo(f"  {o['count']:>6} ({share:5.1f}%)  " + ", ".join(f"{p} {v:+d}" for p, v in o["scores"].items()))
