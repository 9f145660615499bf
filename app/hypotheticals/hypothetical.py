"""Hypotheticals: a deal continued otherwise from any recorded moment.

A hypothetical is its own stream (``hypo-<id>``, hash-chained like every stream). Its
first event (``HypoStarted``) cites the origin match, deal, step (``replay``'s step
numbers) and the origin event's hash; its state is the origin's state after that step,
folded through the same engine, and every later event is decided by that engine just
as a match's are. It never touches the match: standings, ratings, series and the match
list read match streams only. A hypothetical plays one deal: once that deal is
settled it takes no more commands, and its deal score (the change of each player's
``totals`` over the deal) is what an adjusted decision weighs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from kartludo.app.errors import AppError, TooMuchContention, UnknownMatch, UnknownPlayer, check_text
from kartludo.app.ids import resolve_prefix
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, FINISHED, WAITING_DEAL, Command, Game, Viewer
from kartludo.engine.match import Match, describe, step
from kartludo.events.base import Event
from kartludo.events.hypo import ROLLOUT_JOB_EVENTS, HypoStarted, RolloutRecorded
from kartludo.store import ConcurrencyConflict, EventStore, Recorded

HYPO_PREFIX = "hypo-"
LABEL_LIMIT = 200


def hypo_stream(hypo_id: str) -> str:
    return HYPO_PREFIX + hypo_id


class Moment(msgspec.Struct):
    """A recorded moment of a match: the state after step ``step`` of ``deal``.

    ``history`` is the deal's events up to it (its ``DealStarted`` first), folded on
    ``before_deal`` (the state the deal started from); ``record`` the cited event."""

    match: Match
    deal: int
    step: int
    record: Recorded
    before_deal: Any
    history: list[Event]
    state: Any


def origin_moment(store: EventStore, match_id: str, deal: int, k: int) -> Moment:
    """The state after step ``k`` of ``deal`` (step 0: the deal just dealt, before anyone
    acted, which resampling treats as nobody having seen a card)."""
    from kartludo.app.reading.replay import build

    if k < 0:
        raise AppError(f"step {k} is negative: steps count from 0 (before the deal's first action)")
    records = store.read_stream(stream_of(match_id))
    replay = build(match_id, records, deal)
    if k > len(replay.steps):
        raise AppError(f"deal {deal} of match {match_id} has {len(replay.steps)} steps: no step {k}")
    st = replay.steps[max(k, 1) - 1]
    history = [s.record.event for s in replay.steps[: max(k, 1)]]
    match = aggregate.start(match_id, records[0])
    return Moment(match, deal, k, st.record, replay.steps[0].before, history, st.state)


class Hypothetical(msgspec.Struct):
    """A hypothetical folded to its newest event. ``match`` is the game state as a
    ``Match`` (its id the hypothetical's), so every match view applies to it."""

    id: str
    started: HypoStarted
    moment: Moment
    match: Match
    #: the hypothetical's own game events, in order (after ``HypoStarted``)
    events: list[Event]
    rollouts: list[RolloutRecorded]

    @property
    def game(self) -> Game[Any]:
        return self.match.game

    @property
    def version(self) -> int:
        return self.match.version

    def seat_of(self, player: str) -> int:
        """``player``'s seat; the refusal names the hypothetical and its match (the
        state's id is the hypothetical's, which is no match)."""
        players = self.match.players
        if player not in players:
            raise UnknownPlayer(f"{player!r} does not play in hypothetical {self.id} of match {self.started.match} "
                                f"(players: {', '.join(players)})")
        return players.index(player)

    @property
    def settled(self) -> bool:
        """The deal has been settled (or the match finished): nothing more to play."""
        return deal_settled(self.game, self.match.state)

    def deal_scores(self) -> dict[str, int] | None:
        """The deal's score per player once settled (the change of ``totals``), else None."""
        if not self.settled:
            return None
        return score_change(self.game, self.moment.before_deal, self.match.state, self.match.players)


def deal_settled(game: Game[Any], state: Any) -> bool:
    return game.phase(state) in (WAITING_DEAL, FINISHED)


def totals(game: Game[Any], state: Any, players: Sequence[str]) -> dict[str, int]:
    shown = game.view(state, ALL).get("totals") or {}
    return {p: int(shown.get(p, 0)) for p in players}


def score_change(game: Game[Any], before: Any, after: Any, players: Sequence[str]) -> dict[str, int]:
    """A deal's score: how each player's ``totals`` (the game score ``state --json``
    shows) moved from ``before`` to ``after``."""
    a, b = totals(game, before, players), totals(game, after, players)
    return {p: b[p] - a[p] for p in players}


def _new_id() -> str:
    return os.urandom(6).hex()


def create(store: EventStore, match: str, deal: int, k: int, *, label: str = "", by: str = "") -> str:
    """Start a hypothetical from step ``k`` of ``deal`` of ``match``; returns its id."""
    if label:
        check_text("the label", label, LABEL_LIMIT)
    if by:
        check_text("the author (by)", by, 100)
    match_id = MatchService(store).resolve(match)
    moment = origin_moment(store, match_id, deal, k)
    hypo_id = _new_id()
    started = HypoStarted(match=match_id, deal=deal, step=k, origin_version=moment.record.version,
                          origin_hash=moment.record.hash.hex(), game=moment.match.game.name,
                          players=list(moment.match.players), label=label, by=by)
    store.append(hypo_stream(hypo_id), [started], 0, actor=by or "td")
    return hypo_id


def resolve(store: EventStore, prefix: str) -> str:
    """A hypothetical's id from any unique prefix of it."""
    return resolve_prefix(store, HYPO_PREFIX, prefix, "hypothetical", hint=" (see `kartludo hypo list`)")


def fold(store: EventStore, hypo_id: str, records: list[Recorded] | None = None) -> Hypothetical:
    records = records if records is not None else store.read_stream(hypo_stream(hypo_id))
    if not records or not isinstance(records[0].event, HypoStarted):
        raise UnknownMatch(f"no hypothetical {hypo_id!r}")
    started = records[0].event
    moment = origin_moment(store, started.match, started.deal, started.step)
    game = moment.match.game
    state = moment.state
    events: list[Event] = []
    rollouts: list[RolloutRecorded] = []
    for rec in records[1:]:
        if isinstance(rec.event, RolloutRecorded):
            rollouts.append(rec.event)
            continue
        if isinstance(rec.event, ROLLOUT_JOB_EVENTS):  # a rollout job's record (``jobs``): no game event
            continue
        state = step(game, state, rec.event)
        events.append(rec.event)
    match = Match(hypo_id, game, moment.match.created, state, records[-1].version)
    return Hypothetical(hypo_id, started, moment, match, events, rollouts)


def load(store: EventStore, hypo: str) -> Hypothetical:
    return fold(store, resolve(store, hypo))


class Played(msgspec.Struct):
    """What a command did in a hypothetical: its events, and the state before them."""

    hypothetical: str
    events: list[Event]
    before: Any


#: decides a command on the freshly folded hypothetical: the events to append
HypoDecision = Callable[[Hypothetical], list[Event]]


def play(command: Callable[[Hypothetical], Command]) -> HypoDecision:
    """The decision for a command to the game (``command(h)`` makes it from the freshly
    folded hypothetical): the events the rules still owe at its moment, then the
    engine's decision, on a deal not yet settled."""
    def decide(h: Hypothetical) -> list[Event]:
        if h.settled:
            raise AppError(f"hypothetical {h.id}: deal {h.started.deal} is settled "
                           f"({_fmt_scores(h.deal_scores() or {})}); it takes no more commands")
        due, state = pending(h.game, h.match.state)
        return due + h.game.decide(state, command(h))

    return decide


def execute(store: EventStore, hypo: str, decide: HypoDecision, *, actor: str = "", attempts: int = 8) -> Played:
    """Decide on the freshly folded hypothetical and append the events with the
    expected version (on a conflict, fold and decide again)."""
    hypo_id = resolve(store, hypo)
    for _ in range(attempts):
        h = fold(store, hypo_id)
        events = decide(h)
        try:
            store.append(hypo_stream(hypo_id), events, h.version, actor=actor)
        except ConcurrencyConflict:
            continue
        return Played(hypo_id, events, h.match.state)
    raise TooMuchContention(f"hypothetical {hypo_id}: gave up after {attempts} concurrent updates; try again")


def act(store: EventStore, hypo: str, player: str, verb: str, args: Sequence[str] = ()) -> Played:
    """``player``'s command (CLI words, ``discard R5``) in the hypothetical."""

    def make(h: Hypothetical) -> Command:
        return h.game.parse_command(h.seat_of(player), verb, list(args))

    return execute(store, hypo, play(make), actor=player)


def describe_played(h: Hypothetical, played: Played, viewer: Viewer) -> list[str]:
    lines, state = [], played.before
    for event in played.events:
        lines.append(describe(h.game, state, event, viewer, h.match.players))
        state = step(h.game, state, event)
    return lines


def pending(game: Game[Any], state: Any) -> tuple[list[Event], Any]:
    """The events the rules still owe at a moment cut between them (a step inside one
    command's events: Svoi Kozyri's sixes passed after its deal), and the state after
    them; a hypothetical's next command comes after these."""
    due: list[Event] = []
    while True:
        more = game.automatic(state)
        if not more:
            return due, state
        for event in more:
            state = game.evolve(state, event)
        due.extend(more)


def next_state(h: Hypothetical) -> Any:
    """The state the hypothetical's next command is decided on: its moment, after the
    events the rules still owe there (``pending``)."""
    return pending(h.game, h.match.state)[1]


def legal(h: Hypothetical, player: str) -> list[Command]:
    seat = h.seat_of(player)
    if h.settled:
        return []
    return h.game.legal_commands(next_state(h), seat)


def summary(h: Hypothetical) -> dict[str, Any]:
    """What lists and records show of a hypothetical (never a card)."""
    s = h.started
    last = h.rollouts[-1] if h.rollouts else None
    return {
        "hypothetical": h.id, "match": s.match, "game": s.game, "deal": s.deal, "step": s.step,
        "label": s.label, "by": s.by, "origin_version": s.origin_version, "origin_hash": s.origin_hash,
        "moves": len(h.events), "settled": h.settled, "deal_scores": h.deal_scores(),
        "rollouts": len(h.rollouts),
        "last_rollout": None if last is None else rollout_json(last),
    }


def rollout_json(r: RolloutRecorded) -> dict[str, Any]:
    return {"n": r.n, "bots": r.bots, "hidden": r.hidden, "seed": r.seed, "at_version": r.at_version,
            "players": r.players, "outcomes": r.outcomes}


def state_json(store: EventStore, h: Hypothetical, viewer: Viewer) -> dict[str, Any]:
    """The same fields as ``state --json`` (``match`` is the hypothetical's id), plus
    where it comes from. The origin's seed never shows here."""
    out = MatchService(store).state_json(h.match, viewer, secrets=False)
    out["hypothetical"] = h.id
    out["origin"] = {"match": h.started.match, "deal": h.started.deal, "step": h.started.step,
                     "version": h.started.origin_version, "hash": h.started.origin_hash}
    out["label"] = h.started.label
    out["settled"] = h.settled
    out["deal_scores"] = h.deal_scores()
    return out


def replay_lines(h: Hypothetical, viewer: Viewer = ALL) -> list[str]:
    """The hypothetical step by step: its moment, then each of its own events with the table."""
    s = h.started
    game, players = h.game, h.match.players
    lines = [f"{game.title} · hypothetical {h.id} · from match {s.match} deal {s.deal} step {s.step}"
             + (f" · {s.label}" if s.label else ""),
             "", game.render(h.moment.state, viewer)]
    state = h.moment.state
    for i, event in enumerate(h.events, 1):
        lines += ["", f"h{i}. {describe(game, state, event, viewer, players)}"]
        state = step(game, state, event)
        lines.append(game.render(state, viewer))
    scores = h.deal_scores()
    if scores is not None:
        lines += ["", f"deal settled: {_fmt_scores(scores)}"]
    return lines


def _fmt_scores(scores: dict[str, Any]) -> str:
    return ", ".join(f"{p} {v:+g}" for p, v in scores.items())


def list_hypotheticals(store: EventStore, match: str | None = None, deal: int | None = None) -> list[dict[str, Any]]:
    """Every hypothetical (of ``match``, of its ``deal``), oldest first, as ``summary``."""
    match_id = MatchService(store).resolve(match) if match else None
    firsts = []
    for stream in store.streams(HYPO_PREFIX):
        head = store.read_stream(stream, 1, 1)
        if not head or not isinstance(head[0].event, HypoStarted):
            continue
        ev = head[0].event
        if (match_id is None or ev.match == match_id) and (deal is None or ev.deal == deal):
            firsts.append((head[0].position, stream))
    out = []
    for _, stream in sorted(firsts):
        out.append(summary(fold(store, stream.removeprefix(HYPO_PREFIX))))
    return out


def origin_over(store: EventStore, h: Hypothetical) -> bool:
    """The origin deal has ended in the match (its events are public): a later deal
    started, it was settled, or the match ended."""
    from kartludo.app.visibility import deal_over

    match = MatchService(store).load(h.started.match)
    return match.game.deal_number(match.state) > h.started.deal or deal_over(match)


class HypoProblem(msgspec.Struct, frozen=True):
    hypothetical: str
    reason: str

    def __str__(self) -> str:
        return f"hypothetical {self.hypothetical}: {self.reason}"


def verify_all(store: EventStore) -> tuple[int, list[HypoProblem]]:
    """For ``kartludo verify``: every hypothetical cites an origin event whose stored
    hash is the one it cites, and re-folds through its engine (its chain is checked
    with every stream's)."""
    problems: list[HypoProblem] = []
    streams = store.streams(HYPO_PREFIX)
    for stream in streams:
        hypo_id = stream.removeprefix(HYPO_PREFIX)
        records = store.read_stream(stream)
        first = records[0].event if records else None
        if not isinstance(first, HypoStarted):
            problems.append(HypoProblem(hypo_id, "the stream does not start with hypo.started"))
            continue
        origin = store.read_stream(stream_of(first.match), first.origin_version, first.origin_version)
        if not origin:
            problems.append(HypoProblem(hypo_id, f"cites match {first.match} version {first.origin_version}, "
                                                 "which does not exist"))
            continue
        if origin[0].hash.hex() != first.origin_hash:
            problems.append(HypoProblem(hypo_id, f"cites origin hash {first.origin_hash[:16]}… but match "
                                                 f"{first.match} v{first.origin_version} has "
                                                 f"{origin[0].hash.hex()[:16]}…"))
            continue
        try:
            h = fold(store, hypo_id, records)
            if h.moment.record.version != first.origin_version:
                raise ValueError(f"deal {first.deal} step {first.step} is version {h.moment.record.version} "
                                 f"of the match, not the cited {first.origin_version}")
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            problems.append(HypoProblem(hypo_id, f"does not re-fold: {type(exc).__name__}: {exc}"))
    return len(streams), problems

