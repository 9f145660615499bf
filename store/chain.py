"""The global chain over the global order, and signed seals of its head.

Each stream's events are hash-chained by version (``envelope.chain_hash``); that
cannot show a stream's newest events deleted, a whole stream deleted, or an event
moved elsewhere in the global order. The global chain can: one entry per event, in
position order, each the SHA-256 of the previous entry, the event's position and
the event's own hash. A seal signs the chain's head (its position, the number of
events it covers, the head hash and the time) with the Ed25519 key kept outside the
database (``store.keys``), so a rewrite before a seal, even one with every hash
recomputed, no longer reaches the seal's head.

Why the chain is written after the events and not with them: on PostgreSQL appends to
different streams commit concurrently, and a transaction's position is fixed before
anyone knows which transactions will commit around it. The chain therefore covers
only *settled* events (below the horizon, see ``EventStore.horizon``), whose order is
final on both backends, and is extended in blocks: every ``KARTLUDO_SEAL_EVERY``
events appended through a store (default 1,000; 0 turns automatic chaining off), at
the end of every deal and match when the seal key is there (each ``kartludo act`` is
a process of its own, whose count never reaches N), and by every ``kartludo seal``.
Each extension chains every settled event not yet chained.

What is not covered: events after the chain's end (since the last extension: the
current deal's moves, with the key; else up to N events) are
covered only by their stream chains, so deleting a stream's newest events there, or
whole new streams, goes unnoticed until the next extension would have included them;
and the chain entries and seals after the newest seal a verifier knows of can be
deleted together with the events they cover, unless the verifier compares with a
written-down head (``kartludo verify --head``).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import operator
import os
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from kartludo.events.base import UnknownEventType, event_type
from kartludo.store.envelope import GENESIS
from kartludo.store.eventstore import EventStore
from kartludo.store.keys import SealKey, fingerprint, key_path, load_optional, signature_ok

#: advisory lock id of chain extensions and seals (PostgreSQL)
CHAIN_LOCK = 7301002
SEAL_EVERY_ENV = "KARTLUDO_SEAL_EVERY"
DEFAULT_SEAL_EVERY = 1000
#: rows read or written per statement while chaining
PAGE = 5000
_sha256 = hashlib.sha256
_pack = msgspec.msgpack.Encoder().encode
#: a stored row's type (its third column)
_TYPE = operator.itemgetter(2)
log = logging.getLogger("kartludo.store")


def link(prev: bytes, position: int, event_hash: bytes) -> bytes:
    """The chain entry after ``prev`` for the event at ``position`` with hash ``event_hash``."""
    return _sha256(prev + position.to_bytes(8, "big") + event_hash).digest()


class Head(msgspec.Struct, frozen=True):
    """Where the global chain stands: the last chained position, how many events the
    chain covers up to it, and the head hash."""

    position: int
    events: int
    head: bytes

    def text(self) -> str:
        """``POSITION:EVENTS:HEADHEX``: what a TD writes down and ``verify --head`` reads."""
        return f"{self.position}:{self.events}:{self.head.hex()}"


def parse_head(text: str) -> Head:
    """A written-down head, ``POSITION:EVENTS:HEADHEX``; raises ValueError saying why not."""
    parts = text.strip().split(":")
    try:
        position, events, digest = int(parts[0]), int(parts[1]), bytes.fromhex(parts[2])
    except (IndexError, ValueError):
        raise ValueError(f"not a head (POSITION:EVENTS:HEADHEX, as `kartludo seal --print` shows): {text!r}") from None
    if len(parts) != 3 or len(digest) != 32 or position < 0 or events < 0:
        raise ValueError(f"not a head (POSITION:EVENTS:HEADHEX, as `kartludo seal --print` shows): {text!r}")
    return Head(position, events, digest)


class Seal(msgspec.Struct, frozen=True):
    """A signed head of the global chain."""

    seq: int
    position: int
    events: int
    head: bytes
    sealed_at_us: int
    key: str
    signature: bytes

    @property
    def as_head(self) -> Head:
        return Head(self.position, self.events, self.head)

    def message(self) -> bytes:
        return seal_message(self.seq, self.position, self.events, self.head, self.sealed_at_us)

    def signed_by(self, public: str) -> bool:
        return self.key == public and signature_ok(public, self.signature, self.message())


def seal_message(seq: int, position: int, events: int, head: bytes, sealed_at_us: int) -> bytes:
    """The bytes a seal signs (a tagged msgpack array, so no other signed thing reads the same)."""
    return _pack(("kartludo-seal", 1, seq, position, events, head, sealed_at_us))


def chain_head(store: EventStore) -> Head:
    rows = store.select("SELECT position, n, hash FROM chain ORDER BY position DESC LIMIT 1")
    if not rows:
        return Head(0, 0, GENESIS)
    position, n, digest = rows[0]
    return Head(int(position), int(n), bytes(digest))


def _extend(store: EventStore, tx: Any) -> Head:
    """Chain every settled event after the chain's end, inside ``tx`` (holding the lock)."""
    rows = tx.query("SELECT position, n, hash FROM chain ORDER BY position DESC LIMIT 1")
    position, n, head = (int(rows[0][0]), int(rows[0][1]), bytes(rows[0][2])) if rows else (0, 0, GENESIS)
    # the horizon first, in a statement of its own: every event below it is then
    # committed and seen by the reads after it
    below = int(tx.query(store.horizon_sql)[0][0]) if store.horizon_sql else None
    bound = "" if below is None else " AND position < :h"
    sql = f"SELECT position, stream_id, version, hash FROM events WHERE position > :p{bound} ORDER BY position LIMIT :n"
    while True:
        page = tx.query(sql, p=position, n=PAGE, h=below)
        if not page:
            return Head(position, n, head)
        entries: list[tuple[int, int, str, int, bytes]] = []
        append, sha256 = entries.append, _sha256
        for pos, sid, version, digest in page:  # ``link`` written out: this loop is the cost of chaining
            head = sha256(head + pos.to_bytes(8, "big") + digest).digest()
            n += 1
            append((pos, n, sid, version, head))
        tx.insert_chain(entries)
        position = page[-1][0]
        # a short page was the last, so no query for an empty one: nothing more can come
        # below the horizon (PostgreSQL: every event below it had committed before the
        # horizon was read; SQLite: no other writer while this transaction holds the write lock)
        if len(page) < PAGE:
            return Head(position, n, head)


