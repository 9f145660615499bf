"""``kartludo token``: API bearer tokens (issue a TD token, revoke any token)."""

from __future__ import annotations

from typing import Any

import click

from kartludo.cli.context import Env, pass_env


@click.group()
def token() -> None:
    """API bearer tokens: issue a TD token, revoke a token.

    Seat tokens are issued by the service when a match is created through it, and a
    duplicate event's player tokens when the event is created through it (one per
    player, for every board the player plays).

    \b
    Example:
        kartludo token new --role td --label mia
        kartludo token new --role player --duplicate 5e1f --seat ann
        kartludo token revoke 3f9c2a
    """


class Duration(click.ParamType):
    """A time span as ``30d``, ``12h``, ``90m`` or ``2w`` (microseconds)."""

    name = "DURATION"
    UNITS = {"m": 60, "h": 3600, "d": 86_400, "w": 604_800}
    LONGEST_US = 10 * 366 * 86_400 * 1_000_000  # ten years

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip().lower()
        number, unit = text[:-1], text[-1:]
        if unit not in self.UNITS or not number.isdigit() or int(number) == 0:
            self.fail(f"{value!r} is not a duration: a positive whole number and a unit, e.g. 30d, 12h, 90m, 2w",
                      param, ctx)
        us = int(number) * self.UNITS[unit] * 1_000_000
        if us > self.LONGEST_US:
            self.fail(f"{value!r} is longer than ten years", param, ctx)
        return us


@token.command("new")
@click.option("--role", type=click.Choice(["td", "seat", "player"]), default="td", show_default=True)
@click.option("--match", "match_id", help="The match of a seat token (any unique id prefix).")
@click.option("--duplicate", "duplicate_id",
              help="The duplicate event of a player token (any unique id prefix): the token plays the player's "
                   "seat in every board of it.")
@click.option("--seat", "player", help="The player of a seat or player token.")
@click.option("--label", default="", help="A name recorded with the token (e.g. the TD's).")
@click.option("--expires", "expires_in", type=Duration(),
              help="The token stops working after this long (30d, 12h, 90m, 2w); default: when revoked.")
@pass_env(writes=True)
def new(env: Env, role: str, match_id: str | None, duplicate_id: str | None, player: str | None, label: str,
        expires_in: int | None) -> None:
    """Issue a token and print its secret (shown only this once; only its hash is
    stored). With --expires the service refuses it afterwards with a 401 that says
    it expired (the time is also printed, on stderr).

    \b
    Example:
        kartludo token new --role td --label mia --expires 30d
        kartludo token new --role seat --match 3f9c --seat ann
        kartludo token new --role player --duplicate 5e1f --seat ann
    """
    from kartludo.app.tokens import issue

    match = seat = None
    if duplicate_id and role != "player":
        raise click.UsageError("--duplicate is for player tokens (--role player)")
    if role == "player":
        if not duplicate_id or not player or match_id or label:
            raise click.UsageError("a player token needs --duplicate and --seat (the player, its label), and no "
                                   "--match or --label")
        from kartludo.app.duplicate.boards import load_duplicate, resolve_duplicate
        from kartludo.events.streams import duplicate_stream

        dup = load_duplicate(env.store, resolve_duplicate(env.store, duplicate_id))
        dup.table_of(player)  # a player of the event, or refused naming it
        match = duplicate_stream(dup.id)
    elif role == "seat":
        if not match_id or not player:
            raise click.UsageError("a seat token needs --match and --seat")
        from kartludo.app.matches.pipeline import MatchService

        svc = MatchService(env.store)
        match = svc.resolve(match_id)
        seat = svc.load(match).seat_of(player)
    elif match_id or player:
        raise click.UsageError("--match and --seat are for seat tokens")
    expires_at = env.store.clock() + expires_in if expires_in else None
    click.echo(issue(env.store, role, match=match, seat=seat, label=label or (player or ""), actor="cli",
                     expires_at_us=expires_at))
    if expires_at is not None:
        from kartludo.store.transfer import format_us

        click.echo(f"note: the token expires at {format_us(expires_at)}", err=True)


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
