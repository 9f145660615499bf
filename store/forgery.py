"""Import-side checks beyond the hash chains: what a well-chained forged log can still try.

Anyone can write a file whose every hash checks out: chains prove order and
integrity, not origin. A signed export proves origin (``store.transfer``); these
checks also hold for a file imported ``--unsigned``, and for a signer's mistakes:

- credentials: token events (``token.issued``/``token.revoked``) come in only when
  asked for (``--with-tokens``), and only from a signed file;
- a match copied under a new id (it would count twice in standings): its creation
  event (time, actor, command id, content) or a deal's salted commitment is the same
  as another match's, in the file or in the database;
- a fake closing event: a game's match end must be what the rules make happen at that
  point of the match (``Game.automatic``), and ``match.closed`` needs the match's series
  to have passed its deadline when it was recorded, after the match's last deal.

The match checks fold each imported match through its game's engine as the lines
go by (the database's part of a continued match first), one state per match.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from kartludo.events.base import decode
from kartludo.events.streams import MATCH_PREFIX, SERIES_PREFIX
from kartludo.store.errors import ImportRefused
from kartludo.store.eventstore import EventStore

TOKEN_TYPES = frozenset({"token.issued", "token.revoked"})
_pack = msgspec.msgpack.Encoder().encode


def creation_fingerprint(row: tuple[Any, ...]) -> bytes:
    """What identifies a match apart from its id: its creation event's type, time,
    actor, command id and content (a stored row: stream, version, type, schema,
    payload, recorded_at, actor, command id, …)."""
    _sid, _ver, tag, sv, payload, rec, actor, cid = row[:8]
    return hashlib.sha256(_pack((tag, sv, rec, actor, cid)) + bytes(payload)).digest()


def _deadline(created: Any) -> int:
    """A series' deadline (microseconds), as ``app.series.Series.deadline_us`` reckons it."""
    return int(created.starts_at_us + created.minutes * 60_000_000)


class _Match:
    __slots__ = ("game", "state", "series")

    def __init__(self, game: Any, state: Any, series: str | None) -> None:
        self.game, self.state, self.series = game, state, series


