"""``kartludo token``: API bearer tokens (issue a TD token, revoke any token)."""

from __future__ import annotations

import click

from kartludo.cli.context import Env, pass_env


@click.group()
def token() -> None:
    """API bearer tokens: issue a TD token, revoke a token.

    Seat tokens are issued by the service when a match is created through it.

    \b
    Example:
        kartludo token new --role td --label mia
        kartludo token revoke 3f9c2a
    """


@token.command("new")
@click.option("--role", type=click.Choice(["td", "seat"]), default="td", show_default=True)
@click.option("--match", "match_id", help="The match of a seat token (any unique id prefix).")
@click.option("--seat", "player", help="The player of a seat token.")
@click.option("--label", default="", help="A name recorded with the token (e.g. the TD's).")
@pass_env(writes=True)
def new(env: Env, role: str, match_id: str | None, player: str | None, label: str) -> None:
    """Issue a token and print its secret (shown only this once; only its hash is stored).

    \b
    Example:
        kartludo token new --role td --label mia
        kartludo token new --role seat --match 3f9c --seat ann
    """
    from kartludo.app.tokens import issue

    match = seat = None
    if role == "seat":
        if not match_id or not player:
            raise click.UsageError("a seat token needs --match and --seat")
        from kartludo.app.matches import MatchService

        svc = MatchService(env.store)
        match = svc.resolve(match_id)
        seat = svc.load(match).seat_of(player)
    elif match_id or player:
        raise click.UsageError("--match and --seat are for seat tokens")
    click.echo(issue(env.store, role, match=match, seat=seat, label=label or (player or ""), actor="cli"))


@token.command("revoke")
@click.argument("token_or_hash")
@click.option("--by", default="cli", show_default=True, help="Who revokes (recorded).")
@click.option("--reason", default="", help="Why (recorded).")
@pass_env(writes=True)
def revoke(env: Env, token_or_hash: str, by: str, reason: str) -> None:
    """Revoke a token given as its secret or a unique prefix of its hash.

    \b
    Example:
        kartludo token revoke 3f9c2a --reason "left the club"
    """
    from kartludo.app.tokens import revoke as do_revoke

    p = do_revoke(env.store, token_or_hash, by=by, reason=reason)
    click.echo(f"revoked {p.role} token {p.token_hash[:12]}")
