"""Penalty rulings after the fact: a ruling's context, appeals and TD decisions
(``trail`` lists and finds them; an audit record's shape is the rulings projection's,
``projections.audit.AuditRecord``).

Appeals and decisions are new events in the match stream (``RulingAppealed``,
``RulingDecided``); an overturn is undone by the engine's fold and reaches every
projection through that event, never by editing what was recorded.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.errors import AppError, NotAllowed, UnknownPlayer, check_text
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, BadCommand
from kartludo.engine.match import describe
from kartludo.engine.registry import get_game
from kartludo.events.match import RulingDecided
from kartludo.events.streams import match_stream
from kartludo.projections.audit import AuditRecord
from kartludo.store import EventStore, Recorded


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


def deal_has_ended(store: EventStore, record: AuditRecord) -> bool:
    """Whether the ruled deal has ended: what was hidden in it is public (the casebook
    publishes it, the hearing room shows every hand)."""
    from kartludo.app.visibility import deal_over

    match = MatchService(store).load(record.match)
    return match.game.deal_number(match.state) > record.deal or deal_over(match)


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
    from kartludo.app.hypotheticals.hypothetical import list_hypotheticals

    hypos = list_hypotheticals(store, record.match, record.deal) if deal_ended else []
    return RulingContext(record, ruled.hash.hex(), before, after, game.render(state_at, ALL),
                         game.render(state_at, record.seat), adjustments, hypos)


def _from_snapshot(store: EventStore, match_id: str, before: int) -> tuple[aggregate.Match, list[Recorded]]:
    """The match folded to its nearest snapshot before version ``before`` (else as
    created) and every event after that, to the stream's end: a ruling's context in a
    long match folds from near the ruling, not from the match's start."""
    from kartludo.app.matches import snapshots

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
    """``by`` appeals a ruling (``trail.resolve_ruling`` finds it): a
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
           adjust: str | None = None, adjust_scores: str | None = None, named: bool = False) -> None:
    """The TD ``by`` upholds or overturns an appealed ruling, or adjusts its deal's
    score (``adjust``: hypothetical weights, or ``adjust_scores``: see
    ``app.hypotheticals.adjust``); the TD may be neither a player of the match nor the appellant.
    ``named``: ``by`` is only a name (typed on a command line, no token shown): it must
    be the label of a live TD token (``td_labels``), as an appealing TD's is."""
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
        from kartludo.app.hypotheticals.adjust import compute

        extra = msgspec.structs.asdict(compute(store, record.match, record.deal, match.game, players,
                                               weights=adjust, scores=adjust_scores))
    elif decision == "overturn" and record.effect.get("penalty"):  # a flag fall's time penalty is given back
        extra = {"deal": record.deal, "adjustment": {p: -v for p, v in record.effect["penalty"].items()}}
    tds = td_labels(store) if named else None

    def decided(m: aggregate.Match) -> list[Any]:
        events = aggregate.decide(m, record.ruling_id, by, decision, reason, **extra)
        if tds is not None and by not in tds:  # (after the appeal's own refusals: no appeal, decided, appellant)
            known = f" (live TD tokens: {', '.join(sorted(tds))})" if tds else " (there is none)"
            raise NotAllowed(f"{by!r} is no TD: no live TD token is labelled {by!r}{known}; only a TD decides "
                             "an appeal (a TD's token: `kartludo token new --role td --label NAME`)")
        return events

    svc.execute(record.match, decided, actor=by)
