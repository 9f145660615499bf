"""What one stored event is: its row's columns, ``Recorded`` and ``Appended``, and the
hash that chains it to its stream's previous event. Apart from ``EventStore`` so that
the drivers, the checks and the copying (``integrity``, ``transfer``) share it without
the store's connections.
"""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime

import msgspec

from kartludo.events.base import Event
from kartludo.store.errors import InvalidValue

GENESIS = bytes(32)
_sha256 = hashlib.sha256
_canonical = msgspec.msgpack.Encoder()

_COLUMNS = (
    "stream_id, version, type, schema_version, payload, recorded_at_us, actor, command_id, prev_hash, hash"
)


class Recorded(msgspec.Struct, frozen=True, gc=False):
    """An event with its envelope, as stored."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    recorded_at_us: int
    actor: str
    command_id: str
    prev_hash: bytes
    hash: bytes
    event: Event

    @property
    def recorded_at(self) -> datetime:
        return datetime.fromtimestamp(self.recorded_at_us / 1_000_000, tz=UTC).replace(
            microsecond=self.recorded_at_us % 1_000_000
        )


class Appended(msgspec.Struct, frozen=True):
    """Where an append landed; ``duplicate`` when the command id was seen before."""

    stream_id: str
    first_version: int
    last_version: int
    positions: list[int]
    duplicate: bool = False
    #: the events as stored, envelope and hash, when this call wrote them (so that
    #: whoever shows them need not read them back); empty for a duplicate
    records: tuple[Recorded, ...] = ()


def chain_hash(
    prev_hash: bytes,
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    recorded_at_us: int,
    actor: str,
    command_id: str,
    payload: bytes,
) -> bytes:
    """SHA-256 over the previous hash and the row's canonical content: the
    msgpack array ``[stream, version, type, schema, recorded_at_us, actor,
    command_id]`` followed by the payload bytes.

    The global position is left out on purpose: it belongs to one database, and an
    exported stream imported elsewhere keeps its hashes.
    """
    header = _canonical.encode((stream_id, version, type_, schema_version, recorded_at_us, actor, command_id))
    return _sha256(prev_hash + header + payload).digest()


#: the longest stream id, actor and command id (``VARCHAR(200)`` in ``store.schema``)
TEXT_LIMIT = 200


def check_envelope(stream_id: str, actor: str, command_id: str) -> None:
    """Refuse, on every backend, the envelope text PostgreSQL would refuse: over
    ``TEXT_LIMIT`` characters, a NUL character, or a lone surrogate (not UTF-8)."""
    for what, value in (("stream id", stream_id), ("actor", actor), ("command id", command_id)):
        if not isinstance(value, str):
            raise InvalidValue(f"the {what} must be text, not {type(value).__name__}")
        if len(value) > TEXT_LIMIT:
            raise InvalidValue(f"the {what} is {len(value)} characters long; at most {TEXT_LIMIT}: {value[:40]!r}…")
        if "\x00" in value:
            raise InvalidValue(f"the {what} contains a NUL character: {value[:40]!r}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidValue(f"the {what} is not valid UTF-8 text: {value[:40]!r}") from None


def now_us() -> int:
    return time.time_ns() // 1000
