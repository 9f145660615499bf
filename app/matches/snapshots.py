"""Loading a match from its nearest snapshot: a cold load folds only what follows it.

A snapshot is the folded match (the game state, and the match's own facts: closed,
its rulings' disputes) at a deal
boundary, msgpack-encoded with msgspec, written at most once per ``EVERY`` events of a
stream: when a command leaves the match between deals, and when a load has folded past
such a boundary. Its ``code`` is the game, its ruleset and a digest of its state's
shape: a snapshot written by other rules or another state layout is ignored. A
snapshot whose event hash differs from the stored event at its version (another
history under the same stream id) is ignored too. Snapshots change no result: a load
from one gives exactly the state the full fold gives (a property test checks it).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import msgspec

from kartludo.app.matches.log import MatchLog
from kartludo.engine import match as aggregate
from kartludo.engine.base import Game
from kartludo.engine.match import Dispute, Match
from kartludo.engine.registry import get_game
from kartludo.events.match import MatchCreated
from kartludo.events.streams import MATCH_PREFIX
from kartludo.events.streams import match_stream as stream_of
from kartludo.store import EventStore, Recorded
from kartludo.store import snapshots as table
from kartludo.store.integrity import Problem

#: fewest events between two snapshots of a stream
EVERY = 100
#: the encoding of a snapshot row's state (bump when ``encode`` changes; 2: the match's disputes)
FORMAT = 2

_encoder = msgspec.msgpack.Encoder()
_lock = threading.Lock()
_codes: dict[str, tuple[str, type, msgspec.msgpack.Decoder]] = {}
#: the newest snapshot version written or used per stream (bounded)
_latest: dict[str, int] = {}


def _game_info(game: Game[Any], created: MatchCreated) -> tuple[str, type, msgspec.msgpack.Decoder]:
    """(code, state type, its decoder) of ``game``, computed once."""
    info = _codes.get(game.name)
    if info is None:
        state_type = type(game.start(created))
        shape = msgspec.json.encode(msgspec.json.schema(state_type))
        digest = hashlib.sha256(shape).hexdigest()[:16]
        code = f"{game.name}/{game.ruleset}/{FORMAT}/{digest}"
        info = (code, state_type, msgspec.msgpack.Decoder(tuple[state_type, bool, dict[str, Dispute]]))  # type: ignore[valid-type]
        with _lock:
            _codes[game.name] = info
    return info


def code_of(game: Game[Any], created: MatchCreated) -> str:
    return _game_info(game, created)[0]


def encode(match: Match) -> bytes:
    return _encoder.encode((match.state, match.closed, match.disputes))


def decode(game: Game[Any], created: MatchCreated, data: bytes) -> tuple[Any, bool, dict[str, Dispute]]:
    """A snapshot's state, decoded into the game's typed state (an array under an
    ``Any`` annotation would come back a list where the engine folds tuples: the
    snapshot property test would catch a state typed so)."""
    state, closed, disputes = _game_info(game, created)[2].decode(data)
    return state, closed, disputes


def _remember(stream: str, version: int) -> None:
    with _lock:
        if len(_latest) >= 10_000:
            _latest.clear()
        _latest[stream] = max(version, _latest.get(stream, 0))


def _save(store: EventStore, match: Match, event_hash: bytes) -> None:
    stream = stream_of(match.id)
    if table.save(store, stream, code_of(match.game, match.created), match.version, event_hash, encode(match)):
        _remember(stream, match.version)


def load(store: EventStore, match_id: str) -> Match | None:
    """The match folded to its newest event, from its nearest usable snapshot (None:
    no such stream). Writes a snapshot when it folded ``EVERY`` events past one."""
    log = load_log(store, match_id)
    return None if log is None else log.match


def load_log(store: EventStore, match_id: str) -> MatchLog | None:
    """``load``, as a log (``MatchService`` keeps one per match): folded from the nearest
    usable snapshot, or from the stream's start."""
    stream = stream_of(match_id)
    head = store.read_stream(stream, 1, 1)
    if not head:
        return None
    created = head[0].event
    if not isinstance(created, MatchCreated):
        aggregate.fold(match_id, head)  # raises the pipeline's error
        return None
    game = get_game(created.game)
    snap = table.nearest(store, stream, code_of(game, created))
    if snap is not None:
        records = store.read_stream(stream, snap.version)
        if records and records[0].version == snap.version and records[0].hash == snap.event_hash:
            state, closed, disputes = decode(game, created, snap.state)
            _remember(stream, snap.version)
            log = MatchLog(Match(match_id, game, created, state, snap.version, closed, disputes), records[0])
            _fold(store, log, records[1:])
            return log
    records = store.read_stream(stream)
    log = MatchLog(aggregate.start(match_id, records[0]), records[0], created=True)
    _fold(store, log, records[1:])
    return log


