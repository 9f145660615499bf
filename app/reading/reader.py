"""The match reader: what a viewer sees of a match, for every read path.

The CLI and the HTTP service (``state``, ``/events``, the live streams, ``replay``, a
command's response, the hearing room) all read a match here. Each reads the folded
match and its events from a ``MatchLog`` (``app.matches.log``): the command path's own
for the present (a command's events are folded once, then shown to each reader from
that fold), or one folded from the nearest snapshot for a stretch of the past. What an
event looks like to a reader and whether they get its hash is ``app.visibility``'s
decision, taken there once (``Exactness``, ``hashed``); this module applies it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from kartludo.app.duplicate.boards import Boards
from kartludo.app.errors import AppError, UnknownMatch
from kartludo.app.matches import snapshots
from kartludo.app.matches.clock import Clocks
from kartludo.app.matches.log import Entry, MatchLog, Moment
from kartludo.app.matches.pipeline import MatchService, Outcome
from kartludo.app.reading.presenters import (
    EventOut,
    OutcomeOut,
    ReplayStep,
    event_out,
    moves_json,
    state_json,
)
from kartludo.app.reading.replay import Replay, Step, is_ruling_or_settlement, turn_units
from kartludo.app.visibility import (
    deal_over,
    hashed,
    match_over,
    narrowed_hash,
    redact,
    replay_viewer,
    sees_secrets,
    shown_as,
)
from kartludo.app.watching import Watch, current, cut
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, PUBLIC, Viewer
from kartludo.engine.match import Match, NotAllowed, describe
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.events.streams import match_stream


class MatchReader:
    """Every read of a match, for one store (through its ``MatchService``: the matches
    it holds folded, and their logs)."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc
        self.store = svc.store
        self._feeds: weakref.WeakValueDictionary[str, LiveFeed] = weakref.WeakValueDictionary()
        self._feeds_lock = threading.Lock()
        #: which matches are duplicate boards, and which of those are still hidden
        self.boards = Boards(svc)
        #: the clocks of the matches read here (``app.matches.clock``), folded once each
        self.clocks = Clocks(svc.store)

    # --- duplicate boards ----------------------------------------------------------------------
    def check(self, match: Match, viewer: Viewer, td: bool) -> None:
        """Mark a duplicate board not yet played at every table as hidden (``withheld``:
        its deal reads as running), and refuse it to anyone but a TD and its own seats
        while it is: another table still to play the board must learn nothing of it."""
        match.withheld = self.boards.withheld(match.id)
        if match.withheld and not td and not (isinstance(viewer, int) and viewer >= 0):
            link = self.boards.link(match.id)
            assert link is not None
            raise NotAllowed(f"match {match.id} is board {link.board} of duplicate {link.duplicate}, still to be "
                             "played at another table: only its own seats and a TD read it until every table "
                             "has played the board")

    def may_follow(self, match_id: str, viewer: Viewer, td: bool) -> None:
        """``check`` for a live stream about to open on ``match_id``."""
        self.check(self.svc.load(match_id), viewer, td)

    # --- the match now ---------------------------------------------------------------------
    def state(self, match: Match, viewer: Viewer, *, moves: bool = True, expanded: bool = True,
              td: bool | None = None) -> dict[str, Any]:
        """The match in ``viewer``'s view (``state --json``, ``GET .../state``); over HTTP
        (``moves``) a seat also gets its moves (``legal``, ``shapes``, ``cautions``), so a
        table client needs one request per turn, not two (``expanded``: with the full
        ``legal`` list). ``td`` (default: the view is ``ALL``): a TD's authority."""
        td = viewer == ALL if td is None else td
        self.check(match, viewer, td)
        watched = self.watched(match, viewer, td)
        if watched is not None:  # a watcher: the table as it stood the delay ago
            watch, upto = watched
            match = self.match_at(match.id, upto)
            match.withheld = self.boards.withheld(match.id)
            out = state_json(self.svc, match, viewer)
            if watch.hands:
                out["hands"] = every_hand(match)
            out["watch"] = watch.json()
            at_cut = self.clock_at(match.id, upto)
            if at_cut is not None:
                out["clock"] = at_cut
            return out
        out = state_json(self.svc, match, viewer)
        ticking = self.clocks.reading(match.id)  # the seats' times: public, no card in them
        if ticking is not None:
            out["clock"] = ticking
        if moves and isinstance(viewer, int) and viewer >= 0:
            out.update(moves_json(match, viewer, expanded=expanded))
        return out

    def clock(self, match_id: str, viewer: Viewer, td: bool) -> dict[str, Any] | None:
        """The match's clocks as ``viewer`` may read them (None: no clock): now, or for a
        watcher of a match with a watch delay as they stood at the watchers' cut (live
        clocks would show whose turn it is now, which the delay holds back)."""
        watched = self.watch_cut(match_id, viewer, td)
        if watched is None:
            return self.clocks.reading(match_id)
        return self.clock_at(match_id, watched[1])

    def clock_at(self, match_id: str, upto: int) -> dict[str, Any] | None:
        """The clocks after the match's event ``upto`` (a replay step's reading)."""
        from kartludo.app.matches.clock import replay_readings

        readings = replay_readings(self.store, match_id)
        shown = [v for v in readings if v <= upto]
        return readings[max(shown)] if shown else None

    # --- watchers: the public view of a match with a watch delay -------------------------------
    def watched(self, match: Match, viewer: Viewer, td: bool) -> tuple[Watch, int] | None:
        """For a watcher (the public view, no TD's authority) of a running match with a
        watch delay: the setting and the version the watcher sees the match at (below
        ``match.version``). None for anyone else, a match without a delay or one that is
        over (history: public in full), and while the delay holds nothing back."""
        if viewer is not PUBLIC or td or match_over(match):
            return None
        watch = current(self.store, match.id)
        if not watch.delayed:
            return None
        upto = cut(self.store, match.id, match.version, match.players, watch, self.store.clock())
        return watch, min(upto, match.version)

    def watch_cut(self, match_id: str, viewer: Viewer, td: bool) -> tuple[Watch, int] | None:
        """``watched`` for the match ``match_id`` as the store holds it now."""
        if viewer is not PUBLIC or td or not current(self.store, match_id).delayed:
            return None  # (the setting first: a small read, where loading the match folds it)
        return self.watched(self.svc.load(match_id), viewer, td)

    def match_at(self, match_id: str, upto: int) -> Match:
        """The match folded to version ``upto``: from the nearest snapshot at or before it."""
        found = snapshots.starts(self.store, match_id)
        if found is None:
            raise UnknownMatch(f"no match {match_id!r}")
        first, starts = found
        for start, at in starts:
            if start.version <= upto:
                log = MatchLog(start, at, created=start.version == 1)
                log.fold(self.store.read_stream(first.stream_id, start.version + 1, upto))
                return log.match
        return self._log_from_start(first, upto).match

    # --- events ----------------------------------------------------------------------------
    def events(self, match_id: str, viewer: Viewer, *, td: bool | None = None, after: int = 0,
               limit: int | None = None) -> list[EventOut]:
        """The match's events after global position ``after`` (at most ``limit``), each
        as ``viewer`` may see it now, with its description: read from the match's nearest
        snapshot at or before ``after`` (a client catching up on a long match folds only
        its recent events). ``td`` (default: ``viewer == ALL``): a TD's authority."""
        td = viewer == ALL if td is None else td
        watched = self.watch_cut(match_id, viewer, td)
        upto = watched[1] if watched is not None else None
        log = self._log_after(match_id, after, viewer, td, upto)
        self.check(log.match, viewer, td)
        entries = [e for e in log.entries if e.record.position > after]
        if limit is not None:
            entries = entries[:limit]
        return show(log, entries, viewer, td)

    def _log_after(self, match_id: str, after: int, viewer: Viewer, td: bool, upto: int | None = None) -> MatchLog:
        """The match folded from its nearest snapshot at or before position ``after``
        (else from its start), keeping every event from there (up to version ``upto``: a
        watcher's delayed view). From the start when the snapshot's count cannot say what
        the reader sees exactly (``Exactness.through``)."""
        found = snapshots.starts(self.store, match_id)
        if found is None:
            raise UnknownMatch(f"no match {match_id!r}")
        first, starts = found
        for start, at in starts:
            if start.version == 1 or after <= 0:
                break
            if at.position <= after and (upto is None or start.version <= upto):
                log = MatchLog(start, at, keep=True)
                log.fold(self.store.read_stream(at.stream_id, start.version + 1, upto))
                log.match.withheld = self.boards.withheld(match_id)
                if log.exactness.through(viewer, td, log.match) is not None:
                    return log
                break
        return self._log_from_start(first, upto)

    def _log_from_start(self, first: Any, upto: int | None = None) -> MatchLog:
        records = self.store.read_stream(first.stream_id, 1, upto)
        match_id = first.stream_id.removeprefix(match_stream(""))
        log = MatchLog(aggregate.start(match_id, records[0]), records[0], created=True, keep=True)
        log.fold(records[1:])
        return log

    # --- the live streams --------------------------------------------------------------------
    def follow(self, match_id: str, generation: Callable[[], int] = lambda: 0) -> LiveFeed:
        """The live feed of ``match_id``, shared by every stream on it in this process (kept
        while a stream holds it). ``generation``: the wake-ups so far (``LiveFeed.catch_up``).
        Blocking: call it from a worker thread."""
        with self._feeds_lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = LiveFeed(self, match_id, generation)
            return feed

    # --- replays ---------------------------------------------------------------------------
    def replay(self, match_id: str, viewer_of: Callable[[Match], Viewer], *, td: bool | None = None,
               deal: int | None = None) -> ReplayRead:
        """Deal ``deal`` (default: the latest) step by step, for a reader in the view
        ``viewer_of(match)`` (``td``, default: that view is ``ALL``: a TD's authority),
        folded once from the nearest snapshot before that deal began: a replay of a long
        match's last deal folds that deal, not the whole match."""
        found = snapshots.starts(self.store, match_id)
        if found is None:
            raise UnknownMatch(f"no match {match_id!r}")
        first, starts = found
        last = wanted = None
        upto = None
        now = self.svc.load(match_id)
        if viewer_of(now) is PUBLIC and not td:  # a watcher: the deals as they stood the delay ago
            watched = self.watch_cut(match_id, PUBLIC, False)
            if watched is not None:
                upto = watched[1]
        for start, at in starts:
            if start.version == 1:
                break
            if upto is not None and start.version > upto:
                continue  # a snapshot past the watchers' cut
            records = self.store.read_stream(at.stream_id, start.version + 1, upto)
            began = start.game.deal_number(start.state)
            if last is None:  # the newest snapshot: the deals since it name the last one
                later = [r.event.deal for r in records if isinstance(r.event, DealStarted)]
                last = later[-1] if later else began
                wanted = last if deal is None else deal
                if not 1 <= wanted <= last:
                    break  # no such deal: the full read says so
            assert wanted is not None
            if began < wanted:
                log = MatchLog(start, at, keep=True)
                log.fold(records)
                viewer = viewer_of(log.match)
                self.check(log.match, viewer, viewer == ALL if td is None else td)
                read = self._replay_read(log, match_id, first, wanted, list(range(1, last + 1)), viewer, td)
                if read is not None and log.exactness.through(viewer, read.td, log.match) is not None:
                    return read
                break
        if not isinstance(first.event, MatchCreated):
            raise AppError(f"match {match_id} has no MatchCreated event")
        log = self._log_from_start(first, upto)
        deals = [e.record.event.deal for e in log.entries if isinstance(e.record.event, DealStarted)]
        if not deals:
            raise AppError(f"match {match_id} has no deal yet")
        wanted = deals[-1] if deal is None else deal
        if wanted not in deals:
            raise AppError(f"match {match_id} has no deal {wanted} (deals: {', '.join(map(str, deals))})")
        viewer = viewer_of(log.match)
        self.check(log.match, viewer, viewer == ALL if td is None else td)
        read = self._replay_read(log, match_id, first, wanted, deals, viewer, td)
        assert read is not None
        return read

    def _replay_read(self, log: MatchLog, match_id: str, first: Any, deal: int, deals: list[int], viewer: Viewer,
                     td: bool | None) -> ReplayRead | None:
        """Deal ``deal``'s steps from ``log``'s events (folded already: each holds the state
        before it); None when the log holds none of them."""
        entries = log.entries
        steps: list[Step] = []
        for i, entry in enumerate(entries):
            if entry.deal == deal:
                after = entries[i + 1].before if i + 1 < len(entries) else log.match.state
                steps.append(Step(len(steps) + 1, entry.record, entry.before, after))
            elif entry.deal is not None and entry.deal > deal:
                break
        if not steps:
            return None
        created = aggregate.start(match_id, first)
        from kartludo.app.matches.clock import replay_readings

        clocks = replay_readings(self.store, match_id)  # public: times, no card
        return ReplayRead(Replay(created, deal, deals, steps, clocks), log, viewer,
                          viewer == ALL if td is None else td, self.svc)

    # --- command outcomes ------------------------------------------------------------------
    def outcome(self, outcome: Outcome, viewer: Viewer) -> OutcomeOut:
        """What a command or deal caused and the match after it, both in ``viewer``'s view:
        each event as the caller saw the match when the command was decided (in their own
        view), with its hash where ``visibility`` allows it then; the match from the
        command path's fold (its events are not folded again)."""
        match = self.svc.load(outcome.match, refresh=False)
        entries: Sequence[Entry] = outcome.entries
        decided_on = outcome.decided_on
        if not entries or decided_on is None:  # a retried command: its events as they were folded then
            entries, decided_on = self._folded_then(outcome)
        td = viewer == ALL
        self.check(match, viewer, td)
        decided_on.match.withheld = match.withheld
        secrets = sees_secrets(viewer, td, match_over(match))
        shown = [redact(match.game, e.before, e.record.event, viewer, secrets=secrets) for e in entries]
        hashes = hashed(decided_on.through(viewer, td), [(e.record, s) for e, s in zip(entries, shown)])
        events = [event_out(e.record, s, h, describe(match.game, e.before, e.record.event, viewer, match.players))
                  for e, s, h in zip(entries, shown, hashes)]
        state = self.state(match, viewer)
        moves = {key: state.pop(key) for key in ("legal", "shapes", "cautions") if key in state}
        return OutcomeOut(outcome.match, outcome.first_version, list(outcome.positions), outcome.duplicate, events,
                          state, **moves)

    def _folded_then(self, outcome: Outcome) -> tuple[Sequence[Entry], Moment]:
        """A retried command's events folded from the nearest snapshot before them, and
        the match as they were decided on."""
        found = snapshots.starts(self.store, outcome.match)
        if found is None:
            raise UnknownMatch(f"no match {outcome.match!r}")
        first, starts = found
        log = None
        for start, at in starts:  # newest first, the match as created last
            if start.version < outcome.first_version:
                log = MatchLog(start, at, created=start.version == 1, keep=True)
                break
        assert log is not None
        log.fold(self.store.read_stream(first.stream_id, log.match.version + 1, outcome.first_version - 1))
        decided_on = log.moment()
        return log.fold(outcome.records), decided_on


