"""``kartludo key`` and ``kartludo seal``: the seal key and signed heads of the log."""

from __future__ import annotations

import click

from kartludo.cli.context import CommandError, Env, echo_json, pass_env

KEY_OPTION = click.option(
    "--key", "key_file", metavar="FILE",
    help="Seal key file (default: $KARTLUDO_KEY, else $XDG_CONFIG_HOME/kartludo/seal.key).",
)


@click.group()
def key() -> None:
    """The Ed25519 seal key, kept outside the database: create it, show its public half.

    \b
    Example:
        kartludo key new
        kartludo key show
    """


@key.command("new")
@KEY_OPTION
@click.option("--force", is_flag=True, help="Replace an existing key (its seals no longer verify with the new one).")
def key_new(key_file: str | None, force: bool) -> None:
    """Create a seal key (file mode 0600) and print its public key to publish.

    \b
    Example:
        kartludo key new --key /secure/kartludo-seal.key
    """
    from kartludo.store.keys import key_path, new_key

    created = new_key(key_path(key_file), force=force)
    click.echo(f"created {created.path}")
    click.echo(f"public key: {created.public}")


@key.command("show")
@KEY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def key_show(key_file: str | None, as_json: bool) -> None:
    """Print the public key (what players pass to `verify --trust`).

    \b
    Example:
        kartludo key show
    """
    from kartludo.store.keys import key_path, load_key

    loaded = load_key(key_path(key_file))
    if as_json:
        echo_json({"path": str(loaded.path), "public": loaded.public, "fingerprint": loaded.fingerprint})
    else:
        click.echo(loaded.public)


@click.command()
@KEY_OPTION
@click.option("--print", "print_head", is_flag=True, help="Print only the head to write down (POSITION:EVENTS:HEAD).")
@click.option("--json", "as_json", is_flag=True, help="Print the seal as JSON.")
@pass_env
def seal(env: Env, key_file: str | None, print_head: bool, as_json: bool) -> None:
    """Chain every settled event and record a signed head of the log (global
    position, number of events, head hash, time). Write the head down or publish it:
    `verify --head` then proves the log still reaches it.

    \b
    Example:
        kartludo seal --print
    """
    from kartludo.store import chain
    from kartludo.store.keys import key_path, load_key

    loaded = load_key(key_path(key_file))
    sealed, new = chain.seal(env.store, loaded)
    head = sealed.as_head.text()
    if as_json:
        echo_json({"seq": sealed.seq, "position": sealed.position, "events": sealed.events,
                   "head": sealed.head.hex(), "sealed_at_us": sealed.sealed_at_us, "key": sealed.key,
                   "signature": sealed.signature.hex(), "new": new, "written_down": head})
    elif print_head:
        click.echo(head)
    else:
        what = "sealed" if new else "already sealed (nothing new since)"
        click.echo(f"{what}: seal #{sealed.seq}, {sealed.events} events up to position {sealed.position}")
        click.echo(f"head: {head}")
        click.echo(f"key:  {sealed.key}")


def trusted_keys(key_file: str | None, trust: tuple[str, ...]) -> list[str]:
    """The public keys seals must be signed by: ``--trust`` values, else the local key
    if there is one (none: seals are checked against the keys they name)."""
    from kartludo.store.keys import key_path, load_optional, parse_public

    if trust:
        return [parse_public(t) for t in trust]
    local = load_optional(key_path(key_file))
    if local is None and key_file:
        raise CommandError(f"no seal key at {key_file}")
    return [local.public] if local else []
