"""What a reader may see of a match's events and state, beyond the cards the game hides.

The game's ``redact``/``view`` hide cards from a seat or the public. On top of that:

- While a deal runs, its ``DealStarted`` shows the commitment to the deck but neither
  the deck (the game hides it) nor the salt. Once the deal has ended its events are
  public, every hand shown (``ALL``), so anyone can check the commitment.
- The match's seed and the seeded shuffles' keys (``"SEED:DEAL"``) derive every later
  deal: while the match runs only a TD's view (every hand, with a TD's authority)
  shows them, not even the public view of an ended deal. Once the match has ended
  (finished or closed) they are public.
- An event's chain hash is SHA-256 over the previous hash, the row's header and its
  payload, so a reader could test guesses of a hidden card against it (and, through
  the chain, against every later hash). A reader gets an event's hash only when that
  event and every one before it is shown to them exactly as stored: then the hash
  commits to nothing they cannot see.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from kartludo.app import aggregate
from kartludo.app.aggregate import MATCH_FACTS, Match
from kartludo.app.errors import InvalidInput, NotAllowed, UnknownMatch
from kartludo.engine.base import ALL, Game, Viewer
from kartludo.events.base import Event
from kartludo.events.match import (
    SEEDED_SHUFFLE,
    DealStarted,
    MatchCreated,
)
from kartludo.store import EventStore, Recorded


def match_over(match: Match) -> bool:
    """The match has ended (finished, or closed by its series): its seed is public."""
    return match.closed or match.game.is_finished(match.state)


def deal_over(match: Match) -> bool:
    """The match's latest deal has ended (or none runs): its events are public."""
    return match.closed or match.game.can_deal(match.state) or match.game.is_finished(match.state)


def sees_secrets(viewer: Viewer, td: bool, over: bool) -> bool:
    """Whether a reader sees the seed and the shuffle keys: a TD's every-hand view,
    or anyone once the match has ended."""
    return over or (td and viewer == ALL)


def shown_as(game: Game[Any], before: Any, event: Event, deal: int | None, current: int | None, last_ended: bool,
             viewer: Viewer, *, secrets: bool) -> tuple[Event, Viewer]:
    """``event`` (of deal ``deal``; None: before any deal) as ``viewer`` may see it now,
    ``current`` being the stream's newest deal and ``last_ended`` whether it has ended:
    an ended deal's events are public with every hand (``ALL``); a running one's are
    shown in the reader's own view. Returns the event shown and the view it is in."""
    ended = deal is not None and (deal != current or last_ended)
    seen = ALL if ended else viewer
    return redact(game, before, event, seen, secrets=secrets), seen


def redact(game: Game[Any], before: Any, event: Event, viewer: Viewer, *, secrets: bool) -> Event:
    """``event`` as ``viewer`` may see it; ``before`` is the match state before it (None
    only for ``MatchCreated``); ``secrets``: the reader may see the seed."""
    if isinstance(event, MatchCreated):
        return event if secrets or event.seed is None else msgspec.structs.replace(event, seed=None)
    if isinstance(event, MATCH_FACTS):  # the match's own facts hold no card
        return event
    shown = game.redact(before, event, viewer)
    if isinstance(shown, DealStarted):
        from kartludo.app.fairness import is_seed_key

        if viewer != ALL and shown.salt:
            shown = msgspec.structs.replace(shown, salt="")
        if not secrets and is_seed_key(shown.shuffle):
            shown = msgspec.structs.replace(shown, shuffle=SEEDED_SHUFFLE)
    return shown


class Shown(msgspec.Struct):
    """One stored event as a reader sees it."""

    record: Recorded
    #: the event as shown (hidden cards ``"??"``, secrets removed)
    event: Event
    #: the view it is shown in: the reader's, or ``ALL`` once its deal has ended
    viewer: Viewer
    #: the match state before it (None for ``MatchCreated``)
    before: Any
    #: the chain hash (hex), or None: withheld while it commits to something hidden
    hash: str | None


class Reading(msgspec.Struct):
    """A whole match stream as one reader sees it."""

    match: Match
    #: the reader holds a TD's authority
    td: bool
    #: the reader sees the seed and the shuffle keys
    secrets: bool
    shown: list[Shown]

    @property
    def over(self) -> bool:
        return match_over(self.match)

    def secrets_in(self, viewer: Viewer) -> bool:
        """Whether a view the reader asks for (e.g. one seat's, in a replay) shows the seed."""
        return self.secrets and sees_secrets(viewer, self.td, self.over)

    def of(self, record: Recorded) -> Shown:
        return self.shown[record.version - self.shown[0].record.version]

    def narrowed(self, record: Recorded, viewer: Viewer) -> Shown:
        """``record`` shown in ``viewer``'s view, one the reader may ask for (a replay of
        an ended deal in one seat's view): its hash only where nothing is hidden."""
        entitled = self.of(record)
        event = redact(self.match.game, entitled.before, record.event, viewer, secrets=self.secrets_in(viewer))
        return Shown(record, event, viewer, entitled.before, entitled.hash if event == record.event else None)