def outcome_lines(outcome: Outcome, match: Match, viewer: Viewer) -> list[str]:
    """One line per event a command caused, in ``viewer``'s view as the command was
    decided (the CLI's ``act`` and ``match deal``), from the command path's fold."""
    if outcome.duplicate or not outcome.entries:
        return [f"(already applied) {type(e).__name__}" for e in outcome.events]
    return [describe(match.game, e.before, e.record.event, viewer, match.players) for e in outcome.entries]


def every_hand(match: Match) -> dict[str, Any]:
    """Every seat's hand as that seat sees it (a watcher's ``hands`` with ``--watch-hands``:
    the hands only, not the stock or anything else only the every-hand view shows)."""
    hands: dict[str, Any] = {}
    for seat, player in enumerate(match.players):
        own = match.game.view(match.state, seat).get("hands") or {}
        if player in own:
            hands[player] = own[player]
    return hands


def show(log: MatchLog, entries: Sequence[Entry], viewer: Viewer, td: bool) -> list[EventOut]:
    """``entries`` of ``log`` as ``viewer`` sees them now, each with its description and
    its hash where ``visibility`` allows it."""
    match = log.match
    game = match.game
    last_ended = deal_over(match)
    secrets = sees_secrets(viewer, td, match_over(match))
    seen = [shown_as(game, e.before, e.record.event, e.deal, log.current, last_ended, viewer, secrets=secrets)
            for e in entries]
    hashes = hashed(log.exactness.through(viewer, td, match), [(e.record, s[0]) for e, s in zip(entries, seen)])
    return [event_out(e.record, event, h, describe(game, e.before, e.record.event, view, match.players))
            for e, (event, view), h in zip(entries, seen, hashes)]


