"""API bearer tokens as events: issue, revoke, resolve.

TD tokens and revocations live in the stream ``tokens``; a match's seat tokens in
``tokens-<match>``, written in the same transaction as the match (so creating
matches never contends on one stream), and so do the revocations of a re-issue.
A duplicate event's player tokens (role ``player``: one token for every board the
player plays, its ``match`` the event's stream ``duplicate-<id>``, its label the
player) live in ``tokens-duplicate-<id>``; the service resolves such a token per
request to the player's seat in a board of that event, and to the public elsewhere.
Only the SHA-256 hash of a token is stored; the secret is shown once when issued. A
``TokenIndex`` keeps the live tokens in memory and follows the global order for token
events (one indexed query per lookup).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections.abc import Sequence

import msgspec

from kartludo.app.errors import AmbiguousMatch, AppError, UnknownMatch, check_text
from kartludo.events.streams import DUPLICATE_PREFIX, duplicate_stream
from kartludo.events.tokens import TokenIssued, TokenRevoked
from kartludo.store import ConcurrencyConflict, EventStore, Recorded

TOKENS_STREAM = "tokens"
#: a duplicate event's player: a seat in each board of the event the player sits in
PLAYER = "player"
ROLES = ("td", "seat", PLAYER)
#: a token's label (a TD's name: it becomes the actor of what the TD does) and a revocation's texts
LABEL_LIMIT = 100
REASON_LIMIT = 2000


def seat_tokens_stream(match_id: str) -> str:
    return f"{TOKENS_STREAM}-{match_id}"


class Principal(msgspec.Struct, frozen=True):
    """Who a valid token speaks for."""

    token_hash: str
    role: str
    match: str | None = None
    seat: int | None = None
    label: str = ""
    expires_at_us: int | None = None

    @property
    def duplicate(self) -> str | None:
        """A player token's duplicate event (its id), else None."""
        if self.role != PLAYER or not self.match or not self.match.startswith(DUPLICATE_PREFIX):
            return None
        return self.match.removeprefix(DUPLICATE_PREFIX)


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A bearer secret. The ``kt_`` prefix makes it recognisable and keeps it from
    starting with ``-``, which a command line would read as an option."""
    return "kt_" + secrets.token_urlsafe(24)


def _append(store: EventStore, events: list, actor: str) -> None:
    for _ in range(20):
        try:
            store.append(TOKENS_STREAM, events, store.stream_version(TOKENS_STREAM), actor=actor)
            return
        except ConcurrencyConflict:
            continue
    raise AppError("the tokens stream is too busy; try again")


def issue(store: EventStore, role: str, *, match: str | None = None, seat: int | None = None, label: str = "",
          actor: str = "", expires_at_us: int | None = None) -> str:
    """A new token; returns the secret (shown once, never stored). ``expires_at_us``:
    when it stops working (None: when revoked)."""
    return issue_many(store, [(role, match, seat, label)], actor=actor, expires_at_us=expires_at_us)[0]


def issue_many(store: EventStore, specs: Sequence[tuple[str, str | None, int | None, str]],
               actor: str = "", expires_at_us: int | None = None) -> list[str]:
    """Several tokens in one append: ``(role, match, seat, label)`` each."""
    secrets_out, events = token_events(specs, expires_at_us=expires_at_us)
    _append(store, events, actor)
    return secrets_out


def token_events(specs: Sequence[tuple[str, str | None, int | None, str]], *,
                 expires_at_us: int | None = None) -> tuple[list[str], list[TokenIssued]]:
    """New secrets and the events that record their hashes (appended by the caller,
    e.g. in the same transaction as the match they open)."""
    secrets_out, events = [], []
    for role, match, seat, label in specs:
        if role not in ROLES:
            raise AppError(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        if role == "seat" and (match is None or seat is None):
            raise AppError("a seat token needs a match and a seat")
        if role == PLAYER and (match is None or not match.startswith(DUPLICATE_PREFIX) or not label):
            raise AppError("a player token needs a duplicate event (its stream) and the player's name as its label")
        check_text("a token's label", label, LABEL_LIMIT, empty=True)
        secret = new_secret()
        secrets_out.append(secret)
        events.append(TokenIssued(token_hash=hash_token(secret), role=role,
                                  match=match if role in ("seat", PLAYER) else None,
                                  seat=seat if role == "seat" else None, label=label,
                                  expires_at_us=expires_at_us))
    return secrets_out, events


class TokenIndex:
    """Live tokens by hash, following the global order for token events."""

    #: the events it follows (the store's partial index on them serves the read)
    TYPES = ("token.issued", "token.revoked")
    #: events read per page
    PAGE = 5000

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._position = 0
        self._live: dict[str, Principal] = {}
        self._revoked: set[str] = set()

    def refresh(self) -> None:
        # The query runs outside the lock (concurrent requests must not queue on one
        # another's round trip); merging skips what another thread already applied.
        # Token events are applied as soon as they are read, settled or not (a new
        # token works at once; applying one twice changes nothing, and a revocation
        # wins whatever the order), but the cursor moves only over settled positions,
        # below the store's horizon taken before the read: a revocation that commits
        # late is never skipped.
        # Nothing new, nearly always: the query alone says so, and the horizon (which
        # reads PostgreSQL's lock table) is asked only when a token event came.
        if not self.store.select_events(self._position, 1, types=self.TYPES, settled=False):
            return
        horizon = self.store.horizon()
        records: list[Recorded] = []
        while page := self.store.select_events(records[-1].position if records else self._position, self.PAGE,
                                               types=self.TYPES, settled=False):
            records += page
            if len(page) < self.PAGE:
                break
        with self._lock:
            for rec in records:
                if rec.position <= self._position:
                    continue
                event = rec.event
                if isinstance(event, TokenIssued):
                    if event.token_hash not in self._revoked:
                        self._live[event.token_hash] = Principal(event.token_hash, event.role, event.match,
                                                                 event.seat, event.label, event.expires_at_us)
                elif isinstance(event, TokenRevoked):
                    self._revoked.add(event.token_hash)
                    self._live.pop(event.token_hash, None)
                if rec.position < horizon:
                    self._position = rec.position

    def _expired(self, p: Principal) -> bool:
        return p.expires_at_us is not None and self.store.clock() >= p.expires_at_us

    def resolve(self, secret: str) -> Principal | None:
        """The principal of a bearer token, or None (unknown, revoked or expired)."""
        self.refresh()
        found = self._live.get(hash_token(secret))
        return None if found is None or self._expired(found) else found

    def refusal(self, secret: str) -> str:
        """Why ``resolve`` refuses this token, in words for a 401."""
        found = self._live.get(hash_token(secret))
        if found is not None and found.expires_at_us is not None and self._expired(found):
            from kartludo.store.transfer import format_us

            return f"token expired at {format_us(found.expires_at_us)}"
        return "unknown or revoked token"

    def is_live(self, token_hash: str) -> bool:
        """Whether the token is live now (its revocation by any process is seen, and
        its expiry)."""
        self.refresh()
        found = self._live.get(token_hash)
        return found is not None and not self._expired(found)

    def live(self) -> list[Principal]:
        """Every token live now (neither revoked nor expired)."""
        self.refresh()
        return [p for p in self._live.values() if not self._expired(p)]

    def find(self, token_or_prefix: str) -> Principal:
        """A live token by its secret, its full hash or a unique prefix of its hash."""
        self.refresh()
        by_secret = self._live.get(hash_token(token_or_prefix))
        if by_secret is not None:
            return by_secret
        prefix = token_or_prefix.strip().lower()
        found = [p for h, p in self._live.items() if prefix and h.startswith(prefix)]
        if not found:
            raise UnknownMatch(f"no live token {token_or_prefix!r}")
        if len(found) > 1:
            raise AmbiguousMatch(f"token hash prefix {token_or_prefix!r} is ambiguous")
        return found[0]


def reissue_seat_tokens(store: EventStore, match_id: str, players: Sequence[str], *, actor: str = "",
                        reason: str = "") -> list[str]:
    """New seat tokens for every seat of a match, revoking its live ones, in one
    append; returns the new secrets (seat order). A retried match creation uses
    this: the first secrets were shown once and cannot be shown again.

    The tokens to revoke are read from the match's tokens stream at a known version
    and the revocations and new tokens are appended to that stream at that version,
    so of two concurrent re-issues one retries after the other and revokes its
    tokens too: exactly one token per seat stays live.
    """
    seats = seat_tokens_stream(match_id)
    for _ in range(20):
        records = store.read_stream(seats)
        version = records[-1].version if records else 0
        index = TokenIndex(store)
        index.refresh()
        revoked = {r.event.token_hash for r in records if isinstance(r.event, TokenRevoked)} | index._revoked
        old = [r.event.token_hash for r in records if isinstance(r.event, TokenIssued)]
        # seat tokens of this match issued elsewhere (``kartludo token new --role seat``)
        old += [p.token_hash for p in index._live.values() if p.role == "seat" and p.match == match_id]
        stale = [h for h in dict.fromkeys(old) if h not in revoked]
        secrets_out, issued = token_events([("seat", match_id, i, name) for i, name in enumerate(players)])
        revocations = [TokenRevoked(token_hash=h, by=actor, reason=reason) for h in stale]
        try:
            store.append(seats, [*revocations, *issued], version, actor=actor)
            return secrets_out
        except ConcurrencyConflict:
            continue
    raise AppError("the tokens streams are too busy; try again")


def player_tokens_stream(duplicate_id: str) -> str:
    """Where a duplicate event's player tokens are recorded (``tokens-duplicate-<id>``)."""
    return seat_tokens_stream(duplicate_stream(duplicate_id))


