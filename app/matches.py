"""The match pipeline every game shares: load a match stream, fold it through the
game's engine, decide a command, append the events with the stream's expected
version, and on a concurrency conflict re-fold and re-decide.

The CLI, the simulator and the HTTP service all drive matches through
``MatchService``: there is one implementation of the command path.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from kartludo.app import aggregate, snapshots
from kartludo.app.aggregate import Match, describe, step  # noqa: F401 - describe, step: re-exported
from kartludo.app.errors import AppError, CommandConflict, TooMuchContention, UnknownMatch, check_text
from kartludo.app.fairness import committed, random_deck
from kartludo.app.ids import resolve_prefix
from kartludo.engine.base import (
    ALL,
    PUBLIC,
    BadCommand,
    Command,
    Game,
    IllegalCommand,
    StartDeal,
    Viewer,
    parse_options,
    seeded_deck,
)
from kartludo.engine.registry import get_game
from kartludo.events.base import Event
from kartludo.events.match import RANDOM_SHUFFLE, DealStarted, MatchCreated
from kartludo.events.series import SeriesMatchAdded
from kartludo.events.streams import MATCH_PREFIX, SERIES_PREFIX, match_stream, series_stream  # noqa: F401
from kartludo.store import Appended, ConcurrencyConflict, EventStore, Recorded
from kartludo.store.schema import CALLER_KEY_LENGTH

_PLAYER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,39}$")


stream_of = match_stream

#: who sends a command when no caller is named: the CLI and library users, all one
LOCAL_CALLER = "local"
#: who did something, as recorded with its events (the store's column holds 200 characters)
ACTOR_LIMIT = 100
#: a stored command id made from a caller's key (migration 0005 indexes its caller part)
KEY_PREFIX = "k1:"


def scoped_command_id(caller: str, key: str, request: Any) -> str:
    """The command id stored for ``caller``'s idempotency ``key`` sent with ``request``.

    ``k1:`` + a hash of the caller and key + ``:`` + a hash of the request: the same
    key from another caller is another command, and the same key from the same
    caller with another request collides with the first (on its caller part) and is
    refused, never taken for a retry."""
    who = hashlib.sha256(f"{caller}\0{key}".encode()).hexdigest()[:32]
    what = hashlib.sha256(msgspec.msgpack.encode(request)).hexdigest()[:32]
    return f"{KEY_PREFIX}{who}:{what}"


def key_holder(store: EventStore, stream_id: str, command_id: str) -> str | None:
    """The stored command id on ``stream_id`` holding ``command_id``'s caller key
    (itself for a retry, another for a reused key), or None."""
    import sqlalchemy as sa

    from kartludo.store.schema import commands

    if not command_id.startswith(KEY_PREFIX):
        return command_id if store.find_command(stream_id, command_id) is not None else None
    key = command_id[:CALLER_KEY_LENGTH]
    query = sa.select(commands.c.command_id).where(
        commands.c.stream_id == stream_id, commands.c.command_id >= key,
        commands.c.command_id < key[:-1] + chr(ord(key[-1]) + 1))
    with store.engine.connect() as conn:
        return conn.execute(query).scalar()


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


class MatchService:
    """Create matches, start deals and apply players' commands, safely under concurrency."""

    def __init__(self, store: EventStore, *, max_retries: int = 8, cache_size: int = 1000) -> None:
        self.store = store
        self.max_retries = max_retries
        self.cache_size = cache_size
        self._cache: dict[str, Match] = {}
        self._series_deadlines: dict[str, int] = {}

    # --- creating --------------------------------------------------------------
    def create(self, game_name: str, players: Sequence[str], **kw: Any) -> str:
        """Create a match and return its id (keywords as ``create_once``)."""
        return self.create_once(game_name, players, **kw)[0]

    def create_once(
        self,
        game_name: str,
        players: Sequence[str],
        *,
        seed: int | None = None,
        options: dict[str, str] | None = None,
        series: str | None = None,
        actor: str = "",
        command_id: str | None = None,
        caller: str = LOCAL_CALLER,
        match_id: str | None = None,
        also: Any = None,
    ) -> tuple[str, bool]:
        """Create a match; returns its id and whether ``command_id`` had already created it.

        With a ``command_id`` (an idempotency key of ``caller``) the match id is
        derived from the caller and key, so a retried creation lands on the same
        stream and the store applies it once (the retry returns the first match, and
        the ``also`` appends are not written again); the same key with a different
        request is a ``CommandConflict``. ``also(match_id, seats)`` may return further
        ``(stream, events, expected version)`` appends written in the same
        transaction (the service's seat tokens).
        """
        game = get_game(game_name)
        check_seed(seed)
        check_text("the actor", actor, ACTOR_LIMIT, empty=True)
        request = ("create", game.name, list(players) if players else None, seed,
                   sorted((options or {}).items()), series)
        resolved = parse_options(game, options or {})
        stored = scoped_command_id(caller, command_id, request) if command_id is not None else None
        lot = secrets.randbits(62) if seed is None else None
        if match_id is None:
            match_id = (hashlib.sha256(f"match:{stored[:CALLER_KEY_LENGTH]}".encode()).hexdigest()[:12]
                        if stored is not None else os.urandom(6).hex())
        if stored is not None and self._created_by(match_id, stored, command_id, request):
            return match_id, True
        key, command_id = command_id, stored
        if series is None:
            players = list(players or [])
            check_players(game, players)
            game.check_setup(players, resolved)
            created = MatchCreated(game=game.name, ruleset=game.ruleset, players=players, seed=seed, lot=lot,
                                   options=resolved)
            extra = also(match_id, players) if also is not None else []
            return match_id, self._append_creation([(stream_of(match_id), [created], 0), *extra], match_id,
                                                   command_id, actor, key, request)
        from kartludo.app.series import check_can_add, load_series, resolve_series

        series = resolve_series(self.store, series)
        info = load_series(self.store, series)
        seats = check_can_add(info, game.name, list(players) if players else None, self.store.clock())
        game.check_setup(seats, resolved)
        created = MatchCreated(game=game.name, ruleset=game.ruleset, players=seats, seed=seed, lot=lot,
                               options=resolved, series=series)
        added = SeriesMatchAdded(match_id=match_id, players=seats)
        # one transaction: the series' version orders its matches (and so the seat rotation)
        extra = also(match_id, seats) if also is not None else []
        batches = [(series_stream(series), [added], info.version), (stream_of(match_id), [created], 0), *extra]
        return match_id, self._append_creation(batches, match_id, command_id, actor, key, request)

    def _append_creation(self, batches: list[Any], match_id: str, command_id: str | None, actor: str,
                         key: str | None = None, request: Any = None) -> bool:
        """Write a match's creation; True when ``command_id`` had already written it
        (found by the store, or by a racing retry that won)."""
        try:
            appended = self.store.append_together(batches, command_id=command_id, actor=actor)
        except ConcurrencyConflict:
            if command_id is None or not self._created_by(match_id, command_id, key, request):
                raise
            return True
        return any(a.duplicate for a in appended)

    def _created_by(self, match_id: str, stored: str, key: str | None = None, request: Any = None) -> bool:
        """Whether the stored command id ``stored`` created ``match_id``; a
        ``CommandConflict`` when its caller's key created it with another request."""
        holder = key_holder(self.store, stream_of(match_id), stored)
        if holder is None:
            return False
        if holder == stored:
            return True
        differs = ""
        created = self.store.read_stream(stream_of(match_id), 1, 1)[0].event
        if request is not None and isinstance(created, MatchCreated):
            _, game, players, seed, options, series = request
            fields = [name for name, given, first in [("game", game, created.game), ("seed", seed, created.seed),
                                                      ("players", players, created.players)]
                      if given is not None and given != first]
            given_options = parse_options(get_game(game), dict(options)) if options else {}
            if any(created.options.get(k) != given_options[k] for k, _ in options):
                fields.append("options")
            if series is not None and not (created.series or "").startswith(series.removeprefix(SERIES_PREFIX)):
                fields.append("series")
            differs = f" (a different {', '.join(fields)})" if fields else ""
        shown = f"command_id {key!r}" if key is not None else "this command_id"
        raise CommandConflict(f"{shown} already created match {match_id} with a different request{differs}; "
                              "a retry must send the same request, a new match needs a new command_id")

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
        match = self._cache.get(match_id)
        if match is None:
            loaded = snapshots.load(self.store, match_id)  # from its nearest snapshot
            if loaded is None:
                raise UnknownMatch(f"no match {match_id!r}")
            match = loaded
            if len(self._cache) >= self.cache_size:  # a long-running service: forget the oldest
                try:
                    self._cache.pop(next(iter(self._cache)), None)
                except (StopIteration, RuntimeError):  # another thread changed the cache meanwhile
                    pass
            self._cache[match_id] = match
        elif refresh:
            self._catch_up(match)
        return match

    def records(self, match_id: str) -> list[Recorded]:
        return self.store.read_stream(stream_of(match_id))

    def _catch_up(self, match: Match) -> bool:
        newer = self.store.read_stream(stream_of(match.id), from_version=match.version + 1)
        for rec in newer:
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
            from kartludo.app.series import fmt_time

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
            from kartludo.app.series import load_series

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
            from kartludo.app.series import fmt_time

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
        match = self.load(match_id, refresh=False)
        for _attempt in range(self.max_retries):
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
            outcome = self._append(match, events, actor=actor, command_id=command_id, key=key)
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
        except ConcurrencyConflict:
            self._check_key(stream, command_id, key)  # the caller's key with another request collided
            self._catch_up(match)
            return None
        if appended.duplicate:
            self._catch_up(match)
            return self._original(match.id, appended)
        before = match.state
        version = appended.first_version
        for event in events:
            match.apply(event, version)
            version += 1
        snapshots.after_commit(self.store, match)
        return Outcome(match.id, appended.first_version, appended.positions, events, before=before,
                       records=appended.records)

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
        """The match in ``viewer``'s view (``state --json``). ``seed`` is there only for a
        reader who may see it (``secrets``; default: the every-hand view, a TD's, or
        anyone once the match has ended); absent otherwise, even for a match without one."""
        view = match.game.view(match.state, viewer)
        if match.closed:  # finished by its series deadline: what a finished match shows (Uxinjo's mp)
            view = {**view, **match.game.closed_fields(match.state)}
        if secrets is None:
            secrets = viewer == ALL or match.status == "finished"
        out = {
            "match": match.id,
            "game": match.game.name,
            "status": match.status,
            "deal": match.game.deal_number(match.state),
            "phase": match.game.phase(match.state),
            "to_act": [match.players[s] for s in match.game.to_act(match.state)],
            "players": list(match.players),
            **view,  # the game's own fields
            "version": match.version,
            "ruleset": match.created.ruleset,
            "options": match.created.options,
        }
        if secrets:
            out["seed"] = match.created.seed
        return out

    def legal(self, match: Match, player: str) -> list[Command]:
        return match.game.legal_commands(match.state, match.seat_of(player))

    def list(self) -> list[Match]:
        """Every match, folded (fine for a club's database; a projection serves big ones)."""
        return [self.load(s.removeprefix(MATCH_PREFIX)) for s in self.store.streams(MATCH_PREFIX)]


