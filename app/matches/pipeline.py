"""The match pipeline every game shares: load a match stream, fold it through the
game's engine, decide a command, append the events with the stream's expected
version, and on a concurrency conflict re-fold and re-decide.

The CLI, the simulator and the HTTP service all drive matches through
``MatchService``: there is one implementation of the command path (creation is its
lower part, ``creation.Creating``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from kartludo.app.errors import AppError, CommandConflict, TooMuchContention, UnknownMatch, check_text
from kartludo.app.ids import resolve_prefix
from kartludo.app.matches import snapshots
from kartludo.app.matches.creation import ACTOR_LIMIT, LOCAL_CALLER, Creating, key_holder, scoped_command_id
from kartludo.app.matches.fairness import committed, random_deck
from kartludo.app.matches.log import Entry, MatchLog, Moment
from kartludo.app.visibility import state_view
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, PUBLIC, Command, IllegalCommand, StartDeal, Viewer, seeded_deck
from kartludo.engine.match import Match
from kartludo.events.base import Event
from kartludo.events.match import RANDOM_SHUFFLE, DealStarted
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.store import Appended, ConcurrencyConflict, EventStore, Recorded

stream_of = match_stream

#: decides a command on the freshly folded match: the events to append (or raises the rule broken)
Decision = Callable[[Match], list[Event]]


class Outcome(msgspec.Struct, frozen=True):
    """What a command did: the events appended (or found, for a retried command id)."""

    match: str
    first_version: int
    positions: list[int]
    events: list[Event]
    duplicate: bool = False
    #: the state the events were decided on (to describe them); None for a duplicate
    before: Any = None
    #: ``events`` as stored (envelope and hash): as appended, or read back for a duplicate
    records: tuple[Recorded, ...] = ()
    #: the events as folded, each with the state before it (``log.Entry``; none for a duplicate)
    entries: tuple[Entry, ...] = ()
    #: the match as it stood when the command was decided, and what each reader saw of it
    #: exactly then (``log.Moment``; None for a duplicate)
    decided_on: Moment | None = None


class _HistoryLost(Exception):
    """The store's stream ends before the match this process folded (its newest events lost)."""


