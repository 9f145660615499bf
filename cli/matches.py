"""Match commands: create, deal, list, act, state, legal."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env
from kartludo.cli.listing import MATCH_STATUSES
from kartludo.cli.output import DOCUMENT, emit, output_options

if TYPE_CHECKING:
    from kartludo.engine.base import Command, Game


def service(env: Env) -> Any:
    from kartludo.app.matches.pipeline import MatchService

    return MatchService(env.store)


def describe_outcome(match: Any, outcome: Any, viewer: Any) -> list[str]:
    """A command's events in ``viewer``'s view, one line each (``reader.outcome_lines``)."""
    from kartludo.app.reading.reader import outcome_lines

    return outcome_lines(outcome, match, viewer)


@click.group()
def match() -> None:
    """Create matches, start deals and list matches.

    \b
    Example:
        m=$(kartludo match new uxinjo --players ann,bob,cy --seed 7)
        kartludo match deal $m
    """


@match.command("new")
@click.argument("game")
@click.option("--players", default="", help="Player names in seat order, comma-separated (a series match: "
              "default its next seat order).")
@click.option("--seed", type=int, help="Seed of every deal's shuffle, for reproducible or duplicate play (a TD "
              "secret until the match ends; pick a large random one). Default: no seed, every deal is shuffled "
              "afresh by the OS's CSPRNG.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A rules option (repeatable).")
@click.option("--series", help="Add the match to this series.")
@click.option("--command-id", help="Idempotency key: a retried command with the same id is applied once.")
@click.option("--auto-deal", is_flag=True, help="Start the next deal by itself when one ends (recorded as "
              "dealt by the table; the first deal is still `match deal`). Matches created over HTTP do by default.")
@click.option("--clock", "clock_text", metavar="BASE+INC", help="A time control: BASE per seat plus INC for each "
              "turn played, e.g. 5m+10s (a series match: default the series' own).")
@click.option("--move-limit", metavar="TIME", help="A limit on each turn, e.g. 60s (alone or with --clock).")
@click.option("--on-flag", type=click.Choice(["bot", "bot-penalty"]), help="What a flag fall does: the heuristic "
              "bot plays the seat's turn (bot, the default), and the seat pays the game's time penalty "
              "(bot-penalty; the rules pages' §Clocks). Needs --clock or --move-limit (a series match: default the "
              "series' own).")
@click.option("--watch-delay", metavar="DELAY", help="Watchers (the public view: no token) see the table this "
              "far behind: 2 (moves: seats' commands) or 30s (seconds; 2min). Default: live. `watch set` changes it.")
@click.option("--watch-hands", is_flag=True, help="Watchers see every hand, in the delayed view only (needs "
              "--watch-delay).")
@pass_env(writes=True)
def new(env: Env, game: str, players: str, seed: int | None, options: tuple[str, ...], series: str | None,
        command_id: str | None, auto_deal: bool, clock_text: str | None, move_limit: str | None,
        on_flag: str | None, watch_delay: str | None, watch_hands: bool) -> None:
    """Create a match of GAME and print only its id.

    In a series (--series) a match is created once the series' previous match has
    ended (refused, naming it, while it runs), and the seats follow the series'
    rotation: the markers pass left after each match ended.

    \b
    With --clock or --move-limit the match is played on a clock (`kartludo clock`):
    a seat whose time runs out has its flag fall, a ruling the server (or `kartludo
    clock sweep`) appends, and the game's heuristic bot plays its turn (with
    --on-flag bot-penalty the seat also pays the game's time penalty).

    \b
    Example:
        m=$(kartludo match new uxinjo --players ann,bob,cy --seed 7 --option needed_base=2)
        m=$(kartludo match new hakamo --players a,b,c,d --clock 5m+10s)
        m=$(kartludo match new hakamo --players ann,bob,cy,dan --watch-delay 2 --watch-hands)
    """
    from kartludo.app.watching import creation

    watch = creation(watch_delay, watch_hands, "cli")  # refused before anything is written
    parsed: dict[str, str] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--option")
        parsed[key.strip()] = value.strip()
    names = [p.strip() for p in players.split(",") if p.strip()]
    from kartludo.app.matches import clock
    from kartludo.app.matches.autodeal import both, setting

    # a bad --clock is refused before anything is read
    control = clock.control_of(clock_text, move_limit, on_flag or "bot", on_flag_given=on_flag is not None)
    svc = service(env)
    if control is None and series:
        control = clock.series_control(env.store, series)
    match_id = svc.create(game, names or None, seed=seed, options=parsed, series=series, command_id=command_id,
                          actor="cli", also=both(setting(True) if auto_deal else None, clock.setting(control),
                                                 watch))
    click.echo(match_id)


@match.command("deal")
@click.argument("match_id", metavar="MATCH")
@click.option("--deck", help='The deck as dealt, top first: "CARD CARD …" (default: the seeded shuffle, or a '
              'fresh CSPRNG shuffle in a match without a seed).')
@click.option("--by", "actor", default="table", show_default=True, help="Who started the deal (recorded).")
@click.option("--command-id", help="Idempotency key.")
@pass_env(writes=True)
def deal(env: Env, match_id: str, deck: str | None, actor: str, command_id: str | None) -> None:
    """Start the next deal of MATCH.

    Nothing is dealt automatically unless the match was created with --auto-deal
    (the default over HTTP), so a physical deal can always be entered with --deck.
    Every deal commits to its deck (see `match check`).

    \b
    Example:
        kartludo match deal 3f9c --deck "R1 R2 R3 …"
    """
    from kartludo.app.matches.setup import parse_deck
    from kartludo.engine.base import PUBLIC

    svc = service(env)
    mid = svc.resolve(match_id)
    outcome = svc.deal(mid, parse_deck(deck) if deck is not None else None, actor=actor, command_id=command_id)
    m = svc.load(mid, refresh=False)
    for line in describe_outcome(m, outcome, PUBLIC):
        click.echo(line)


@match.command("check")
@click.argument("match_id", metavar="MATCH")
@click.option("--deal", type=click.IntRange(min=1), help="Only this deal (default: every deal).")
@click.option("--server", metavar="URL", help="Read the match's public events from a kartludo server "
              "(e.g. http://127.0.0.1:8000; no token needed) instead of the database.")
@output_options(formats=DOCUMENT)
@pass_env
def check(env: Env, match_id: str, deal: int | None, server: str | None, fmt: str) -> None:
    """Check that each deal of MATCH was played with the deck it committed to, from
    public data only (what a reader without a token sees), as any player can.

    A deal's event carries `commitment` = SHA-256 of "SALT:CARD CARD …" (its deck top
    first). While the deal runs only the commitment is shown; once it has ended the
    deck and the salt are public and this recomputes the hash. Exits 1 naming the
    deal when they do not match.

    \b
    Example:
        kartludo match check 3f9c --deal 2
        kartludo match check 3f9c --server http://127.0.0.1:8000
    """
    from kartludo.app.matches.fairness import check_public_deal, public_deal_payloads

    if server:
        mid, events = _public_events_over_http(server, match_id)
    else:
        from kartludo.app.reading.reader import MatchReader
        from kartludo.engine.base import PUBLIC

        svc = service(env)
        mid = svc.resolve(match_id)
        events = [{"type": e.type, "payload": e.payload} for e in MatchReader(svc).events(mid, PUBLIC)]
    deals = public_deal_payloads(events)
    if deal is not None and deal not in deals:
        known = ", ".join(map(str, deals)) or "none yet"
        raise CommandError(f"match {mid} has no deal {deal} (deals: {known})")
    checks = [check_public_deal(mid, deals[n]) for n in ([deal] if deal is not None else sorted(deals))]
    if fmt == "json":
        echo_json(checks)
    else:
        if not checks:
            click.echo(f"match {mid} has no deal yet")
        for result in checks:
            click.echo(str(result))
    if any(c.status == "mismatch" for c in checks):
        raise click.exceptions.Exit(1)


def _public_events_over_http(server: str, match_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The match's id and events as a kartludo server shows them to a reader without a token."""
    import json
    import urllib.error
    import urllib.parse
    import urllib.request

    base = server.rstrip("/")
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        raise CommandError(f"--server {server!r} is not an http:// or https:// URL")
    url = f"{base}/matches/{urllib.parse.quote(match_id, safe='')}/events"
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            events = json.load(resp)
    except urllib.error.HTTPError as exc:
        try:
            reason = json.load(exc).get("error", exc.reason)
        except (ValueError, AttributeError):
            reason = exc.reason
        raise CommandError(f"{url}: {exc.code} {reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CommandError(f"cannot read {url}: {getattr(exc, 'reason', exc)}") from None
    if not isinstance(events, list) or not events:
        raise CommandError(f"{url} did not return a match's events")
    from kartludo.events.streams import MATCH_PREFIX

    return str(events[0].get("stream_id", match_id)).removeprefix(MATCH_PREFIX), events


@match.command("list")
@click.option("--game", help="Only matches of this game.")
@click.option("--status", type=click.Choice(MATCH_STATUSES), help="Only matches in this state.")
@click.option("--player", help="Only matches this player plays in.")
@click.option("--series", "series_id", help="Only matches of this series (any unique id prefix).")
@output_options
@pass_env
def list_(env: Env, game: str | None, status: str | None, player: str | None, series_id: str | None,
          fmt: str) -> None:
    """List matches, oldest first: match, game, status, deal, created_at, players, series.

    \b
    Example:
        kartludo match list --game uxinjo --status in_progress
        kartludo match list --player ann --format csv
    """
    from kartludo.cli.listing import list_matches

    if series_id:
        from kartludo.app.league.series import resolve_series

        series_id = resolve_series(env.store, series_id)
    rows = env.read_models(lambda store, done: list_matches(store, game=game, status=status, player=player,
                                                            series=series_id, refreshed=done))
    filters = ", ".join(f"--{k} {v}" for k, v in [("game", game), ("status", status), ("player", player),
                                                  ("series", series_id)] if v)
    emit(fmt, ["match", "game", "status", "deal", "created_at", "players", "series"], rows,
         empty="no matches found" + (f" (filters: {filters})" if filters else ""),
         table_cells=lambda r: {**r, "created_at": r["created_at"][:16]})


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("match_id", metavar="MATCH")
@click.option("--as", "player", required=True, help="The player giving the command.")
@click.option("--command-id", help="Idempotency key: a retried command with the same id is applied once.")
@click.argument("verb")
@click.argument("args", nargs=-1)
@pass_env(writes=True)
def act(env: Env, match_id: str, player: str, command_id: str | None, verb: str, args: tuple[str, ...]) -> None:
    """Give one command in MATCH as PLAYER: VERB [ARG…].

    A refused command prints the rule it breaks, exits 1 and writes nothing.

    \b
    Example:
        kartludo act 3f9c --as ann draw
        kartludo act 3f9c --as ann discard R5
    """
    from kartludo.app.matches import clock

    svc = service(env)
    mid = svc.resolve(match_id)
    clock.apply_due(svc, mid)  # a flag that fell before this command falls first
    m = svc.load(mid, refresh=False)
    from kartludo.app.duplicate.boards import after_command

    outcome = svc.act(mid, player, verb, args, command_id=command_id)
    for line in describe_outcome(m, outcome, m.seat_of(player)):
        click.echo(line)
    # a match created with --auto-deal moves on by itself; a duplicate board closes and its table's next begins
    dealt = after_command(svc, mid)
    if dealt is not None:
        for line in describe_outcome(m, dealt, m.seat_of(player)):
            click.echo(line)


@click.command()
@click.argument("match_id", metavar="MATCH")
@click.option("--as", "player", help="Show what PLAYER may see.")
@click.option("--all", "all_hands", is_flag=True, help="Show every hand (a TD's view).")
@click.option("--watcher", is_flag=True, help="Show what a watcher (no token) sees: with a watch delay, the table "
              "as it stood that long ago (`watch set`).")
@output_options(formats=DOCUMENT)
@pass_env
def state(env: Env, match_id: str, player: str | None, all_hands: bool, watcher: bool, fmt: str) -> None:
    """Show MATCH now: public information, one player's view, or all hands.

    Public information here is the TD's: live, whatever the match's watch delay;
    --watcher shows what the watchers see.

    \b
    Example:
        kartludo state 3f9c --as ann --json
        kartludo state 3f9c --watcher --json
    """
    if sum(map(bool, (player, all_hands, watcher))) > 1:
        raise click.UsageError("use one of --as PLAYER, --all or --watcher")
    svc = service(env)
    m = svc.load(svc.resolve(match_id))
    if watcher:
        from kartludo.app.reading.reader import MatchReader
        from kartludo.engine.base import PUBLIC

        shown = MatchReader(svc).state(m, PUBLIC, moves=False, td=False)
        if fmt == "json":
            echo_json(shown)
            return
        at = MatchReader(svc).match_at(m.id, shown["version"])
        delay = shown.get("watch", {}).get("delay", "live")
        click.echo(f"match {m.id} · {m.game.title} · as watchers see it ({delay}) · deal {shown['deal']}")
        click.echo(m.game.render(at.state, PUBLIC))
        hands = shown.get("hands") if shown.get("watch", {}).get("hands") else None
        for name, cards in (hands or {}).items():  # --watch-hands: every hand, as delayed
            click.echo(f"hand of {name}: {' '.join(map(str, cards)) if isinstance(cards, list) else cards}")
        return
    viewer = svc.viewer(m, player, all_hands)
    from kartludo.app.reading.presenters import result_json
    from kartludo.app.reading.reader import MatchReader

    if fmt == "json":
        echo_json(MatchReader(svc).state(m, viewer, moves=False, td=True))  # the database's holder: a TD
    else:
        click.echo(f"match {m.id} · {m.game.title} · {m.status.replace('_', ' ')} · deal {m.game.deal_number(m.state)}")
        click.echo(m.game.render(m.state, viewer))
        from kartludo.app.matches import clock

        clocks = clock.line(env.store, m.id)
        if clocks is not None:
            click.echo(clocks)
        result = result_json(m)
        if result is not None:
            click.echo(result_line(result))


def result_line(result: dict[str, Any]) -> str:
    """A finished match's result in one line (``state``): "result: cy wins the match ·
    1st cy (match points +4), 2nd ann (match points -1), … (higher is better)"."""
    winners = result["winners"]
    head = f"{winners[0]} wins the match" if len(winners) == 1 else f"{' and '.join(winners)} share first place"
    name = result["score_name"].replace("_", " ")
    sign = "+d" if result["higher_is_better"] else "d"  # points and match points signed, losses counted
    places = ", ".join(f"{ordinal(r['rank'])} {r['player']} ({name} {r['score']:{sign}})" for r in result["ranking"])
    cut = ", cut at the series deadline" if result["closed"] else ""
    return f"result: {head} · {places} ({'higher' if result['higher_is_better'] else 'lower'} is better{cut})"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def legal_options(command: Callable[..., Any]) -> Any:
    """The options of ``legal``, shared with ``hypo legal``: ``--as``, ``--all`` and
    ``--format text|json`` (``--json``); the command receives ``player``, ``every``, ``fmt``."""
    command = output_options(formats=DOCUMENT)(command)
    command = click.option("--all", "every", is_flag=True, help="Every command one per line (a card exchange is "
                           "thousands), in hand order.")(command)
    return click.option("--as", "player", required=True, help="The player whose commands to list.")(command)


def echo_legal(game: Game[Any], state: Any, seat: int, commands: list[Command], *, every: bool, fmt: str) -> None:
    """What ``legal`` prints of ``seat``'s legal ``commands`` in ``state`` (one printer
    for a match and a hypothetical): one line per verb with its shape, with ``every``
    each command in hand order, as JSON the list of every command. A seat that cannot
    act has none: the text says so in one line, naming whom the game waits for
    (``cannot_act``); the JSON is ``[]``, as the contract has it."""
    from kartludo.engine.shapes import ordered_commands

    if fmt == "json":
        echo_json([c.text() for c in commands])
    elif not commands:
        click.echo(cannot_act(game, state, seat))
    elif every:
        for cmd in ordered_commands(commands, [v.verb() for v in game.verbs()], game.hand_of(state, seat)):
            click.echo(cmd.text())
    else:
        for shape in game.legal_shapes(state, seat, commands):
            click.echo(shape.text)


def cannot_act(game: Game[Any], state: Any, seat: int) -> str:
    """Why ``seat`` has no legal command in ``state``, in one line: "bob cannot act now:
    waiting for ann (discard)"; between deals, the next deal is due; at the end, the
    match is over."""
    from kartludo.engine.base import WAITING_DEAL

    players = list(state.players)
    who = players[seat] if 0 <= seat < len(players) else f"seat {seat + 1}"
    phase = game.phase(state)
    if game.is_finished(state):
        why = "the match is over"
    elif phase == WAITING_DEAL:
        why = "waiting for the next deal to be dealt"
    else:
        waiting = [players[s] for s in game.to_act(state) if s != seat]
        names = " and ".join([", ".join(waiting[:-1]), waiting[-1]] if len(waiting) > 1 else waiting)
        why = f"waiting for {names} ({phase.replace('_', ' ')})" if waiting else f"nobody acts now ({phase})"
    return f"{who} cannot act now: {why}"


@click.command()
@click.argument("match_id", metavar="MATCH")
@legal_options
@pass_env
def legal(env: Env, match_id: str, player: str, every: bool, fmt: str) -> None:
    """List what PLAYER may do now in MATCH: one line per verb, its shape (which of
    your cards and how many, a number range, the words it takes). A player who
    cannot act now is told whom the game waits for (--json: an empty list).

    \b
    Example:
        kartludo legal 3f9c --as bob
          exchange: 0-4 of your cards
        kartludo legal 3f9c --as bob --all
    """
    svc = service(env)
    m = svc.load(svc.resolve(match_id))
    commands = svc.legal(m, player)
    echo_legal(m.game, m.state, m.seat_of(player), commands, every=every, fmt=fmt)
