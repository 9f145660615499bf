"""Events of the ``tokens`` stream: API bearer tokens, stored only as SHA-256 hashes."""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class TokenIssued(Event, frozen=True, kw_only=True, tag="token.issued"):
    """A bearer token was issued. ``role`` is ``td`` (tournament director: sees
    everything, creates matches, starts deals, decides appeals) or ``seat`` (acts
    and sees as seat ``seat`` of match ``match``). ``expires_at_us``: from then on
    the token is refused as expired (None: it lasts until revoked); older events
    decode without it, so the schema version stays 1."""

    token_hash: str
    role: str
    match: str | None = None
    seat: int | None = None
    label: str = ""
    expires_at_us: int | None = None


class TokenRevoked(Event, frozen=True, kw_only=True, tag="token.revoked"):
    token_hash: str
    by: str = ""
    reason: str = ""


tokens_decoder = register_union(TokenIssued, TokenRevoked)