class Screen:
    """Fed every line of an import (``new`` when it is not in the database yet);
    raises ``ImportRefused`` naming the line."""

    def __init__(self, store: EventStore, *, with_tokens: bool) -> None:
        self.store = store
        self.with_tokens = with_tokens
        self.matches: dict[str, _Match | None] = {}
        #: creations and deal commitments seen in the file: (stream, line, whether new)
        self.created: dict[bytes, tuple[str, int, bool]] = {}
        self.commitments: dict[str, tuple[str, int, bool]] = {}
        self.closings: list[tuple[int, str, str | None, int, int, int]] = []
        self.series_starts: dict[str, int] = {}

    def line(self, number: int, row: tuple[Any, ...], new: bool) -> None:
        sid, tag = row[0], row[2]
        if tag in TOKEN_TYPES and not self.with_tokens:
            raise ImportRefused(
                f"line {number}: {tag} on {sid} is a credential: import it only from a signed export, "
                "with --with-tokens"
            )
        if sid.startswith(SERIES_PREFIX) and tag == "series.created":
            from kartludo.events.series import SeriesCreated

            event = decode(tag, row[3], bytes(row[4]))
            if isinstance(event, SeriesCreated):
                self.series_starts[sid.removeprefix(SERIES_PREFIX)] = _deadline(event)
        if sid.startswith(MATCH_PREFIX):
            self._match_line(number, row, new)

    def _match_line(self, number: int, row: tuple[Any, ...], new: bool) -> None:
        from kartludo.engine.registry import get_game
        from kartludo.events.match import DealStarted, MatchClosed, MatchCreated

        sid, version, tag, sv, payload, rec = row[:6]
        if sid not in self.matches:
            self.matches[sid] = self._resume(number, sid, version)
        match = self.matches[sid]
        event = decode(tag, sv, bytes(payload))
        if version == 1:
            if not isinstance(event, MatchCreated):
                return  # not a match (``verify`` says so): nothing here for standings to count
            fingerprint = creation_fingerprint(row)
            other = self.created.get(fingerprint)
            if other is not None and other[0] != sid and (new or other[2]):
                copy, original = ((sid, number), other) if new else (other, (sid, number))
                raise ImportRefused(f"line {copy[1]}: {copy[0]} is a copy of {original[0]} (line {original[1]}) "
                                    "under another id")
            self.created.setdefault(fingerprint, (sid, number, new))
            try:
                game = get_game(event.game)
                self.matches[sid] = _Match(game, game.start(event), event.series)
            except Exception as exc:  # noqa: BLE001 - any failure to start is a refusal
                raise ImportRefused(f"line {number}: {sid} cannot start its game: {exc}") from None
            return
        if match is None:
            return
        if isinstance(event, DealStarted) and event.commitment:
            other = self.commitments.get(event.commitment)
            if other is not None and other[0] != sid and (new or other[2]):
                copy, original = ((sid, number), other) if new else (other, (sid, number))
                raise ImportRefused(f"line {copy[1]}: {copy[0]} deals the very deal (same salted commitment) of "
                                    f"{original[0]} (line {original[1]}): a copied match")
            self.commitments.setdefault(event.commitment, (sid, number, new))
        game, state = match.game, match.state
        if type(event) is MatchClosed:
            if new:
                if game.is_finished(state):
                    raise ImportRefused(f"line {number}: {sid} version {version}: match.closed after the match "
                                        "had finished")
                self.closings.append((number, sid, match.series, rec, event.deal, game.deal_number(state)))
            return
        try:
            if new and type(event).derived and not game.is_finished(state):
                after = game.evolve(state, event)
                if game.is_finished(after) and game.automatic(state)[:1] != [event]:
                    raise ImportRefused(f"line {number}: {sid} version {version}: {tag} ends the match where "
                                        "its rules do not (a forged closing event)")
                match.state = after
            else:
                match.state = game.evolve(state, event)
        except ImportRefused:
            raise
        except Exception as exc:  # noqa: BLE001 - an event the engine cannot fold
            raise ImportRefused(f"line {number}: {sid} version {version} does not fold: "
                                f"{type(exc).__name__}: {exc}") from None

    def _resume(self, number: int, sid: str, version: int) -> _Match | None:
        """A match first seen at ``version``: the database's events before it, folded."""
        if version == 1:
            return None
        from kartludo.engine.registry import get_game
        from kartludo.events.match import MatchClosed, MatchCreated

        records = self.store.read_stream(sid, 1, version - 1)
        if not records:
            return None  # the chain check refuses the line
        created = records[0].event
        if not isinstance(created, MatchCreated):
            return None
        try:
            game = get_game(created.game)
            state = game.start(created)
            for rec in records[1:]:
                if type(rec.event) is not MatchClosed:
                    state = game.evolve(state, rec.event)
        except Exception as exc:  # noqa: BLE001
            raise ImportRefused(f"line {number}: {sid} in the database does not fold: {exc}") from None
        return _Match(game, state, created.series)

    def finish(self) -> None:
        """The checks that need the whole file, or the database."""
        for number, sid, series, rec, deal, deal_number in self.closings:
            if series is None:
                raise ImportRefused(f"line {number}: match.closed on {sid}, which is in no series: only a "
                                    "series deadline closes a match")
            deadline = self.series_starts.get(series)
            if deadline is None:
                deadline = self._stored_deadline(series)
            if deadline is None:
                raise ImportRefused(f"line {number}: match.closed on {sid}: its series {series} is not known")
            if rec < deadline:
                raise ImportRefused(f"line {number}: match.closed on {sid} recorded before its series' deadline "
                                    "(a forged closing event)")
            if deal != deal_number:
                raise ImportRefused(f"line {number}: match.closed on {sid} names deal {deal}, the match is at "
                                    f"deal {deal_number}")
        if any(c[2] for c in self.created.values()) or any(c[2] for c in self.commitments.values()):
            self._against_database()

    def _stored_deadline(self, series: str) -> int | None:
        from kartludo.events.series import SeriesCreated

        records = self.store.read_stream(SERIES_PREFIX + series, 1, 1)
        if not records or not isinstance(records[0].event, SeriesCreated):
            return None
        return _deadline(records[0].event)

    def _against_database(self) -> None:
        """New matches must not repeat a stored match's creation or deals (one pass over
        the stored creations and deal starts, page by page)."""
        from kartludo.events.match import DealStarted

        position = -1
        while rows := self.store.select(
            "SELECT position, stream_id, version, type, schema_version, payload, recorded_at_us, actor, command_id "
            "FROM events WHERE type IN ('match.created', 'match.deal-started') AND position > :p "
            "ORDER BY position LIMIT 5000", p=position,
        ):
            position = rows[-1][0]
            for _pos, sid, *row in rows:
                if sid in self.matches:
                    continue  # the file continues this match: its events were compared one by one
                if row[1] == "match.created":
                    other = self.created.get(creation_fingerprint((sid, *row)))
                    if other is not None and other[2]:
                        raise ImportRefused(f"line {other[1]}: {other[0]} is a copy of {sid}, already stored, "
                                            "under another id")
                elif self.commitments:
                    event = decode(row[1], row[2], bytes(row[3]))
                    found = self.commitments.get(event.commitment) if isinstance(event, DealStarted) else None
                    if found is not None and found[2]:
                        new_sid, number, _ = found
                        raise ImportRefused(f"line {number}: {new_sid} deals the very deal (same salted "
                                            f"commitment) of {sid}, already stored: a copied match")