class LiveFeed:
    """A match's newest events for every live stream on it in this process: read once
    per commit (into the command path's own log: no second fold), and shown once per
    kind of viewer, as ``MatchReader.events`` shows them.

    It holds the events folded since it began (at most ``MatchLog.KEEP``): a stream that
    has seen that far reads the rest here; one further behind reads the store."""

    def __init__(self, reader: MatchReader, match_id: str, generation: Callable[[], int]) -> None:
        self.reader, self.id = reader, match_id
        self.log = reader.svc.log(match_id)
        self.log.follow()
        weakref.finalize(self, self.log.unfollow)
        self.lock = threading.Lock()
        #: the hub's bump count now, and as of the last read of the store began
        self.generation, self.read_at = generation, -1
        #: per (viewer, td): the events as shown, by version, while ``_moment`` holds
        self._shown: dict[tuple[Viewer, bool], dict[int, EventOut]] = {}
        self._moment: tuple[Any, ...] = ()
        self._base = self.log.base_version

    def catch_up(self, taken: int | None = None) -> None:
        """Read and fold what was committed since, unless a read that began at or after
        bump ``taken`` (when the stream took its next wake-up) already did: every stream
        a commit wakes shares one read, and none misses a commit whose bump it did not
        wait for."""
        with self.lock:
            if taken is not None and self.read_at >= taken:
                return
            self.read_at = self.generation()
            self.reader.svc.catch_up(self.log)

    def since(self, after: int, viewer: Viewer, td: bool) -> list[EventOut] | None:
        """The events after global position ``after`` as ``viewer`` sees them now; None
        when this feed no longer holds them all."""
        log = self.log
        with self.lock, log.lock:  # in the order catch_up takes them
            if after < log.base_position:
                return None
            new = [e for e in log.entries if e.record.position > after]
            if not new:
                return []
            match = log.match
            try:
                self.reader.check(match, viewer, td)
            except NotAllowed:  # a board hidden from this reader (its stream was refused at the start)
                return []
            moment = (log.current, deal_over(match), match_over(match), match.closed)
            if moment != self._moment:  # a deal or the match ended: what is hidden changed
                self._moment = moment
                self._shown.clear()
            if self._base != log.base_version:  # the log dropped its oldest events: so does the cache
                self._base = log.base_version
                for cache in self._shown.values():
                    for version in [v for v in cache if v <= self._base]:
                        del cache[version]
            cache = self._shown.setdefault((viewer, td), {})
            missing = [e for e in new if e.record.version not in cache]
            if missing:
                for e, out in zip(missing, show(log, missing, viewer, td)):
                    cache[e.record.version] = out
            return [cache[e.record.version] for e in new]

    def events(self, after: int, viewer: Viewer, td: bool, taken: int | None = None) -> list[EventOut] | None:
        """A live stream's events after ``after``, with every commit up to bump ``taken``
        read: from this feed, or None when the stream is further behind than it holds
        (the caller reads them as ``MatchReader.events`` does)."""
        self.catch_up(taken)
        return self.since(after, viewer, td)


