"""``kartludo events``: move streams between databases as JSON Lines, signed."""

from __future__ import annotations

import sys

import click

from kartludo.cli.context import CommandError, Env, pass_env
from kartludo.cli.keys import KEY_OPTION, trusted_keys


@click.group()
def events() -> None:
    """Export or import the event log as JSON Lines (envelope + payload), signed with
    the seal key when there is one.

    \b
    Example:
        kartludo events export -o league.jsonl
        kartludo --db sqlite:///copy.db events import league.jsonl
    """


@events.command("export")
@click.argument("stream", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="File to write (default: stdout).")
@KEY_OPTION
@click.option("--with-tokens", is_flag=True, help="Include token events (API credentials, as hashes).")
@pass_env
def export_cmd(env: Env, stream: str | None, output: str | None, key_file: str | None, with_tokens: bool) -> None:
    """Write every event (or one STREAM's) in global order, ending with a line that
    signs the head they end at (when a seal key exists; without one the file is
    unsigned and imports only with --unsigned). Token events are left out unless
    --with-tokens. STREAM is a stream id or any unique prefix of a match's or a
    series' id.

    \b
    Example:
        kartludo events export 3f9c -o match.jsonl
    """
    from kartludo.cli.ids import resolve_stream
    from kartludo.store.keys import key_path, load_optional
    from kartludo.store.transfer import export_events

    key = load_optional(key_path(key_file))
    if key is None and key_file:
        raise CommandError(f"no seal key at {key_file}")
    if stream:
        stream = resolve_stream(env.store, stream)
    if output:
        with open(output, "wb") as out:
            n = export_events(env.store, out, stream, key=key, with_tokens=with_tokens)
        click.echo(f"exported {n} events to {output}" + ("" if key else " (unsigned: no seal key)"), err=True)
    else:
        n = export_events(env.store, sys.stdout.buffer, stream, key=key, with_tokens=with_tokens)
    if stream and n == 0:
        raise CommandError(f"no stream {stream!r} in {env.store.url}"
                           + ("" if with_tokens else " (token events are exported only with --with-tokens)"))


@events.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@KEY_OPTION
@click.option("--trust", multiple=True, metavar="PUBKEY",
              help="The exporter's public key (repeatable; default: the local seal key's).")
@click.option("--unsigned", is_flag=True, help="Accept a file without a signature (never with --with-tokens).")
@click.option("--with-tokens", is_flag=True, help="Accept token events (credentials) from a signed file.")
@pass_env(writes=True)
def import_cmd(env: Env, file: str, key_file: str | None, trust: tuple[str, ...], unsigned: bool,
               with_tokens: bool) -> None:
    """Append an exported FILE; refuses (writing nothing) a file that is unsigned or
    signed by an untrusted key, altered after signing, whose hash chains or versions
    do not check out, that carries credentials without --with-tokens, or that forges a
    match (a copy under a new id, a closing event its rules did not make). Events
    already present are skipped.

    \b
    Example:
        kartludo events import league.jsonl --trust 6f1e…c2
    """
    from kartludo.app.matches.forgery import import_events

    trusted = trusted_keys(key_file, trust)
    with open(file, "rb") as f:
        summary = import_events(env.store, f, trusted=trusted, unsigned=unsigned, with_tokens=with_tokens)
    click.echo(
        f"imported {summary.imported} events in {summary.streams} streams "
        f"({summary.already_present} already present)"
    )