def read_match(match_id: str, records: list[Recorded], viewer: Viewer, *, td: bool | None = None) -> Reading:
    """Every event of the match in ``viewer``'s view (a seat, ``ALL`` or ``PUBLIC``);
    ``td`` (default: ``viewer == ALL``) says the reader holds a TD's authority."""
    reading = _read(aggregate.start(match_id, records[0]), records, viewer, td, created=True)
    assert reading is not None  # a read from the start always shows
    return reading


def read_from(start: Match, records: list[Recorded], viewer: Viewer, *, td: bool | None = None) -> Reading | None:
    """The events ``records`` (every event after ``start.version``, to the stream's
    end) in ``viewer``'s view, ``start`` being the match folded to a deal boundary (a
    snapshot): what ``read_match`` shows of them, without folding what came before.

    Before a deal boundary every deal has ended, so every earlier event of a deal is
    shown in ``ALL``'s view, exactly as stored but for a seeded shuffle's key (there
    only in a match with a seed); the match's own facts are shown as stored, and its
    ``MatchCreated`` without its seed but for a reader of the seed. So every earlier
    event is exact iff the reader sees the seed or the match has none. None when that
    does not hold: the stream's last deal began before ``start`` and has not ended
    (its events are shown in the reader's own view): read from the start then."""
    return _read(start, records, viewer, td, created=False)


def _read(match: Match, records: list[Recorded], viewer: Viewer, td: bool | None, *, created: bool) -> Reading | None:
    """``records`` folded into ``match`` and shown to ``viewer``: from the stream's
    start (``created``: ``records[0]`` is the ``MatchCreated`` ``match`` starts from),
    or from a deal boundary (``read_from``)."""
    game = match.game
    befores: list[Any] = [None] if created else []
    deals: list[int | None] = [None] if created else []
    boundary = None if created else (game.deal_number(match.state) or None)
    current = boundary
    for rec in records[1:] if created else records:
        event = rec.event
        if isinstance(event, DealStarted):
            current = event.deal
        befores.append(match.state)
        deals.append(current)
        match.apply(event, rec.version)
    last_ended = deal_over(match)
    td = viewer == ALL if td is None else td
    secrets = sees_secrets(viewer, td, match_over(match))
    if created:
        exact = True
    elif current == boundary and boundary is not None and not last_ended:
        return None
    else:
        exact = secrets or match.created.seed is None
    shown: list[Shown] = []
    for rec, before, deal in zip(records, befores, deals):
        event, seen = shown_as(game, before, rec.event, deal, current, last_ended, viewer, secrets=secrets)
        exact = exact and event == rec.event
        shown.append(Shown(rec, event, seen, before, rec.hash.hex() if exact else None))
    return Reading(match, td, secrets, shown)


def read_after(store: EventStore, match_id: str, viewer: Viewer, after: int = 0, *,
               td: bool | None = None) -> Reading:
    """The match read for the events after global position ``after``: from its nearest
    snapshot at or before ``after`` (``read_from``), else from its start. The reading
    holds at least every event after ``after``, each shown as ``read_match`` shows it."""
    from kartludo.app import snapshots

    found = snapshots.starts(store, match_id)
    if found is None:
        raise UnknownMatch(f"no match {match_id!r}")
    for start, at in found[1]:
        if start.version == 1 or after <= 0:
            break
        if at.position <= after:
            reading = read_from(start, store.read_stream(at.stream_id, start.version + 1), viewer, td=td)
            if reading is not None:
                return reading
            break
    return read_match(match_id, store.read_stream(found[0].stream_id), viewer, td=td)


def events_of(reading: Reading, after: int = 0) -> Iterable[Shown]:
    """The shown events after global position ``after``."""
    return (s for s in reading.shown if s.record.position > after)


def visible_events(match_id: str, records: list[Recorded], viewer: Viewer, after: int = 0) -> tuple[Match, list[Shown]]:
    """The match's events after global position ``after`` as ``viewer`` may see them:
    the events of a deal that has ended are public (every hand), the seed only once the
    match has ended (or to a TD: ``ALL``)."""
    if not records:
        raise UnknownMatch(f"no match {match_id!r}")
    reading = read_match(match_id, records, viewer)
    return reading.match, list(events_of(reading, after))


def replay_viewer(players: list[str], allowed: Viewer, asked: str | None) -> Viewer:
    """The view a replay shows: ``asked`` ("all", "public" or a player), within what the
    caller may see (``allowed``: everything once the deal has ended, else the caller's
    own view)."""
    if asked is None:
        return allowed
    if asked == "public":
        return None
    if asked == "all":
        wanted: Viewer = ALL
    elif asked in players:
        wanted = players.index(asked)
    else:
        raise InvalidInput(f"view {asked!r} is not 'all', 'public' or a player of this match ({', '.join(players)})")
    if allowed == ALL or wanted == allowed:
        return wanted
    raise NotAllowed(f"this deal is still running: the view {asked!r} needs a TD token"
                     + ("" if wanted == ALL else " or that seat's token"))