class MatchService(Creating):
    """Create matches, start deals and apply players' commands, safely under concurrency."""

    def __init__(self, store: EventStore, *, max_retries: int = 8, cache_size: int = 1000) -> None:
        self.store = store
        self.max_retries = max_retries
        self.cache_size = cache_size
        #: the matches held folded, each as a log (``log.MatchLog``): one fold for every reader
        self._cache: dict[str, MatchLog] = {}
        self._series_deadlines: dict[str, int] = {}

    # --- reading ---------------------------------------------------------------
    def resolve(self, prefix: str) -> str:
        """A match id from any unique prefix of it."""
        return self.cached_id(prefix) or resolve_prefix(self.store, MATCH_PREFIX, prefix.removeprefix(MATCH_PREFIX),
                                                        "match")

    def cached_id(self, prefix: str) -> str | None:
        """``prefix`` when it is the full id of a match held folded here, else None
        (no store call: safe on an event loop)."""
        prefix = prefix.removeprefix(MATCH_PREFIX)
        return prefix if prefix and prefix in self._cache else None

    def load(self, match_id: str, *, refresh: bool = True) -> Match:
        """The match folded to its newest event (cached; catches up with one read)."""
        return self.log(match_id, refresh=refresh).match

    def log(self, match_id: str, *, refresh: bool = True) -> MatchLog:
        """The match's log (``load``'s match, with what its readers need of its fold)."""
        log = self._cache.get(match_id)
        if log is None:
            loaded = snapshots.load_log(self.store, match_id)  # from its nearest snapshot
            if loaded is None:
                raise UnknownMatch(f"no match {match_id!r}")
            log = loaded
            if len(self._cache) >= self.cache_size:  # a long-running service: forget the oldest
                try:  # but a followed one (a live stream folds through it)
                    oldest = next(m for m, held in self._cache.items() if not held.followers)
                    self._cache.pop(oldest, None)
                except (StopIteration, RuntimeError):  # another thread changed the cache meanwhile
                    pass
            self._cache[match_id] = log
        elif refresh:
            self.catch_up(log)
        return log

    def forget(self, match_id: str) -> None:
        """Drop the match held folded: the next load folds it from the store again (after
        the store lost events this process had folded). A live feed still holding the old
        log keeps it until its streams end; a new one folds afresh."""
        self._cache.pop(match_id, None)

    def records(self, match_id: str) -> list[Recorded]:
        return self.store.read_stream(stream_of(match_id))

    def catch_up(self, log: MatchLog) -> bool:
        """Fold into ``log`` what was committed since (by any process); whether anything was."""
        with log.lock:
            newer = self.store.read_stream(stream_of(log.match.id), from_version=log.match.version + 1)
            log.fold(newer)
        return bool(newer)

    def _catch_up(self, match: Match) -> bool:
        log = self._cache.get(match.id)
        if log is not None and log.match is match:
            return self.catch_up(log)
        newer = self.store.read_stream(stream_of(match.id), from_version=match.version + 1)
        for rec in newer:  # a match no longer held here (forgotten while a command ran)
            match.apply(rec.event, rec.version)
        return bool(newer)

    # --- commands --------------------------------------------------------------
    def parse(self, match: Match, player: str, verb: str, args: Sequence[str]) -> Command:
        return match.game.parse_command(match.seat_of(player), verb, list(args))

    def act(
        self, match_id: str, player: str, verb: str, args: Sequence[str] = (), *, command_id: str | None = None
    ) -> Outcome:
        """Apply one player's command given as CLI words (``discard R5``)."""
        match = self.load(match_id, refresh=False)
        command = self.parse(match, player, verb, args)
        # a seat's keys are its own, whoever sends them for it (a seat token or the CLI)
        return self.execute(match_id, self.play(command), actor=player, command_id=command_id,
                            caller=f"seat {match.seat_of(player)}", request=("act", verb, list(args)))

    def deal(
        self, match_id: str, deck: Sequence[str] | None = None, *, actor: str = "", command_id: str | None = None,
        caller: str = LOCAL_CALLER,
    ) -> Outcome:
        """Start the next deal: with ``deck`` as entered (top first), the match's seeded
        shuffle, or (a match without a seed) a fresh shuffle from the OS CSPRNG. The
        deal's event carries a fresh salt and the commitment to its deck (``fairness``).

        In a series past its deadline no deal starts: the match is closed instead
        (``MatchClosed``) and stands as scored after its last deal."""
        match = self.load(match_id, refresh=False)
        request = ("deal", list(deck) if deck is not None else None)
        if match.closed:
            raise AppError(f"match {match_id} is closed: no more deals")
        deadline = self._deadline(match)
        if deadline is not None and self.store.clock() >= deadline and match.game.can_deal(match.state):
            from kartludo.app.league.series import fmt_time

            def close(m: Match) -> list[Event]:
                if not m.game.can_deal(m.state):
                    raise IllegalCommand("a deal is in progress", "series deadline: the deal in progress ends first")
                return aggregate.close(m, f"series {m.created.series} ended at {fmt_time(deadline)}")

            return self.execute(match.id, close, actor=actor, command_id=command_id, caller=caller, request=request)

        def command(m: Match) -> Command:
            if deck is not None:
                return StartDeal(deck=tuple(deck))
            full = m.game.deck(m.created.options)
            if m.created.seed is None:
                return StartDeal(deck=random_deck(full), shuffle=RANDOM_SHUFFLE)
            order, shuffle = seeded_deck(full, m.created.seed, m.game.deal_number(m.state) + 1)
            return StartDeal(deck=order, shuffle=shuffle)

        def start_deal(m: Match) -> list[Event]:
            # the engine decides the deal, the pipeline adds the salt and commitment
            self._check_open(m)
            decided = m.game.decide(m.state, command(m))
            return self._closing(m, [committed(e) if isinstance(e, DealStarted) else e for e in decided])

        return self.execute(match.id, start_deal, actor=actor, command_id=command_id, caller=caller,
                            request=request)

    def _deadline(self, match: Match) -> int | None:
        """The deadline of the match's series (microseconds), if it is in one."""
        if not match.created.series:
            return None
        cached = self._series_deadlines.get(match.created.series)
        if cached is None:
            from kartludo.app.league.series import load_series

            cached = self._series_deadlines[match.created.series] = load_series(
                self.store, match.created.series).deadline_us
        return cached

    @staticmethod
    def _check_open(match: Match) -> None:
        if match.closed:
            raise AppError(f"match {match.id} was closed by its series deadline: it takes no more commands")

    def _closing(self, match: Match, events: list[Event]) -> list[Event]:
        """A series match whose deal ends after the deadline closes with that deal."""
        deadline = self._deadline(match)
        if deadline is None or self.store.clock() < deadline:
            return events
        after = match.copy()
        for event in events:
            after.apply(event, after.version + 1)
        if after.game.can_deal(after.state) and not after.game.is_finished(after.state):
            from kartludo.app.league.series import fmt_time

            reason = f"series {match.created.series} ended at {fmt_time(deadline)} during this deal"
            return [*events, *aggregate.close(after, reason)]
        return events

    def play(self, command: Command | Callable[[Match], Command]) -> Decision:
        """The decision for a command to the game (or a function of the freshly folded
        match returning one): the engine decides it on an open match, and a series
        match whose deadline passed during the deal closes with it."""
        def decide(m: Match) -> list[Event]:
            self._check_open(m)
            cmd = command(m) if callable(command) and not isinstance(command, Command) else command
            return self._closing(m, m.game.decide(m.state, cmd))

        return decide

    def execute(
        self,
        match_id: str,
        decide: Decision,
        *,
        actor: str = "",
        command_id: str | None = None,
        caller: str = LOCAL_CALLER,
        request: Any = None,
    ) -> Outcome:
        """Decide on the freshly folded match, then append the facts with the expected
        version; on a conflict re-fold and decide again.

        ``decide(match)`` returns the events to append or raises the rule it breaks
        (``play`` for a command to the game; ``aggregate`` decides the match's own
        facts). A ``command_id`` (an idempotency key of ``caller``) seen before on
        this match with the same ``request`` returns the original events and writes
        nothing; with another request it is a ``CommandConflict``.
        """
        check_text("the actor", actor, ACTOR_LIMIT, empty=True)
        stream = stream_of(match_id)
        key = command_id
        if command_id is not None:
            command_id = scoped_command_id(caller, command_id, request)
        for _attempt in range(self.max_retries):
            log = self.log(match_id, refresh=False)
            match = log.match
            with log.lock:  # decided on, appended at: a live stream folding meanwhile waits for it
                try:
                    events = list(decide(match))
                except (IllegalCommand, AppError):
                    # The cached state may be stale (another process moved the match): re-check first.
                    if self._catch_up(match):
                        continue
                    # A retried command is refused by the state its first run left: answer
                    # with that first run. (An accepted retry is caught by the append itself:
                    # the command id is a key in the same transaction.)
                    original = self.store.find_command(stream, command_id) if command_id is not None else None
                    if original is not None:
                        return self._original(match_id, original)
                    self._check_key(stream, command_id, key)
                    raise
                try:
                    outcome = self._append(match, events, actor=actor, command_id=command_id, key=key)
                except _HistoryLost:
                    self.forget(match_id)  # decide again on the match as the store holds it
                    continue
                if outcome is not None:
                    return outcome
        raise TooMuchContention(
            f"match {match_id}: gave up after {self.max_retries} concurrent updates; try again"
        )

    def _append(self, match: Match, events: list[Event], *, actor: str, command_id: str | None,
                key: str | None) -> Outcome | None:
        """Append decided facts at the match's version and fold them in; None when
        the stream moved on meanwhile (the match is caught up: decide again)."""
        stream = stream_of(match.id)
        try:
            appended = self.store.append(stream, events, match.version, command_id=command_id, actor=actor)
        except ConcurrencyConflict as conflict:
            self._check_key(stream, command_id, key)  # the caller's key with another request collided
            if conflict.actual < match.version:
                # The store holds less of the stream than this process folded: its newest
                # events were lost (a failover to a standby that had not received them).
                raise _HistoryLost from conflict
            self._catch_up(match)
            return None
        if appended.duplicate:
            self._catch_up(match)
            return self._original(match.id, appended)
        before = match.state
        log = self._cache.get(match.id)
        if log is not None and log.match is match:
            decided_on = log.moment()
            entries = tuple(log.fold(appended.records))
        else:  # a match no longer held here (forgotten while the command ran): folded alone
            decided_on, folded = None, []
            for rec in appended.records:
                folded.append(Entry(rec, match.state, None))
                match.apply(rec.event, rec.version)
            entries = tuple(folded)
        snapshots.after_commit(self.store, match)
        return Outcome(match.id, appended.first_version, appended.positions, events, before=before,
                       records=appended.records, entries=entries, decided_on=decided_on)

    def _check_key(self, stream: str, command_id: str | None, key: str | None) -> None:
        """A ``CommandConflict`` when another request holds ``command_id``'s caller key."""
        if command_id is None:
            return
        holder = key_holder(self.store, stream, command_id)
        if holder is not None and holder != command_id:
            raise CommandConflict(f"command_id {key!r} was already used by this caller for a different request "
                                  f"on match {stream.removeprefix(MATCH_PREFIX)}; a retry must repeat the same "
                                  "request, a new one needs a new command_id")

    def _original(self, match_id: str, appended: Appended) -> Outcome:
        records = self.store.read_stream(stream_of(match_id), appended.first_version, appended.last_version)
        return Outcome(match_id, appended.first_version, appended.positions, [r.event for r in records],
                       duplicate=True, records=tuple(records))

    # --- views -----------------------------------------------------------------
    def viewer(self, match: Match, player: str | None, all_hands: bool = False) -> Viewer:
        if all_hands:
            return ALL
        return PUBLIC if player is None else match.seat_of(player)

    def state_json(self, match: Match, viewer: Viewer, *, secrets: bool | None = None) -> dict[str, Any]:
        """The match in ``viewer``'s view (``state --json``): ``visibility.state_view``."""
        return state_view(match, viewer, secrets=secrets)

    def legal(self, match: Match, player: str) -> list[Command]:
        return match.game.legal_commands(match.state, match.seat_of(player))

    def list(self) -> list[Match]:
        """Every match, folded (fine for a club's database; a projection serves big ones)."""
        return [self.load(s.removeprefix(MATCH_PREFIX)) for s in self.store.streams(MATCH_PREFIX)]


def fold_records(match_id: str, records: Iterable[Recorded]) -> Match:
    """Fold a match stream from its ``MatchCreated`` on (``aggregate.fold``)."""
    return aggregate.fold(match_id, records)