def _fold(store: EventStore, log: MatchLog, records: list[Recorded]) -> None:
    """Fold ``records`` into ``log``; snapshot the last deal boundary passed, if it is
    ``EVERY`` events past the newest snapshot."""
    match = log.match
    can_deal = match.game.can_deal
    since = _latest.get(stream_of(match.id), 0)
    boundary: tuple[Match, bytes] | None = None

    def each(rec: Recorded) -> None:
        nonlocal since, boundary
        if rec.version - since >= EVERY and can_deal(match.state):
            boundary = (match.copy(), rec.hash)
            since = rec.version

    log.fold(records, each)
    if boundary is not None:
        _save(store, *boundary)


def after_commit(store: EventStore, match: Match) -> None:
    """A command moved ``match`` (already folded): snapshot it when it now stands
    between deals ``EVERY`` events past its newest snapshot."""
    stream = stream_of(match.id)
    if match.version - _latest.get(stream, 0) < EVERY or not match.game.can_deal(match.state):
        return
    event_hash = table.head_hash(store, stream, match.version)
    if event_hash is not None:
        _save(store, match, event_hash)


def starts(store: EventStore, match_id: str) -> tuple[Recorded, Iterator[tuple[Match, Recorded]]] | None:
    """Where a reader of part of a match may start folding: the stream's first event,
    and the match as of each usable snapshot (newest first, with the stored event at
    its version), then as created (with that first event). None: no such stream;
    the first event alone: a stream that does not start with ``MatchCreated`` (the
    reader's full fold reports it). Reads only; writes no snapshot."""
    stream = stream_of(match_id)
    head = store.read_stream(stream, 1, 1)
    if not head:
        return None
    first = head[0]
    created = first.event

    def walk() -> Iterator[tuple[Match, Recorded]]:
        if isinstance(created, MatchCreated):
            game = get_game(created.game)
            code = code_of(game, created)
            below: int | None = None
            for _ in range(table.KEEP + 1):  # the kept rows, and one written meanwhile
                snap = table.nearest(store, stream, code, below)
                if snap is None or snap.version <= 1:
                    break
                below = snap.version
                at = store.read_stream(stream, snap.version, snap.version)
                if at and at[0].hash == snap.event_hash:
                    state, closed, disputes = decode(game, created, snap.state)
                    yield Match(match_id, game, created, state, snap.version, closed, disputes), at[0]
            yield aggregate.start(match_id, first), first

    return first, walk()


def check(store: EventStore) -> tuple[int, list[Problem]]:
    """(snapshot rows, problems): every snapshot a load would start from (its match's
    current code, the stored event's hash at its version) must decode to the match
    folded from its events up to that version. The snapshots table is a cache outside
    every hash chain, and `state`, replays and the service fold from it: an edited row
    would change what they show while the log itself verifies. A row that fits no stored
    event is named too; a row of another code (rules or state layout since changed) is
    stale, not wrong, and left alone: no load uses it."""
    try:
        rows = table.all_rows(store)
    except Exception:  # noqa: BLE001 - no table (it may be dropped at any time): nothing to check
        return 0, []
    by_stream: dict[str, list[Any]] = {}
    for row in rows:
        by_stream.setdefault(row[0], []).append(row)
    problems: list[Problem] = []
    for stream, snapshots in by_stream.items():
        records = store.read_stream(stream)
        created = records[0].event if records else None
        for _sid, _code, version, event_hash, _state in snapshots:
            if not isinstance(created, MatchCreated) or not 1 <= version <= len(records) \
                    or records[version - 1].hash != bytes(event_hash):
                # snapshots are written beside the match's own events, which never change:
                # a row that fits none was edited (its stream, version or event hash)
                problems.append(Problem(stream, int(version), 0, "fits no stored event (no such match, version "
                                        "or event hash): an altered row (snapshots are a cache: delete it)",
                                        f"snapshot of {stream} at version {version}"))
        if not isinstance(created, MatchCreated):
            continue
        try:
            code = code_of(get_game(created.game), created)
        except Exception:  # noqa: BLE001 - an unknown game: the fold check reports the stream
            continue
        usable = {int(version): bytes(state) for _sid, row_code, version, event_hash, state in snapshots
                  if row_code == code and 1 <= version <= len(records)
                  and records[version - 1].hash == bytes(event_hash)}
        if not usable:
            continue
        match_id = stream.removeprefix(MATCH_PREFIX)
        try:
            match = aggregate.start(match_id, records[0])
            for rec in records[:max(usable)]:
                if rec.version > 1:
                    match.apply(rec.event, rec.version)
                state = usable.get(rec.version)
                if state is None:
                    continue
                place = f"snapshot of {stream} at version {rec.version}"
                try:
                    stored = decode(match.game, created, state)
                except Exception as exc:  # noqa: BLE001 - a load from it would fail
                    problems.append(Problem(stream, rec.version, rec.position, f"does not decode ({exc}): "
                                            f"loads of match {match_id} fail (altered)", place))
                    continue
                if stored != (match.state, match.closed, match.disputes):
                    problems.append(Problem(stream, rec.version, rec.position, "is not the match folded from its "
                                            "events: `state`, replays and the service would show what the log "
                                            "does not say (altered; snapshots are a cache: delete the row)",
                                            place))
        except Exception:  # noqa: BLE001 - a match that does not fold: the fold check reports it
            continue
    return len(rows), problems