class ReplayRead:
    """One deal of a match step by step, for one reader: the steps (``replay``, for the
    CLI's navigator) and each in any view the reader may ask for (``steps``)."""

    def __init__(self, replay: Replay, log: MatchLog, viewer: Viewer, td: bool, svc: MatchService) -> None:
        self.replay, self.log, self.viewer, self.td, self.svc = replay, log, viewer, td, svc

    @property
    def match(self) -> Match:
        """The match now (its stream folded to the end)."""
        return self.log.match

    @property
    def ended(self) -> bool:
        """The deal has ended: it is public (every hand shown)."""
        return self.replay.deal != self.replay.deals[-1] or deal_over(self.log.match)

    def view(self, asked: str | None) -> Viewer:
        """The view a replay shows: ``asked`` ("all", "public" or a player) within what the
        reader may see (everything once the deal has ended, else the reader's own view)."""
        return replay_viewer(self.replay.match.players, ALL if self.ended else self.viewer, asked)

    def steps(self, wanted: list[int], view: Viewer) -> list[ReplayStep]:
        """Steps ``wanted`` (1-based) in ``view`` (one the reader may ask for): the event,
        its description and the state after it (the seed only where the reader may see it);
        an event's hash only where ``visibility`` gives the reader it and the view shows
        the event as stored."""
        rep, log = self.replay, self.log
        m = rep.match
        count = len(rep.steps)
        units = turn_units(m.game, rep.steps)
        over = match_over(log.match)
        entitled = sees_secrets(self.viewer, self.td, over)
        secrets = entitled and sees_secrets(view, self.td, over)
        through = log.exactness.through(self.viewer, self.td, log.match)
        last_ended = deal_over(log.match)
        out = []
        for k in wanted:
            st = rep.steps[k - 1]
            event = redact(m.game, st.before, st.record.event, view, secrets=secrets)
            may_see = shown_as(m.game, st.before, st.record.event, rep.deal, log.current, last_ended, self.viewer,
                               secrets=entitled)[0]
            state = state_json(self.svc, Match(m.id, m.game, m.created, st.state, st.record.version), view,
                               secrets=secrets)
            if st.record.version in rep.clocks:
                state["clock"] = rep.clocks[st.record.version]
            text = rep.description(k, view)
            out.append(ReplayStep(k, count, text, event_out(st.record, event,
                                                            narrowed_hash(through, st.record, may_see, event), text),
                                  state, is_ruling_or_settlement(st.record.event), units[k - 1]))
        return out
