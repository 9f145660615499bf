"""Checking the stored log: stream chains, the global chain, the seals, ``commands``.

``verify`` trusts nothing in a row it can recompute:

0. SQLite: the file's own pages hold together (``store.damage``: each damaged page
   named, and noted beside the file so that no write goes in until it is repaired);
1. every stream's versions run 1, 2, 3… and each row's hash is recomputed from its
   content and its predecessor's hash, so an edited payload, envelope, hash or version
   is named (stream, version, position); positions must grow with versions;
2. the global chain is recomputed over the events in position order and compared,
   entry by entry, with the stored chain (``store.chain``): an event deleted, inserted
   or moved anywhere up to the chain's end, or edited with its stream's chain
   recomputed, is named by its position;
3. every seal's Ed25519 signature is checked (against the trusted public keys given,
   else against the key each seal names), seals are numbered without gaps, and the
   recomputed chain must pass through each seal's head: a rewrite with every hash and
   chain entry recomputed, or a truncation, before a seal is caught there; so is any
   written-down head passed in (``heads``), which also covers deleted seals;
4. the ``commands`` table (idempotency keys) must be exactly what the events say
   (per stream and command id: its first and last version): a deleted, edited or
   forged row, which would let a retried command apply twice or refuse a new one, is
   named.

Not covered (see ``store.chain``): events after the chain's end rest on their stream
chains only, and everything after the newest seal the verifier knows of can be
removed together with its chain entries and seals.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from kartludo.events.base import UndecodableEvent, UnknownEventType, decode
from kartludo.store.chain import Head, Seal, chain_rows, link, seals
from kartludo.store.damage import check_file
from kartludo.store.envelope import GENESIS, chain_hash
from kartludo.store.eventstore import EventStore
from kartludo.store.keys import fingerprint


class Problem(msgspec.Struct, frozen=True):
    """One thing found wrong. An event's problem names stream, version and position;
    another names its ``place`` (a seal, a ``commands`` row, a head)."""

    stream_id: str
    version: int
    position: int
    reason: str
    place: str = ""

    def __str__(self) -> str:
        if self.place:
            return f"{self.place}: {self.reason}"
        return f"stream {self.stream_id} version {self.version} (position {self.position}): {self.reason}"


class Report(msgspec.Struct):
    streams: int = 0
    events: int = 0
    problems: list[Problem] = []
    #: events the global chain covers, and its last position
    chained: int = 0
    chain_end: int = 0
    #: events after the chain's end: covered by their stream chains only
    unchained: int = 0
    seals: int = 0
    #: whether the seals were checked against keys the caller trusts
    seals_trusted: bool = False
    newest_seal: Head | None = None
    #: when the newest seal was made: everything after it rests on written-down heads
    newest_sealed_at_us: int | None = None
    commands: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


class _Stop(Exception):
    """The first problem is found and only the first was asked for."""


class _Checker:
    def __init__(self, store: EventStore, report: Report, stop_at_first: bool) -> None:
        self.store, self.report, self.stop_at_first = store, report, stop_at_first

    def problem(self, problem: Problem) -> None:
        self.report.problems.append(problem)
        if self.stop_at_first:
            raise _Stop

    # --- 1. stream chains ----------------------------------------------------
    def file(self) -> None:
        """SQLite: the file's own pages (``store.damage``), first: the checks after it
        read every row, and a damaged page would stop them half-way."""
        found = check_file(self.store.engine)
        for line in found:
            self.problem(Problem("", 0, 0, line, place="database file"))
        if found:
            raise _Stop

    def streams(self, decode_payloads: bool) -> None:
        report = self.report
        stream = None
        expect_version, prev_hash, prev_position = 0, GENESIS, 0
        for pos, sid, ver, tag, sv, payload, rec, actor, cid, prev, digest in _by_stream(self.store):
            report.events += 1
            if sid != stream:
                stream = sid
                report.streams += 1
                expect_version, prev_hash, prev_position = 0, GENESIS, 0
            expect_version += 1
            reason = None
            if ver != expect_version:
                reason = (f"version {ver} where {expect_version} was expected: version {expect_version} is missing "
                          "(a gap, or a renumbered event)")
            elif bytes(prev) != prev_hash:
                reason = "previous-hash link does not match the preceding event's hash"
            elif chain_hash(prev_hash, sid, ver, tag, sv, rec, actor, cid, bytes(payload)) != bytes(digest):
                reason = "hash does not match the event's content (payload or envelope altered)"
            elif pos <= prev_position:
                reason = (f"global position {pos} is not after version {ver - 1}'s position {prev_position} "
                          "(order altered)")
            elif decode_payloads:
                try:
                    decode(tag, sv, bytes(payload))
                except (UnknownEventType, UndecodableEvent) as exc:
                    reason = str(exc)
            if reason is not None:
                self.problem(Problem(sid, ver, pos, reason))
                expect_version = ver
            prev_hash, prev_position = bytes(digest), pos

    # --- 2 and 3. the global chain and its seals ------------------------------
    def seals(self, trusted: Sequence[str]) -> list[Seal]:
        found = seals(self.store)
        self.report.seals = len(found)
        self.report.seals_trusted = bool(trusted)
        for expected, s in enumerate(found, 1):
            before = found[expected - 2] if expected > 1 else None
            place = f"seal #{s.seq} (position {s.position}, {s.events} events)"
            if s.seq != expected:
                self.problem(Problem("", 0, s.position, f"seal #{expected} is missing (deleted)", place))
            if trusted and s.key not in trusted:
                self.problem(Problem("", 0, s.position, f"signed by key {fingerprint(s.key)}, which is not trusted "
                                     f"(trusted: {', '.join(fingerprint(k) for k in trusted)})", place))
            elif not s.signed_by(s.key):
                self.problem(Problem("", 0, s.position, "signature does not verify: the seal was altered or forged",
                                     place))
            if before is not None and (s.events < before.events or s.position < before.position):
                self.problem(Problem("", 0, s.position, "covers fewer events than the seal before it", place))
        if found:
            self.report.newest_seal = found[-1].as_head
            self.report.newest_sealed_at_us = found[-1].sealed_at_us
        return found

    def chain(self, found: list[Seal], heads: Sequence[Head]) -> None:
        report = self.report
        targets: dict[int, list[tuple[str, Head]]] = {}
        for s in found:
            targets.setdefault(s.position, []).append((f"seal #{s.seq} (position {s.position}, {s.events} events)",
                                                       s.as_head))
        sealed = {s.as_head for s in found}
        for h in heads:
            place = f"written-down head {h.text()}"
            targets.setdefault(h.position, []).append((place, h))
            if h not in sealed:
                self.problem(Problem("", 0, h.position, "no seal in the database records this head (seals deleted "
                                     "or replaced)", place))
        head, n = GENESIS, 0
        entries = chain_rows(self.store)
        events = _in_order(self.store)
        entry = next(entries, None)
        event = next(events, None)
        while entry is not None or event is not None:
            if entry is not None and (event is None or entry[0] < event[0]):
                pos, en, sid, ver, digest = entry
                self.problem(Problem(sid, ver, pos, "missing: the global chain records this event here "
                                     "(deleted, or moved to another position)"))
                head, n = digest, en
                self._reached(targets, pos, head, n, exact=False)
                entry = next(entries, None)
                continue
            pos, sid, ver, digest = event  # type: ignore[misc]
            if entry is None or pos < entry[0]:
                if entry is not None:
                    self.problem(Problem(sid, ver, pos, "not in the global chain: inserted, or moved here from "
                                         "another position"))
                else:
                    report.unchained += 1
                    for place, _ in targets.pop(pos, []):
                        self.problem(Problem(sid, ver, pos, "the global chain no longer reaches this head: its "
                                             "entries up to here were deleted", place))
                event = next(events, None)
                continue
            _, en, csid, cver, cdigest = entry
            head, n = link(head, pos, digest), n + 1
            if (csid, cver) != (sid, ver):
                self.problem(Problem(sid, ver, pos, f"the global chain records {csid} version {cver} at this "
                                     "position (events moved or renumbered)"))
                head, n = cdigest, en
            elif n != en:
                self.problem(Problem(sid, ver, pos, f"the global chain counts {en} events up to here, the log "
                                     f"{n}: events before this one were deleted with their chain entries"))
                head, n = cdigest, en
            elif head != cdigest:
                self.problem(Problem(sid, ver, pos, "the global chain breaks here: the event's hash is not the "
                                     "one chained (edited, its stream's chain recomputed)"))
                head = cdigest
            report.chained, report.chain_end = n, pos
            self._reached(targets, pos, head, n, exact=True)
            entry, event = next(entries, None), next(events, None)
        for position in sorted(targets):
            for place, target in targets[position]:
                if position == 0 and target.events == 0 and target.head == GENESIS:
                    continue  # a seal of the empty log
                self.problem(Problem("", 0, position, f"the log no longer reaches this head: it has no event at "
                                     f"position {position} (truncated, or the event deleted)", place))

    def _reached(self, targets: dict[int, list[tuple[str, Head]]], pos: int, head: bytes, n: int,
                 exact: bool) -> None:
        for place, target in targets.pop(pos, []):
            if not exact:
                self.problem(Problem("", 0, pos, "the log no longer reaches this head: its last event is "
                                     "missing", place))
            elif target.head != head or target.events != n:
                self.problem(Problem("", 0, pos, f"the log no longer reaches this head: the chain gives "
                                     f"{n} events and head {head.hex()[:16]}… here (history before it was "
                                     "rewritten)", place))

    # --- 4. commands ----------------------------------------------------------
    def commands(self) -> None:
        """The ``commands`` table against the events, a page of rows at a time: each page
        of rows is compared with what the events say for the same range of keys (the
        database orders both), so memory holds a page, not every command of the log."""
        after = ("", "")
        while True:
            rows = self.store.command_rows(after)
            upto = (rows[-1][0], rows[-1][1]) if rows else None
            derived = self._derived(after, upto)
            for sid, cid, first, last in rows:
                self.report.commands += 1
                place = f"commands row ({sid!r}, {cid!r})"
                expected = derived.pop((sid, cid), None)
                if expected is None:
                    self.problem(Problem(sid, 0, 0, "no event carries this command id (a forged or altered row)",
                                         place))
                elif (first, last) != expected[:2]:
                    self.problem(Problem(sid, first, 0, f"versions {first}-{last} where its events are "
                                         f"{expected[0]}-{expected[1]} (altered)", place))
            for (sid, cid), (first, last, _count) in derived.items():
                self.problem(Problem(sid, first, 0, f"missing for versions {first}-{last}: a retry of this "
                                     "command would apply again (deleted or altered)",
                                     f"commands row ({sid!r}, {cid!r})"))
            if upto is None:
                return
            after = upto

    def _derived(self, after: tuple[str, str], upto: tuple[str, str] | None
                 ) -> dict[tuple[str, str], tuple[int, int, int]]:
        """The commands the events carry after ``after`` up to ``upto`` (None: to the
        end), checking that each is one run of versions."""
        derived: dict[tuple[str, str], tuple[int, int, int]] = {}
        while rows := self.store.commands_from_events(after, upto=upto):
            for sid, cid, first, last, count in rows:
                derived[(sid, cid)] = (int(first), int(last), int(count))
                if count != last - first + 1:
                    self.problem(Problem(sid, first, 0, f"its {count} events are not one run of versions "
                                         f"{first}-{last}", f"command {cid!r} on {sid}"))
            after = (rows[-1][0], rows[-1][1])
        return derived


def _by_stream(store: EventStore, batch: int = 20_000) -> Iterator[Sequence]:
    """All rows in (stream, version) order, fetched in keyset pages (one walk of the
    (stream, version) index)."""
    after = ("", 0)
    while rows := store.rows_by_stream(after, batch):
        yield from rows
        after = (rows[-1][1], rows[-1][2])


def _in_order(store: EventStore, batch: int = 20_000) -> Iterator[tuple[int, str, int, bytes]]:
    """Every row (settled or not) in position order: (position, stream, version, hash)."""
    position = -1
    while rows := store.rows_in_order(position, batch, settled=False):
        for row in rows:
            yield int(row[0]), row[1], int(row[2]), bytes(row[10])
        position = rows[-1][0]


def verify(
    store: EventStore,
    *,
    decode_payloads: bool = True,
    stop_at_first: bool = True,
    trusted: Sequence[str] = (),
    heads: Sequence[Head] = (),
) -> Report:
    """Check everything above; with ``stop_at_first`` the report holds the first problem
    only. ``trusted``: public keys (hex) the seals must be signed by; ``heads``: heads
    written down earlier that the log must still pass through."""
    report = Report()
    checker = _Checker(store, report, stop_at_first)
    try:
        checker.file()
        checker.streams(decode_payloads)
        found = checker.seals(list(trusted))
        checker.chain(found, heads)
        checker.commands()
    except _Stop:
        pass
    return report
