"""The match aggregate: a match as a whole, beyond any one game's rules.

It sits in the engine, below both its readers: the application's command path and
readers (``app/``), and the projections that fold the global order (``projections/``).
Like the games' engines it is pure: no store, no I/O; a stored event reaches it as
anything with ``event`` and ``version`` (``Stored``).

A match owns a few facts of its own: its creation (``MatchCreated``), its closure
outside the game's rules (``MatchClosed``, a series deadline) and the appeals and TD
decisions on its rulings (``RulingAppealed``, ``RulingDecided``). ``Match.apply`` is
the one fold step every reader uses (the pipeline, snapshots, replay, audit,
visibility, projections): it records those facts here and hands every game event to
the game's engine. A decision reaches the engine too, since an overturn or an
adjusted score changes the game's own score. ``describe`` is the one line for any
match event, and the decision functions at the end (``close``, ``appeal``,
``decide``) check these facts and return the events to append.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import msgspec

from kartludo.engine.base import ALL, Game, Viewer
from kartludo.engine.registry import get_game
from kartludo.events.base import Event
from kartludo.events.match import FlagFall, MatchClosed, MatchCreated, RulingAppealed, RulingDecided
from kartludo.events.streams import match_stream


# The errors a match refuses with. They are the application's (``app.errors`` exports
# them with the rest of its errors, and the CLI and the service report them by these
# classes); they are defined here because the aggregate, below the application, raises them.
class AppError(Exception):
    """Bad input at the application level: nothing was written."""


class UnknownMatch(AppError):
    pass


class UnknownPlayer(AppError):
    pass


class NotAllowed(AppError):
    """The caller may not do this (e.g. decide a ruling of a match they play in)."""


class Stored(Protocol):
    """A stored event as the aggregate folds it (the store's ``Recorded``)."""

    @property
    def event(self) -> Event: ...

    @property
    def version(self) -> int: ...


#: the events the match records about itself (public to every reader: no card in them)
MATCH_FACTS = (MatchCreated, MatchClosed, RulingAppealed, RulingDecided, FlagFall)
#: the facts a fold records on the match (a second ``MatchCreated`` goes to the engine, which refuses it)
_OWN = frozenset({MatchClosed, RulingAppealed, RulingDecided, FlagFall})
#: the match facts the game's engine never folds (a flag fall is the clock's ruling, not the
#: rules': its consequence, the bot's turn, is made of the game's own events that follow it)
_NOT_FOR_THE_ENGINE = frozenset({MatchClosed, FlagFall})
#: the match facts ``for_the_engine`` hands the engine as something else (or as nothing)
_TRANSLATED = _NOT_FOR_THE_ENGINE | {RulingDecided}


class Dispute(msgspec.Struct, frozen=True):
    """Where the appeal of one ruling stands: appealed (by whom: the first appellant,
    then ``also_by`` everyone who appealed after them), then decided."""

    appealed_by: str
    decision: str | None = None
    decided_by: str | None = None
    #: the later appellants, in order (each person appeals once: the RULING on appeals)
    also_by: tuple[str, ...] = ()

    @property
    def appellants(self) -> tuple[str, ...]:
        return (self.appealed_by, *self.also_by)


class Match(msgspec.Struct):
    """A match folded up to ``version`` (its stream's last event)."""

    id: str
    game: Game[Any]
    created: MatchCreated
    state: Any
    version: int
    #: closed outside the game's rules (a series deadline): it takes no more commands
    closed: bool = False
    #: ruling id -> its appeal and decision
    disputes: dict[str, Dispute] = {}
    #: a duplicate board not yet played at every table: its deal stays hidden (readers
    #: see it as running) however it stands here; set by the application as it reads
    withheld: bool = False

    @property
    def players(self) -> list[str]:
        return self.created.players

    def seat_of(self, player: str) -> int:
        try:
            return self.created.players.index(player)
        except ValueError:
            raise UnknownPlayer(
                f"{player!r} does not play in match {self.id} (players: {', '.join(self.created.players)})"
            ) from None

    @property
    def over(self) -> bool:
        """Finished by the game's rules or closed by the match's series."""
        return self.closed or self.game.is_finished(self.state)

    @property
    def status(self) -> str:
        return "finished" if self.over else "in_progress"

    def apply(self, event: Event, version: int) -> None:
        """Fold one event: the match's own facts here, every other event (and a
        decision's effect on the score) through the game's engine."""
        if type(event) in _OWN:
            self._record(event)
        self.state = step(self.game, self.state, event)
        self.version = version

    def _record(self, event: Event) -> None:
        if isinstance(event, MatchClosed):
            self.closed = True
        elif isinstance(event, RulingAppealed):
            earlier = self.disputes.get(event.ruling_id)
            dispute = Dispute(event.by) if earlier is None else msgspec.structs.replace(
                earlier, also_by=(*earlier.also_by, event.by))
            self.disputes = {**self.disputes, event.ruling_id: dispute}  # copied: snapshots share it
        elif isinstance(event, RulingDecided):
            appealed = self.disputes.get(event.ruling_id)
            self.disputes = {**self.disputes, event.ruling_id: Dispute(
                appealed.appealed_by if appealed else "", event.decision, event.by,
                appealed.also_by if appealed else ())}

    def copy(self) -> Match:
        """An independent copy to fold on (states are immutable; ``disputes`` is
        replaced, never changed in place)."""
        return msgspec.structs.replace(self)


def start(match_id: str, first: Stored) -> Match:
    """The match right after its ``MatchCreated`` (the first event of its stream)."""
    created = first.event
    if not isinstance(created, MatchCreated):
        raise UnknownMatch(f"stream {match_stream(match_id)} does not start with a MatchCreated event")
    game = get_game(created.game)
    return Match(match_id, game, created, game.start(created), first.version)


def fold(match_id: str, records: Iterable[Stored]) -> Match:
    """Fold a match stream from its ``MatchCreated`` on."""
    it = iter(records)
    match = start(match_id, next(it))
    for rec in it:
        match.apply(rec.event, rec.version)
    return match


def engine_folds(event: Event) -> bool:
    """Whether the game's engine folds ``event`` itself (every event but a closure and a
    flag fall; a flag fall's penalty reaches it as an adjusted score: ``for_the_engine``)."""
    return type(event) not in _NOT_FOR_THE_ENGINE


def step(game: Game[Any], state: Any, event: Event) -> Any:
    """The game state after ``event`` (``Match.apply`` for a reader that follows the
    game state alone, e.g. a replay or a hypothetical)."""
    if type(event) not in _TRANSLATED:  # the common case, at every event of every fold
        return game.evolve(state, event)
    for folded in for_the_engine(event):
        state = game.evolve(state, folded)
    return state


def for_the_engine(event: Event) -> tuple[Event, ...]:
    """What the game's engine folds for one match event: the event itself, but nothing
    for a closure or a flag fall, whose time penalty (``bot-penalty``) the engine folds
    as the adjusted score it is (``flag_penalty``); and an overturn that gives a flag
    fall's penalty back (it carries the ``adjustment``) is that adjusted score too."""
    if isinstance(event, FlagFall):
        penalty = event.effect.get("penalty")
        if not penalty:
            return ()
        return (RulingDecided(ruling_id=event.ruling_id, by=CLOCK_ACTOR, decision="adjust", deal=event.deal,
                              reason="flag-fall penalty", adjustment=dict(penalty)),)
    if type(event) in _NOT_FOR_THE_ENGINE:
        return ()
    if isinstance(event, RulingDecided) and event.decision == "overturn" and event.adjustment:
        return (event, msgspec.structs.replace(event, decision="adjust"))
    return (event,)


#: who records a flag fall (the envelope's actor, and the "TD" of its penalty's adjusted score)
CLOCK_ACTOR = "clock"


def flag_penalty(game: Game[Any], players: Sequence[str], seat: int) -> dict[str, int]:
    """What a flag fall under ``bot-penalty`` does to the totals, in the game's own
    score (``Game.flag_penalty``): in a zero-sum game (Uxinjo) the flagged seat pays it
    to each other seat; otherwise its total moves by it the wrong way (down, or up in a
    game won with a low total: one more deal lost in Svoi Kozyri)."""
    unit = game.flag_penalty
    flagged = players[seat]
    if game.zero_sum_scores:
        return {p: -unit * (len(players) - 1) if p == flagged else unit for p in players}
    return {flagged: unit if game.low_totals_win else -unit}


def describe(game: Game[Any], before: Any, event: Event, viewer: Viewer, players: Sequence[str]) -> str:
    """One line for any match event: the match describes its own facts, the game the rest."""
    if isinstance(event, MatchCreated):
        return f"match created: {game.title}, {', '.join(players)}"
    if isinstance(event, MatchClosed):
        return f"match closed after deal {event.deal}: {event.reason}"
    if isinstance(event, FlagFall):
        player = players[event.seat] if 0 <= event.seat < len(players) else f"seat {event.seat + 1}"
        return f"flag fall: {player}'s time ran out ({event.facts.get('control', 'clock')}); " + str(
            event.effect.get("text", "the heuristic bot plays the turn"))
    if isinstance(event, RulingAppealed):
        return f"{event.by} appeals ruling {event.ruling_id}: {event.reason}"
    if isinstance(event, RulingDecided):
        verb = {"uphold": "upholds", "overturn": "overturns"}.get(event.decision, "adjusts the deal's score of")
        return f"TD {event.by} {verb} ruling {event.ruling_id}: {event.reason}"
    return game.describe(before, event, viewer)


# --- decisions: the facts a command adds, checked against the match ---------------
def close(match: Match, reason: str) -> list[Event]:
    """Close the match between deals (its series' deadline has passed)."""
    if match.closed:
        raise AppError(f"match {match.id} is closed: no more deals")
    return [MatchClosed(reason=reason, deal=match.game.deal_number(match.state))]


def same_name(a: str, b: str) -> bool:
    """Whether two names as typed name one person: compared after Unicode
    compatibility folding (full-width letters), case folding and with surrounding and
    repeated white space dropped, so ``" Bob"`` cannot pass for someone else than bob."""
    return _folded(a) == _folded(b)


def _folded(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def appeal(match: Match, ruling_id: str, by: str, reason: str) -> list[Event]:
    """``by`` appeals ruling ``ruling_id``, until it is decided. **RULING (appeals):**
    each person (a player of the match or a TD) appeals a ruling once; another's earlier
    appeal blocks no one's, least of all the penalised player's own: every appeal is
    recorded with its reason, beside the others, and one decision answers them all."""
    dispute = match.disputes.get(ruling_id)
    shown = f"{match.id}/{ruling_id}"
    if dispute is not None and dispute.decision is not None:
        raise AppError(f"ruling {shown} was already decided ({dispute.decision}) by {dispute.decided_by}")
    if dispute is not None and any(same_name(by, a) for a in dispute.appellants):
        raise AppError(f"{by} already appealed ruling {shown}: each person appeals once "
                       f"(appealed by {', '.join(dispute.appellants)})")
    return [RulingAppealed(ruling_id=ruling_id, by=by, reason=reason)]


def decide(match: Match, ruling_id: str, by: str, decision: str, reason: str, **extra: Any) -> list[Event]:
    """The TD ``by`` decides the appeals of ruling ``ruling_id``: once, by none of the
    appellants (``extra``: an adjusted score's fields)."""
    dispute = match.disputes.get(ruling_id)
    shown = f"{match.id}/{ruling_id}"
    if dispute is not None and dispute.decision is not None:
        raise AppError(f"the appeal of ruling {shown} was already decided ({dispute.decision}) "
                       f"by {dispute.decided_by}")
    if dispute is None:
        raise AppError(f"ruling {shown} has no appeal to decide (`kartludo audit appeal` first)")
    if any(same_name(by, a) for a in dispute.appellants):
        raise NotAllowed(f"{by} made this appeal: another TD decides it")
    event = RulingDecided(ruling_id=ruling_id, by=by, decision=decision, reason=reason, **extra)  # type: ignore[arg-type]
    if decision == "adjust":
        _check_award(match, event)
    return [event]


def _check_award(match: Match, event: RulingDecided) -> None:
    """Refuse an adjusted score the game cannot give in full: each player's total must
    change by exactly the adjustment (an Uxinjo marker never passes finito, so an
    award beyond what the markers can hold would be cut short)."""
    game, state = match.game, match.state
    before = game.view(state, ALL)["totals"]
    after = game.view(game.evolve(state, event), ALL)["totals"]
    short = [f"{p} {after[p] - before[p]:+d} instead of {event.adjustment.get(p, 0):+d}"
             for p in match.players if after[p] - before[p] != event.adjustment.get(p, 0)]
    if short:
        raise AppError(f"the adjusted score cannot be given in full: the totals would move {', '.join(short)} "
                       f"(now {', '.join(f'{p} {before[p]:+d}' for p in match.players)}; "
                       f"{game.title}'s markers stop at finito): award a score the markers can hold")