def issue_player_tokens(store: EventStore, duplicate_id: str, players: Sequence[str], *, actor: str = "",
                        expires_at_us: int | None = None) -> list[str]:
    """One player token per player of duplicate event ``duplicate_id`` (the secrets, in
    ``players``' order), in one append to the event's own tokens stream. Each plays the
    player's seat in every board of the event, and nothing else."""
    stream = player_tokens_stream(duplicate_id)
    secrets_out, events = token_events([(PLAYER, duplicate_stream(duplicate_id), None, p) for p in players],
                                       expires_at_us=expires_at_us)
    for _ in range(20):
        try:
            store.append(stream, events, store.stream_version(stream), actor=actor)
            return secrets_out
        except ConcurrencyConflict:
            continue
    raise AppError("the tokens streams are too busy; try again")


def revoke(store: EventStore, token_or_prefix: str, *, by: str = "", reason: str = "") -> Principal:
    """Revoke a live token (by secret or hash prefix); returns what it was."""
    check_text("who revokes (--by)", by, LABEL_LIMIT, empty=True)
    check_text("the reason", reason, REASON_LIMIT, empty=True)
    principal = TokenIndex(store).find(token_or_prefix)
    _append(store, [TokenRevoked(token_hash=principal.token_hash, by=by, reason=reason)], by)
    return principal