def extend(store: EventStore, *, settle: bool = True) -> Head:
    """Chain every settled event not chained yet; the chain's new head. ``settle``:
    first wait (``EventStore.settle``) for what was committed before the call."""
    if settle:
        store.settle()
    with store.exclusive(CHAIN_LOCK) as tx:
        return _extend(store, tx)


def seal(store: EventStore, key: SealKey, *, settle: bool = True) -> tuple[Seal, bool]:
    """Extend the chain and sign its head; (the seal, whether it is new). When nothing
    was chained since the newest seal by this key, that seal is returned unchanged.
    ``settle`` as for ``extend``."""
    if settle:
        store.settle()
    with store.exclusive(CHAIN_LOCK) as tx:
        head = _extend(store, tx)
        rows = tx.query(f"SELECT {_SEAL_COLUMNS} FROM seals ORDER BY seq DESC LIMIT 1")
        newest = _seal(rows[0]) if rows else None
        if newest is not None and newest.key == key.public and newest.as_head == head:
            return newest, False
        seq = newest.seq + 1 if newest else 1
        at = store.clock()
        signature = key.sign(seal_message(seq, head.position, head.events, head.head, at))
        tx.execute("INSERT INTO seals (seq, position, events, head, sealed_at_us, key, signature) "
                   "VALUES (:q, :p, :e, :h, :t, :k, :g)",
                   q=seq, p=head.position, e=head.events, h=head.head, t=at, k=key.public, g=signature)
        return Seal(seq, head.position, head.events, head.head, at, key.public, signature), True


_SEAL_COLUMNS = "seq, position, events, head, sealed_at_us, key, signature"


def _seal(row: Any) -> Seal:
    seq, position, events, head, at, key, signature = row
    return Seal(int(seq), int(position), int(events), bytes(head), int(at), key, bytes(signature))


def seals(store: EventStore) -> list[Seal]:
    """Every seal, oldest first."""
    return [_seal(r) for r in store.select(f"SELECT {_SEAL_COLUMNS} FROM seals ORDER BY seq")]


def chain_rows(store: EventStore, page: int = 20_000) -> Iterator[tuple[int, int, str, int, bytes]]:
    """Every chain entry (position, n, stream, version, hash) in position order."""
    position = -1
    while True:
        rows = store.select("SELECT position, n, stream_id, version, hash FROM chain WHERE position > :p "
                            "ORDER BY position LIMIT :n", p=position, n=page)
        if not rows:
            return
        for pos, n, sid, version, digest in rows:
            yield int(pos), int(n), sid, int(version), bytes(digest)
        position = rows[-1][0]


def seal_every() -> int:
    """Events between automatic chain extensions (and seals): ``$KARTLUDO_SEAL_EVERY``."""
    text = os.environ.get(SEAL_EVERY_ENV, "")
    try:
        return max(0, int(text)) if text else DEFAULT_SEAL_EVERY
    except ValueError:
        log.warning("%s=%r is not a number: sealing every %d events", SEAL_EVERY_ENV, text, DEFAULT_SEAL_EVERY)
        return DEFAULT_SEAL_EVERY


@functools.lru_cache(maxsize=512)
def ends_a_deal(tag: str) -> bool:
    """Whether an event of type ``tag`` ends a deal or a match (``Event.ends_deal``,
    set by each game's events): a moment a seal is due."""
    try:
        return event_type(tag).ends_deal
    except UnknownEventType:
        return False


class AutoSealer:
    """Called by the store after its appends: every ``every`` events extends the chain
    and, when the seal key exists, seals it; with the key, also after any append that
    ends a deal or a match (``ends_a_deal``). A failure is logged, never raised: the
    events it follows are committed already, and the next round chains them."""

    def __init__(self, every: int, key_file: str | None = None) -> None:
        self.every = every
        self.key_file = key_path(key_file)
        self._count = 0
        self._lock = threading.Lock()
        #: a round was due while another thread ran one: that thread runs once more
        self._again = False

    def appended(self, store: EventStore, n: int, rows: Sequence[Sequence[Any]] = ()) -> None:
        """``n`` events were committed; ``rows`` (as stored: the type third) when known."""
        self._count += n
        if self._count < self.every and not (any(map(ends_a_deal, set(map(_TYPE, rows))))
                                             and self.key_file.exists()):
            return
        if not self._lock.acquire(blocking=False):
            self._again = True
            return
        try:
            self._again = True
            while self._again:
                self._again = False
                self._count = 0
                self.run(store)
        except Exception as exc:  # noqa: BLE001 - see the class docstring
            log.warning("automatic seal of %s failed: %s", store.url, exc)
        finally:
            self._lock.release()

    def run(self, store: EventStore) -> Head:
        key = load_optional(self.key_file)
        if key is None:
            return extend(store, settle=False)
        return seal(store, key, settle=False)[0].as_head


__all__ = ["AutoSealer", "Head", "Seal", "chain_head", "chain_rows", "ends_a_deal", "extend",
           "fingerprint", "link", "parse_head", "seal", "seal_every", "seals"]