def fold_records(match_id: str, records: Iterable[Recorded]) -> Match:
    """Fold a match stream from its ``MatchCreated`` on (``aggregate.fold``)."""
    return aggregate.fold(match_id, records)


#: seeds fit a signed 64-bit integer (every store and encoder takes them)
SEED_LIMIT = 2**63


def check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise BadCommand(f"seed {seed} is out of range: use 0 <= seed < 2^63")


def check_players(game: Game[Any], players: list[str]) -> None:
    if len(players) not in game.player_counts:
        counts = " or ".join(str(n) for n in game.player_counts)
        raise BadCommand(f"{game.name} needs {counts} players, got {len(players)}")
    for name in players:
        if not _PLAYER_NAME.match(name):
            raise BadCommand(
                f"bad player name {name!r}: use 1-40 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
    if len(set(players)) != len(players):
        dupes = sorted({p for p in players if players.count(p) > 1})
        raise BadCommand(f"duplicate player {', '.join(dupes)}")


def parse_deck(text: str) -> list[str]:
    """A deck as typed: card codes separated by spaces or commas, top first."""
    return [c for c in re.split(r"[\s,]+", text.strip()) if c]


class FoldProblem(msgspec.Struct, frozen=True):
    match: str
    version: int
    reason: str

    def __str__(self) -> str:
        return f"match {self.match} version {self.version}: {self.reason}"


def refold_all(store: EventStore) -> tuple[int, list[FoldProblem]]:
    """Fold every match stream through its engine from scratch (``kartludo verify``).

    Returns the number of matches folded and the events that would not fold.
    """
    problems: list[FoldProblem] = []
    count = 0
    for stream in store.streams(MATCH_PREFIX):
        match_id = stream.removeprefix(MATCH_PREFIX)
        records = store.read_stream(stream)
        count += 1
        try:
            if not isinstance(records[0].event, MatchCreated):
                raise ValueError("the stream does not start with MatchCreated")
            match = aggregate.start(match_id, records[0])
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            problems.append(FoldProblem(match_id, records[0].version, str(exc)))
            continue
        for rec in records[1:]:
            try:
                match.apply(rec.event, rec.version)
            except Exception as exc:  # noqa: BLE001 - a stored event the engine cannot fold
                problems.append(FoldProblem(match_id, rec.version, f"{type(exc).__name__}: {exc}"))
                break
    return count, problems
