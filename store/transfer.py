"""Export and import of event streams as JSON Lines (envelope + payload).

A line holds everything the hash covers except the global position, which belongs
to one database: importing elsewhere keeps every hash, and export -> import ->
export gives an identical file. Payloads are written exactly as stored (no
upcasting), so their msgpack bytes, and so the hash chain, are rebuilt exactly.

Signed exports: with the seal key (``store.keys``) the file ends with one more line,
``{"seal": …}``: the number of events, the head they end at (each event's hash chained
in file order), the stream exported (or none), whether token events are in it, the
public key and its Ed25519 signature of all that. The file stays deterministic (no
time in it). Token events (credentials, as hashes) are left out unless asked for.

An import refuses a file that is unsigned (unless ``unsigned``), signed by a key not
trusted, or altered after signing; refuses token events unless ``with_tokens``, and
then only from a signed file; and runs a caller's ``screen`` over every line (the
application's forgery checks, ``app.matches.forgery``, which fold matches: above the
store). It writes in one transaction: on any refusal, nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, Any, Protocol

import msgspec

from kartludo.events.base import UndecodableEvent, UnknownEventType, decode
from kartludo.store.database import first_line
from kartludo.store.envelope import GENESIS, chain_hash, check_envelope
from kartludo.store.errors import ImportRefused
from kartludo.store.eventstore import EventStore
from kartludo.store.keys import SealKey, fingerprint, signature_ok

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: credentials: imported only when asked for, from a signed file
TOKEN_TYPES = frozenset({"token.issued", "token.revoked"})
_raw = msgspec.msgpack.Decoder()
_packer = msgspec.msgpack.Encoder()


class Line(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One exported event. Field order is the file's column order."""

    stream_id: str
    version: int
    type: str
    schema_version: int
    recorded_at: str
    actor: str
    command_id: str
    prev_hash: str
    hash: str
    payload: Any


