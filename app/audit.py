"""The audit trail of penalty rulings: showing, appeals, TD decisions, and
re-checking recorded rulings against today's engine (``projections.queries`` lists
and finds them).

Appeals and decisions are new events in the match stream (``RulingAppealed``,
``RulingDecided``); an overturn is undone by the engine's fold and reaches every
projection through that event, never by editing what was recorded.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app import aggregate
from kartludo.app.aggregate import describe
from kartludo.app.errors import AppError, NotAllowed, UnknownPlayer, check_text
from kartludo.app.matches import MatchService
from kartludo.engine.base import ALL, BadCommand, IllegalCommand
from kartludo.engine.registry import get_game
from kartludo.events.match import DealStarted, MatchCreated, Ruling, RulingDecided
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.store import EventStore, Recorded
from kartludo.store.transfer import format_us


class AuditRecord(msgspec.Struct):
    id: str
    match: str
    ruling_id: str
    game: str
    deal: int
    position: int
    version: int
    player: str
    seat: int
    type: str
    rule: str
    facts: dict[str, Any]
    effect: dict[str, Any]
    status: str
    series: str | None
    series_effect: str | None
    lifted_position: int | None
    voided: list[dict[str, Any]]
    recorded_at: str
    history: list[dict[str, Any]] = []


def seat_label(game_name: str, seat: int) -> str:
    """A seat as the CLI, the web and the casebook all say it: the game's seat label
    (Or, Su, …; P1, … where the game has none of its own), never a count from 0."""
    try:
        labels = get_game(game_name).seat_names
    except BadCommand:
        labels = ()
    return labels[seat] if 0 <= seat < len(labels) else str(seat + 1)


def fact_words(value: Any) -> str:
    """A ruling's fact or effect in words, as the web's ruling page shows it: nothing or
    an empty list is "none", a flag is yes/no, a list is joined with commas (a list of
    groups, such as a split, with " / " between the groups), a record is "key: value"
    pairs; never Python's spelling (None, False, [])."""
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        sep = " / " if any(isinstance(v, (list, tuple)) for v in value) else ", "
        return sep.join(fact_words(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')}: {fact_words(v)}" for k, v in value.items())
    return str(value)


def foul_series_mp(game_name: str) -> int:
    """What a ruling costs its player in a series, by the game's rules (0 for a game
    this build does not have)."""
    try:
        return get_game(game_name).foul_series_mp
    except BadCommand:
        return 0


#: the status of an audit record that is a decision without a penalty (never appealed)
DECISION = "decision"


def decisions_of(match_id: str, records: list[Recorded]) -> list[AuditRecord]:
    """The decisions without a penalty that a match's settlements record (an invalid
    claim beside a valid one, the levu voided by all three), as audit records."""
    created = records[0].event
    if not isinstance(created, MatchCreated):
        return []
    game = get_game(created.game)
    out = []
    for rec in records[1:]:
        if not type(rec.event).derived:
            continue
        for d in game.decisions(rec.event):
            out.append(AuditRecord(
                id=f"{match_id}/{d.key}", match=match_id, ruling_id=d.key, game=game.name,
                deal=getattr(rec.event, "deal", 0), position=rec.position, version=rec.version,
                player=created.players[d.seat], seat=d.seat, type=rec.type, rule=d.rule, facts=dict(d.facts),
                effect=dict(d.effect), status=DECISION, series=created.series, series_effect=None,
                lifted_position=None, voided=[], recorded_at=format_us(rec.recorded_at_us),
            ))
    return out


def makes_decisions(game_name: str) -> bool:
    from kartludo.engine.base import Game

    try:
        return type(get_game(game_name)).decisions is not Game.decisions
    except Exception:  # noqa: BLE001 - a game this build does not have makes none it can show
        return False


class RulingContext(msgspec.Struct):
    record: AuditRecord
    hash: str
    before: list[str]
    after: list[str]
    table_all: str
    table_seat: str
    #: adjusted decisions: the deal's score as played and as awarded, with the weights
    adjustments: list[dict[str, Any]] = []
    #: the hypotheticals made from the ruled deal, with their results (once the deal has ended)
    hypotheticals: list[dict[str, Any]] = []


def ruling_context(store: EventStore, record: AuditRecord, around: int = 3) -> RulingContext:
    """The state the ruling was made in (all hands, and the seat's own view), the
    events just before and after it, and its stored hash."""
    match, records = _from_snapshot(store, record.match, record.version - around)
    lines: list[tuple[int, str]] = []
    ruled: Recorded | None = None
    state_at = match.state
    for rec in records:
        lines.append((rec.version, f"#{rec.position} v{rec.version} " + describe(match.game, match.state, rec.event,
                                                                                    ALL, match.players)))
        if rec.version == record.version:
            ruled, state_at = rec, match.state
        match.apply(rec.event, rec.version)
    game, state = match.game, match.state
    if ruled is None:
        raise AppError(f"ruling {record.id} is not at version {record.version} of its match")
    before = [text for v, text in lines if record.version - around <= v < record.version]
    after = [text for v, text in lines if record.version <= v <= record.version + around]
    adjustments = [{"by": r.event.by, "deal": r.event.deal, "recorded": r.event.recorded,
                    "adjusted": r.event.adjusted, "adjustment": r.event.adjustment, "weights": r.event.weights,
                    "reason": r.event.reason, "position": r.position}
                   for r in records if isinstance(r.event, RulingDecided) and r.event.decision == "adjust"
                   and r.event.ruling_id == record.ruling_id]
    deal_ended = game.deal_number(state) > record.deal or game.can_deal(state) or match.over
    from kartludo.app.hypotheticals import list_hypotheticals

    hypos = list_hypotheticals(store, record.match, record.deal) if deal_ended else []
    return RulingContext(record, ruled.hash.hex(), before, after, game.render(state_at, ALL),
                         game.render(state_at, record.seat), adjustments, hypos)


def _from_snapshot(store: EventStore, match_id: str, before: int) -> tuple[aggregate.Match, list[Recorded]]:
    """The match folded to its nearest snapshot before version ``before`` (else as
    created) and every event after that, to the stream's end: a ruling's context in a
    long match folds from near the ruling, not from the match's start."""
    from kartludo.app import snapshots

    found = snapshots.starts(store, match_id)
    if found is not None:
        for start, at in found[1]:
            if start.version < before or start.version == 1:
                return start, store.read_stream(at.stream_id, start.version + 1)
    records = store.read_stream(match_stream(match_id))  # no such match, or no MatchCreated: start raises
    return aggregate.start(match_id, records[0]), records[1:]


#: who may speak in a dispute: names as recorded (a player's name or a TD's label)
NAME_LIMIT = 100
REASON_LIMIT = 2000


def td_labels(store: EventStore) -> set[str]:
    """The labels of the live TD tokens: the TDs a command line may name."""
    from kartludo.app.tokens import TokenIndex

    index = TokenIndex(store)
    index.refresh()
    return {p.label for p in index.live() if p.role == "td" and p.label}


def appeal(store: EventStore, record: AuditRecord, by: str, reason: str, *, td: bool = False) -> None:
    """``by`` appeals a ruling (``projections.queries.resolve_ruling`` finds it): a
    player of its match, or a TD (``td``: the caller holds a TD token; otherwise ``by``
    must be the label of a live TD token)."""
    check_text("the appellant's name (--by)", by, NAME_LIMIT)
    check_text("the reason", reason, REASON_LIMIT)
    svc = MatchService(store)
    match = svc.load(record.match)
    if not td and by not in match.players and by not in td_labels(store):
        raise UnknownPlayer(f"{by!r} does not play in match {record.match} (players: {', '.join(match.players)}) "
                            f"and is no TD (no live TD token is labelled {by!r}): only they may appeal")
    svc.execute(record.match, lambda m: aggregate.appeal(m, record.ruling_id, by, reason), actor=by)


def decide(store: EventStore, record: AuditRecord, by: str, decision: str, reason: str, *,
           adjust: str | None = None, adjust_scores: str | None = None) -> None:
    """The TD ``by`` upholds or overturns an appealed ruling, or adjusts its deal's
    score (``adjust``: hypothetical weights, or ``adjust_scores``: see
    ``app.adjust``); the TD may be neither a player of the match nor the appellant."""
    if decision not in ("uphold", "overturn", "adjust"):
        raise AppError("decide with --uphold, --overturn or --adjust")
    if (decision == "adjust") != (adjust is not None or adjust_scores is not None):
        raise AppError("an adjusted decision names --adjust H1:W1,… or --adjust-scores PLAYER=SCORE,…")
    if not reason.strip() or not by.strip():
        raise AppError("a decision needs the TD's name (--by) and a reason")
    check_text("the TD's name (--by)", by, NAME_LIMIT)
    check_text("the reason", reason, REASON_LIMIT)
    svc = MatchService(store)
    match = svc.load(record.match)
    players = match.players
    if any(aggregate.same_name(p, by) for p in players):
        raise NotAllowed(f"{by} plays in match {record.match}: a ruling of their own match is decided by "
                         "another TD")
    extra: dict[str, Any] = {}
    if decision == "adjust":
        from kartludo.app.adjust import compute

        extra = msgspec.structs.asdict(compute(store, record.match, record.deal, match.game, players,
                                               weights=adjust, scores=adjust_scores))
    svc.execute(record.match, lambda m: aggregate.decide(m, record.ruling_id, by, decision, reason, **extra),
                actor=by)


class Difference(msgspec.Struct):
    """A recorded event that today's engine would not record: a ruling or settlement it
    would make differently (``fields`` maps each differing field to [recorded, engine]),
    or a player's action it refuses (``refused`` names today's rule; ``outcomes`` lists
    the deal's recorded rulings and settlement that followed that action, whose outcome
    rests on it)."""

    match: str
    position: int
    version: int
    recorded: str
    engine: str
    fields: dict[str, list[Any]] = {}
    refused: str | None = None
    outcomes: list[str] = []

    def __str__(self) -> str:
        head = f"match {self.match} v{self.version} (#{self.position}): "
        if self.refused is not None:
            tail = ("; the deal's outcome rests on it: " + ", ".join(self.outcomes) if self.outcomes
                    else "; no ruling or settlement has followed it yet")
            return head + f"recorded {self.recorded}, which today's engine refuses: {self.refused}" + tail
        if self.fields:
            parts = [f"{k}: recorded {_clip(a)} / engine {_clip(b)}" for k, (a, b) in self.fields.items()]
            return head + f"{self.recorded} differs — " + "; ".join(parts)
        return head + f"recorded {self.recorded}, today's engine makes {self.engine}"


def _clip(value: Any, width: int = 70) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= width else text[: width - 1] + "…"


def _short(event: Any) -> str:
    return "nothing" if event is None else type(event).__struct_config__.tag


def _difference(match_id: str, rec: Recorded, made: Any) -> Difference:
    diff = Difference(match_id, rec.position, rec.version, _short(rec.event), _short(made))
    if made is not None and type(made) is type(rec.event):
        a, b = msgspec.to_builtins(rec.event), msgspec.to_builtins(made)
        diff.fields = {k: [a.get(k), b.get(k)] for k in {**a, **b} if a.get(k) != b.get(k)}
    return diff


def outcome(event: Any) -> Any:
    """``event`` without what only explains it (``Ruling.words``: a citation, a
    sentence in its facts or effect): two rulings with the same outcome compare equal."""
    words = getattr(type(event), "words", None)
    if not words:
        return event
    data = msgspec.to_builtins(event)
    for path in words:
        head, _, key = path.partition(".")
        if key:
            data.get(head, {}).pop(key, None)
        else:
            data.pop(head, None)
    return type(event).__struct_config__.tag, data


def _rejudge(game: Any, state: Any, match_id: str, rec: Recorded) -> Difference | None:
    """A recorded action today's rules refuse (or would record differently), else None."""
    command = game.command_for(rec.event)
    if command is None:
        return None
    try:
        made = game.decide(state, command)
    except IllegalCommand as exc:
        return Difference(match_id, rec.position, rec.version, f"{_short(rec.event)} ({command.text()})",
                          "a refusal", refused=str(exc))
    first = made[0]
    if isinstance(first, DealStarted) and isinstance(rec.event, DealStarted):
        # the salt and commitment are the pipeline's, added after the engine decided the deal
        first = msgspec.structs.replace(first, salt=rec.event.salt, commitment=rec.event.commitment)
    if first != rec.event:
        return _difference(match_id, rec, first)
    return None


def recheck_match(records: list[Recorded], match_id: str) -> tuple[list[Difference], list[str]]:
    """Re-fold a match through today's engine (with the options recorded at creation):
    re-judge every recorded action and compare every ruling and settlement it makes with
    what was recorded. A refused action lists the rulings and settlement of its deal that
    followed it. Returns the differences and notes (e.g. another ruleset)."""
    created = records[0].event
    if not isinstance(created, MatchCreated):
        raise AppError(f"match {match_id} does not start with MatchCreated")
    game = get_game(created.game)
    notes = []
    if created.ruleset != game.ruleset:
        notes.append(f"match {match_id} was recorded under {created.ruleset}; today's engine is {game.ruleset}")
    state = game.start(created)
    diffs = []
    reworded = 0
    refused: list[Difference] = []  # this deal's refused actions, collecting the outcomes that follow
    for rec in records[1:]:
        event = rec.event
        if not aggregate.engine_folds(event):  # the match's own fact: nothing the engine judges
            continue
        expected = game.automatic(state)
        if type(event).derived:
            made = expected[0] if expected else None
            if made != event:
                if made is not None and type(made) is type(event) and outcome(made) == outcome(event):
                    reworded += 1
                else:
                    diffs.append(_difference(match_id, rec, made))
        else:
            if expected:
                diffs.append(Difference(match_id, rec.position, rec.version, f"no decision before {rec.type}",
                                        _short(expected[0])))
            judged = _rejudge(game, state, match_id, rec)
            if judged is not None:
                diffs.append(judged)
                if judged.refused is not None:
                    refused.append(judged)
        state = game.evolve(state, event)  # the recorded history goes on, whatever today's engine says
        if refused and type(event).derived:
            ends_deal = game.can_deal(state) or game.is_finished(state)
            if isinstance(event, Ruling) or ends_deal:
                for diff in refused:
                    diff.outcomes.append(f"{rec.type} v{rec.version} (#{rec.position})")
            if ends_deal:
                refused = []
    if reworded:
        notes.append(f"match {match_id}: {reworded} ruling{'s' if reworded > 1 else ''} recorded in other words "
                     "(citation or explanation) with the same outcome as today's: not listed")
    pending = game.automatic(state)
    if pending:
        last = records[-1]
        diffs.append(Difference(match_id, last.position, last.version, "nothing after the last event",
                                _short(pending[0])))
    return diffs, notes


def recheck(store: EventStore, match: str | None = None) -> tuple[int, list[Difference], list[str]]:
    svc = MatchService(store)
    ids = [svc.resolve(match)] if match else [s[len(MATCH_PREFIX):] for s in store.streams(MATCH_PREFIX)]
    diffs: list[Difference] = []
    notes: list[str] = []
    for match_id in ids:
        d, n = recheck_match(store.read_stream(match_stream(match_id)), match_id)
        diffs.extend(d)
        notes.extend(n)
    return len(ids), diffs, notes
