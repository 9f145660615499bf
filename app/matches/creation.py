"""Creating a match, once: a retried creation (the same caller and idempotency key)
finds the match it made, and the same key with another request is refused.

``Creating`` is the part of ``MatchService`` that makes matches (``pipeline`` stacks the
command path on it, as the store stacks its layers): what it needs of the rest, the
store and ``load``, it declares.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Sequence
from typing import Any

import msgspec

from kartludo.app.errors import CommandConflict, check_text
from kartludo.app.matches.setup import check_players, check_seed
from kartludo.engine.base import parse_options
from kartludo.engine.match import Match
from kartludo.engine.registry import get_game
from kartludo.events.match import MatchCreated
from kartludo.events.series import SeriesMatchAdded
from kartludo.events.streams import SERIES_PREFIX, series_stream
from kartludo.events.streams import match_stream as stream_of
from kartludo.store import ConcurrencyConflict, EventStore
from kartludo.store.schema import CALLER_KEY_LENGTH

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
    if not command_id.startswith(KEY_PREFIX):
        return command_id if store.find_command(stream_id, command_id) is not None else None
    return store.command_holding(stream_id, command_id[:CALLER_KEY_LENGTH])


class Creating:
    """Making matches: ``MatchService``'s creation, below its command path."""

    store: EventStore

    def load(self, match_id: str, *, refresh: bool = True) -> Match:
        raise NotImplementedError  # ``MatchService.load``

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
        lot: int | None = None,
    ) -> tuple[str, bool]:
        """Create a match; returns its id and whether ``command_id`` had already created it.

        With a ``command_id`` (an idempotency key of ``caller``) the match id is
        derived from the caller and key, so a retried creation lands on the same
        stream and the store applies it once (the retry returns the first match, and
        the ``also`` appends are not written again); the same key with a different
        request is a ``CommandConflict``. ``also(match_id, seats)`` may return further
        ``(stream, events, expected version)`` appends written in the same
        transaction (the service's seat tokens). ``lot``: the draw for what the rules
        choose at random before the first deal, given (a duplicate board: the same at
        every table) instead of drawn here; only without a seed.
        """
        game = get_game(game_name)
        check_seed(seed)
        check_text("the actor", actor, ACTOR_LIMIT, empty=True)
        request = ("create", game.name, list(players) if players else None, seed,
                   sorted((options or {}).items()), series)
        resolved = parse_options(game, options or {})
        stored = scoped_command_id(caller, command_id, request) if command_id is not None else None
        if seed is not None:
            lot = None
        elif lot is None:
            lot = secrets.randbits(62)
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
        from kartludo.app.league.series import Progress, check_can_add, load_series, resolve_series

        series = resolve_series(self.store, series)
        info = load_series(self.store, series)
        progress = [Progress(m.id, m.over, m.game.deal_number(m.state)) for m in map(self.load, info.match_ids)]
        seats = check_can_add(info, game.name, list(players) if players else None, self.store.clock(), progress)
        game.check_setup(seats, resolved)
        created = MatchCreated(game=game.name, ruleset=game.ruleset, players=seats, seed=seed, lot=lot,
                               options=resolved, series=series)
        added = SeriesMatchAdded(match_id=match_id, players=seats)
        # one transaction: the series' version orders its matches, so two creations racing
        # past the checks above cannot both add one (the second meets a ConcurrencyConflict)
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