class ExportSeal(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The last line of a signed export: what the signature covers, and the signature."""

    events: int
    head: str
    stream: str | None
    with_tokens: bool
    key: str
    signature: str

    def message(self) -> bytes:
        return export_message(self.events, bytes.fromhex(self.head), self.stream, self.with_tokens)


class _SealLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seal: ExportSeal


def export_message(events: int, head: bytes, stream: str | None, with_tokens: bool) -> bytes:
    """The bytes an export's signature covers (tagged: no seal of the log reads the same)."""
    return _packer.encode(("kartludo-export", 1, events, head, stream or "", with_tokens))


def export_link(head: bytes, event_hash: bytes) -> bytes:
    """The export's running head after one more event."""
    return hashlib.sha256(head + event_hash).digest()


_line_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(Line)
_seal_decoder = msgspec.json.Decoder(_SealLine)
SEAL_PREFIX = b'{"seal":'


def format_us(us: int) -> str:
    seconds, micro = divmod(us, 1_000_000)
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{micro:06d}Z"


def parse_us(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"recorded_at {text!r} has no time zone")
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


#: rows per page read (export) or per batch written (import): what bounds the memory
BATCH = 5000
#: present events compared against the database per query (import)
_COMPARE = 500


def _export_rows(store: EventStore, stream_id: str | None) -> Iterator[Sequence[Any]]:
    """Settled rows in global order (or one stream's, by version), page by page."""
    key = 0
    while True:
        if stream_id is None:
            rows = store.rows_in_order(key, BATCH)
        else:  # a stream's positions grow with its versions: page by the (stream, version) index
            rows = store.stream_rows(stream_id, key, BATCH)
        if not rows:
            return
        yield from rows
        key = rows[-1][0 if stream_id is None else 2]


def export_events(store: EventStore, out: IO[bytes], stream_id: str | None = None, *,
                  key: SealKey | None = None, with_tokens: bool = False) -> int:
    """Write the log (or one stream) in global order, a page at a time; returns the
    number of events written. Everything committed before the call is included once
    settled (``EventStore.settle``); what is still unsettled when a page is read is not.
    Token events only ``with_tokens``; with ``key`` a signed seal line ends the file."""
    if stream_id is None:
        store.settle()
    n = 0
    head = GENESIS
    encode = _line_encoder.encode
    for _pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in _export_rows(store, stream_id):
        if tag in TOKEN_TYPES and not with_tokens:
            continue
        line = Line(sid, ver, tag, sv, format_us(rec), actor, cid, bytes(prev).hex(), bytes(digest).hex(),
                    _raw.decode(payload))
        out.write(encode(line) + b"\n")
        head = export_link(head, bytes(digest))
        n += 1
    if key is not None:
        signature = key.sign(export_message(n, head, stream_id, with_tokens))
        seal = ExportSeal(n, head.hex(), stream_id, with_tokens, key.public, signature.hex())
        out.write(encode(_SealLine(seal)) + b"\n")
    return n


class ImportSummary(msgspec.Struct):
    lines: int
    imported: int
    already_present: int
    streams: int


def _parse(number: int, raw: bytes) -> tuple:
    """One line checked on its own: shape, known type, decodable payload, own hash.
    Returns the row as stored."""
    try:
        line = _line_decoder.decode(raw)
    except msgspec.DecodeError as exc:
        raise ImportRefused(f"line {number}: not an exported event: {exc}") from None
    try:
        payload = _packer.encode(line.payload)
        decode(line.type, line.schema_version, payload)
        recorded = parse_us(line.recorded_at)
        prev, digest = bytes.fromhex(line.prev_hash), bytes.fromhex(line.hash)
        check_envelope(line.stream_id, line.actor, line.command_id)
    except (UnknownEventType, UndecodableEvent) as exc:
        raise ImportRefused(f"line {number}: {exc}") from None
    except ValueError as exc:
        raise ImportRefused(f"line {number}: {exc}") from None
    expected = chain_hash(
        prev, line.stream_id, line.version, line.type, line.schema_version, recorded, line.actor,
        line.command_id, payload,
    )
    if expected != digest:
        raise ImportRefused(
            f"line {number}: hash does not match the content of {line.stream_id} version {line.version}"
        )
    return (line.stream_id, line.version, line.type, line.schema_version, payload, recorded, line.actor,
            line.command_id, prev, digest)


class LineScreen(Protocol):
    """Checks an import runs over every line beside its own (``import_events``'s
    ``screen``): ``line`` gets each event line's row (stream, version, type, schema
    version, payload, recorded at, actor, command id, previous hash, hash) and whether
    it is new to the database; ``finish`` runs once the file is read. Either raises
    ``ImportRefused`` naming the line."""

    def line(self, number: int, row: tuple[Any, ...], new: bool) -> None: ...

    def finish(self) -> None: ...


class _Stream:
    """What the import knows of one stream: the database's version when first seen,
    the file's last line, and the command run in progress."""

    __slots__ = ("held", "version", "digest", "command", "first_new", "last_new")

    def __init__(self, held: int) -> None:
        self.held = held
        self.version = 0
        self.digest = GENESIS
        self.command: str | None = None
        self.first_new = 0
        self.last_new = 0


class _Import:
    """The single pass of an import: each line checked, linked to its stream, and
    either compared with the stored event or queued for the transaction."""

    def __init__(self, store: EventStore, write: Callable[[list[tuple], list[tuple]], None], *,
                 trusted: Sequence[str], unsigned: bool, with_tokens: bool, screen: LineScreen | None) -> None:
        self.store = store
        self.write = write
        self.trusted, self.unsigned, self.with_tokens = list(trusted), unsigned, with_tokens
        self.screen = screen
        self.head = GENESIS
        self.seal: tuple[int, ExportSeal] | None = None
        self.streams: dict[str, _Stream] = {}
        self.rows: list[tuple] = []
        self.commands: list[tuple] = []
        self.compare: list[tuple[int, str, int, bytes]] = []
        self.lines = self.imported = self.present = 0

    def line(self, number: int, raw: bytes) -> None:
        if self.seal is not None:
            raise ImportRefused(f"line {number}: after the seal line {self.seal[0]} (lines added to a signed file)")
        if raw.lstrip().startswith(SEAL_PREFIX):
            try:
                self.seal = (number, _seal_decoder.decode(raw).seal)
            except msgspec.DecodeError as exc:
                raise ImportRefused(f"line {number}: not an export's seal: {exc}") from None
            return
        row = _parse(number, raw)
        self.lines += 1
        self.head = export_link(self.head, row[9])
        sid, version, prev, digest, command = row[0], row[1], row[8], row[9], row[7]
        stream = self.streams.get(sid)
        if stream is None:
            stream = self.streams[sid] = self._first(number, sid, version, prev)
        elif version != stream.version + 1:
            raise ImportRefused(f"line {number}: {sid} version {version} where {stream.version + 1} was expected")
        elif prev != stream.digest:
            raise ImportRefused(f"line {number}: {sid} version {version} does not link to the previous hash")
        stream.version, stream.digest = version, digest
        if row[2] in TOKEN_TYPES and not self.with_tokens:
            raise ImportRefused(
                f"line {number}: {row[2]} on {sid} is a credential: import it only from a signed export, "
                "with --with-tokens"
            )
        if self.screen is not None:
            self.screen.line(number, row, version > stream.held)
        if version <= stream.held:
            self.present += 1
            self.compare.append((number, sid, version, digest))
            if len(self.compare) >= _COMPARE:
                self._compare()
            return
        if command != stream.command:
            self._close_run(sid, stream)
            stream.command, stream.first_new = command, version
        stream.last_new = version
        self.rows.append(row)
        if len(self.rows) >= BATCH:
            self._flush()

    def finish(self) -> ImportSummary:
        self._check_seal()
        if self.screen is not None:
            self.screen.finish()
        for sid, stream in self.streams.items():
            self._close_run(sid, stream)
        self._compare()
        self._flush()
        return ImportSummary(self.lines, self.imported, self.present, len(self.streams))

    def _check_seal(self) -> None:
        """The file's origin: signed by a trusted key, unaltered since; or ``unsigned``."""
        if self.seal is None:
            if not self.unsigned:
                raise ImportRefused("the file is not signed (no seal line at its end): import it with --unsigned "
                                    "only if you trust where it came from")
            return
        number, seal = self.seal
        if not self.trusted:
            raise ImportRefused(f"line {number}: signed by key {fingerprint(seal.key)}, but no key is trusted: "
                                f"pass --trust {seal.key} if it is the exporter's")
        if seal.key not in self.trusted:
            raise ImportRefused(f"line {number}: signed by key {fingerprint(seal.key)}, which is not trusted "
                                f"(trusted: {', '.join(fingerprint(k) for k in self.trusted)})")
        try:
            valid = signature_ok(seal.key, bytes.fromhex(seal.signature), seal.message())
        except ValueError:
            valid = False
        if not valid:
            raise ImportRefused(f"line {number}: the signature does not verify: the seal line was altered")
        if (seal.events, seal.head) != (self.lines, self.head.hex()):
            raise ImportRefused(f"line {number}: the file's {self.lines} events do not end at the signed head "
                                f"({seal.events} events): lines were added, removed or changed after signing")
        if seal.with_tokens != self.with_tokens and seal.with_tokens:
            raise ImportRefused(f"line {number}: the export carries token events: import it with --with-tokens")

    def _first(self, number: int, sid: str, version: int, prev: bytes) -> _Stream:
        """A stream's first line in the file links to the target's event before it, or
        to genesis."""
        held = self.store.stream_version(sid)
        if version == 1:
            link = GENESIS
        elif version - 1 <= held:
            link = self._stored_hashes([(sid, version - 1)])[(sid, version - 1)]
        else:
            raise ImportRefused(
                f"line {number}: {sid} starts at version {version} but the database has no version {version - 1}"
            )
        if prev != link:
            raise ImportRefused(f"line {number}: {sid} version {version} does not link to the previous hash")
        stream = _Stream(held)
        stream.version, stream.digest = version - 1, link
        return stream

    def _close_run(self, sid: str, stream: _Stream) -> None:
        """A command's new events on a stream are one run of versions: one command record."""
        if stream.command is not None:
            self.commands.append((sid, stream.command, stream.first_new, stream.last_new))
            stream.command = None

    def _compare(self) -> None:
        """Events the database already holds must be the very same (same hash)."""
        if not self.compare:
            return
        stored = self._stored_hashes([(sid, version) for _, sid, version, _ in self.compare])
        for number, sid, version, digest in self.compare:
            if stored.get((sid, version)) != digest:
                raise ImportRefused(f"line {number}: {sid} version {version} differs from the event already stored")
        self.compare = []

    def _stored_hashes(self, keys: list[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        return self.store.stored_hashes(keys)

    def _flush(self) -> None:
        if self.rows or self.commands:
            self.write(self.rows, self.commands)
            self.imported += len(self.rows)
            self.rows, self.commands = [], []


def import_events(store: EventStore, lines: Iterable[bytes], *, trusted: Sequence[str] = (),
                  unsigned: bool = False, with_tokens: bool = False,
                  screen: LineScreen | None = None) -> ImportSummary:
    """Append an exported file into ``store`` in one transaction, or nothing at all.

    Each stream in the file must continue the target's stream (or repeat events it
    already holds, which are skipped): versions consecutive, every hash linked. The
    file is read once, line by line, and written in batches: memory stays bounded by
    the number of streams, not the number of events.

    ``trusted``: the public keys (hex) a signed file may be signed by; ``unsigned``:
    accept a file without a seal line; ``with_tokens``: accept token events (from a
    signed file only); ``screen``: further checks of every line (``LineScreen``; the
    CLI's import passes the application's forgery checks, ``app.matches.forgery``).
    """
    if with_tokens and unsigned:
        raise ImportRefused("token events (credentials) are imported only from a signed export: "
                            "--with-tokens cannot go with --unsigned")
    with store.bulk_writer() as write:
        run = _Import(store, write, trusted=trusted, unsigned=unsigned, with_tokens=with_tokens, screen=screen)
        try:
            for number, raw in enumerate(lines, 1):
                if raw.strip():
                    run.line(number, raw)
            return run.finish()
        except store.integrity_error as exc:
            raise ImportRefused(
                f"the database changed or already holds these command ids: {first_line(exc)}"
            ) from None


def copy_events(source: EventStore, target: EventStore, after: int, upto: int) -> int:
    """Copy ``source``'s events after position ``after`` up to ``upto`` into ``target``
    exactly as stored, positions kept (``verify``'s scratch copy of the log, in which each
    read model is rebuilt up to its checkpoint); returns the last position copied
    (``after`` when there was none)."""
    import sqlalchemy as sa

    from kartludo.store.schema import events

    while batch := [r for r in source.rows_in_order(after, BATCH, settled=False) if r[0] <= upto]:
        with target.engine.begin() as conn:
            conn.execute(sa.insert(events), [dict(zip(("position", *events.c.keys()[1:]), r)) for r in batch])
        after = batch[-1][0]
    return after
