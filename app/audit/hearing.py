"""The appeal hearing of a ruling: annotations on the ruled deal's events.

A hearing's events live in its own stream, ``hearing-<match>/<ruling>``, never in the
match's (a comment changes no fold, standing or hash of the match). Who may speak: a TD
(the label of a live TD token, or a caller holding a TD token) and the players of the
match. Who may read: anyone once the ruled deal has ended; before, TDs only (a comment
may name cards a seat has not seen).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from kartludo.app.audit.rulings import NAME_LIMIT, deal_has_ended, td_labels
from kartludo.app.errors import AppError, NotAllowed, UnknownPlayer, check_text
from kartludo.events.hearing import AnnotationAdded
from kartludo.projections.audit import AuditRecord
from kartludo.store import ConcurrencyConflict, EventStore

if TYPE_CHECKING:
    from kartludo.app.reading.replay import Replay

HEARING_PREFIX = "hearing-"
_MOVE_LINE = re.compile(r"^(h[0-9]+\. |deal settled: )")
TEXT_LIMIT = 500


def hearing_stream(audit_id: str) -> str:
    return HEARING_PREFIX + audit_id


class Annotation(msgspec.Struct):
    by: str
    role: str
    text: str
    position: int
    version: int
    step: int
    at: str
    #: the annotation's own position in the global order
    recorded: int


def _deal_ended(store: EventStore, record: AuditRecord) -> bool:
    return deal_has_ended(store, record)


def annotate(store: EventStore, record: AuditRecord, by: str, position: int, text: str, *,
             td: bool = False) -> Annotation:
    """``by`` comments on the event at global ``position`` of the ruled deal. ``td``:
    the caller holds a TD token; otherwise ``by`` must be a player of the match or the
    label of a live TD token."""
    from kartludo.app.matches.pipeline import MatchService

    check_text("the annotator's name (--by)", by, NAME_LIMIT)
    check_text("the annotation", text, TEXT_LIMIT)
    match = MatchService(store).load(record.match)
    if td or by in td_labels(store):
        role = "td"
    elif by in match.players:
        role = "player"
    else:
        raise UnknownPlayer(f"{by!r} does not play in match {record.match} (players: {', '.join(match.players)}) "
                            f"and is no TD (no live TD token is labelled {by!r}): only they may annotate")
    rep = _deal(store, record)
    found = next((s for s in rep.steps if s.record.position == position), None)
    if found is None:
        first, last = rep.steps[0].record.position, rep.steps[-1].record.position
        raise AppError(f"event #{position} is not an event of deal {record.deal} of match {record.match} "
                       f"(its events are #{first}…#{last}; see `kartludo audit show {record.id}`)")
    event = AnnotationAdded(match=record.match, ruling_id=record.ruling_id, deal=record.deal, position=position,
                            version=found.record.version, step=found.index, by=by, role=role, text=text)
    stream = hearing_stream(record.id)
    for _ in range(8):
        version = store.stream_version(stream)
        try:
            store.append(stream, [event], version, actor=by)
            break
        except ConcurrencyConflict:
            continue
    else:
        raise AppError(f"hearing of {record.id}: too many concurrent annotations; try again")
    return annotations_of(store, record.id)[-1]


def annotations_of(store: EventStore, audit_id: str) -> list[Annotation]:
    """Every annotation of a ruling's hearing, oldest first (no reader check: callers
    that serve a reader use ``readable_annotations``)."""
    from kartludo.store.transfer import format_us

    out = []
    for rec in store.read_stream(hearing_stream(audit_id)):
        e = rec.event
        if isinstance(e, AnnotationAdded):
            out.append(Annotation(e.by, e.role, e.text, e.position, e.version, e.step,
                                  format_us(rec.recorded_at_us), rec.position))
    return out


def readable_annotations(store: EventStore, record: AuditRecord, *, td: bool) -> list[Annotation]:
    """What a reader may see: everything once the ruled deal has ended, TDs only before."""
    if td or _deal_ended(store, record):
        return annotations_of(store, record.id)
    raise NotAllowed(f"the annotations of ruling {record.id} are for TDs until deal {record.deal} has ended")


def annotation_json(a: Annotation) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(a)
    return out


# --- the hearing room: a shared replay the TD leads ------------------------------------------

ALL_VIEW = "all"


#: how long a hearing link may be made to last at most (``--expires``)
MAX_LINK_SECONDS = 30 * 86400
MIN_LINK_SECONDS = 60


class Room(msgspec.Struct):
    """The hearing room as its stream says: open or not, the link's hash and expiry, the
    moment shown, and the hypothetical shown beside the deal ("" for none)."""

    open: bool = False
    link_hash: str = ""
    expires_at_us: int = 0
    step: int = 0
    view: str = ALL_VIEW
    hypothetical: str = ""
    version: int = 0

    def link_live(self, now_us: int) -> bool:
        return self.open and (not self.expires_at_us or now_us < self.expires_at_us)

    def expires_at(self) -> str | None:
        from kartludo.store.transfer import format_us

        return format_us(self.expires_at_us) if self.expires_at_us else None


def room_of(store: EventStore, audit_id: str) -> Room:
    from kartludo.events.hearing import HearingClosed, HearingMoved, HearingOpened, HearingShowed

    room = Room()
    for rec in store.read_stream(hearing_stream(audit_id)):
        e = rec.event
        room.version = rec.version
        if isinstance(e, HearingOpened):
            room.open, room.link_hash, room.expires_at_us = True, e.link_hash, e.expires_at_us
        elif isinstance(e, HearingClosed):
            room.open, room.link_hash, room.expires_at_us = False, "", 0
        elif isinstance(e, HearingMoved):
            room.step, room.view = e.step, e.view
        elif isinstance(e, HearingShowed):
            room.hypothetical = e.hypothetical
    return room


def _now_us() -> int:
    import time

    return time.time_ns() // 1000


def _append_one(store: EventStore, audit_id: str, event: Any, by: str) -> None:
    stream = hearing_stream(audit_id)
    for _ in range(8):
        try:
            store.append(stream, [event], store.stream_version(stream), actor=by)
            return
        except ConcurrencyConflict:
            continue
    raise AppError(f"hearing of {audit_id}: too many concurrent updates; try again")


def _link_hash(link: str) -> str:
    import hashlib

    return hashlib.sha256(link.encode()).hexdigest()


def open_room(store: EventStore, record: AuditRecord, by: str,
              expires_in: int | None = None) -> tuple[AuditRecord, str]:
    """The TD ``by`` opens the room (a new link each time; an older link stops working).
    Only once the ruled deal has ended: a follower sees every hand. ``expires_in``
    (seconds): the link also stops working by itself then. Returns the link."""
    import secrets

    from kartludo.events.hearing import HearingMoved, HearingOpened

    if expires_in is not None and not MIN_LINK_SECONDS <= expires_in <= MAX_LINK_SECONDS:
        raise AppError(f"a hearing link lasts between {MIN_LINK_SECONDS} seconds and {MAX_LINK_SECONDS // 86400} "
                       f"days, not {expires_in} seconds")
    if not _deal_ended(store, record):
        raise NotAllowed(f"deal {record.deal} of ruling {record.id} is still being played: "
                         "a hearing room shows every hand, so it opens once the deal has ended")
    link = secrets.token_urlsafe(24)
    expires_at = _now_us() + expires_in * 1_000_000 if expires_in else 0
    _append_one(store, record.id, HearingOpened(by=by, link_hash=_link_hash(link), expires_at_us=expires_at), by)
    if room_of(store, record.id).step == 0:
        _append_one(store, record.id, HearingMoved(by=by, step=ruled_step(store, record), view=ALL_VIEW), by)
    return record, link


def close_room(store: EventStore, record: AuditRecord, by: str) -> AuditRecord:
    from kartludo.events.hearing import HearingClosed

    if not room_of(store, record.id).open:
        raise AppError(f"the hearing room of {record.id} is not open")
    _append_one(store, record.id, HearingClosed(by=by), by)
    return record


def ruled_step(store: EventStore, record: AuditRecord) -> int:
    return _ruled_index(_deal(store, record), record)


def _deal(store: EventStore, record: AuditRecord) -> Replay:
    """The ruled deal step by step, as the match reader folds it (from the nearest
    snapshot before it); every hand (the room opens once the deal has ended)."""
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.reading.reader import MatchReader
    from kartludo.engine.base import ALL

    return MatchReader(MatchService(store)).replay(record.match, lambda _: ALL, deal=record.deal).replay


def _ruled_index(rep: Replay, record: AuditRecord) -> int:
    return next(s.index for s in rep.steps if s.record.version == record.version)


def move(store: EventStore, record: AuditRecord, by: str, step: int, view: str) -> AuditRecord:
    """The leading TD shows ``step`` in ``view`` ("all" or a player's name)."""
    from kartludo.app.matches.pipeline import MatchService
    from kartludo.events.hearing import HearingMoved

    if not room_of(store, record.id).open:
        raise AppError(f"the hearing room of {record.id} is not open")
    players = MatchService(store).load(record.match).players
    if view != ALL_VIEW and view not in players:
        raise UnknownPlayer(f"no view {view!r}: \"all\" or one of {', '.join(players)}")
    count = len(_deal(store, record).steps)
    if not 1 <= step <= count:
        raise AppError(f"deal {record.deal} has steps 1…{count}, not {step}")
    _append_one(store, record.id, HearingMoved(by=by, step=step, view=view), by)
    return record


def may_follow(store: EventStore, audit_id: str, link: str, room: Room | None = None) -> bool:
    """The link opens the room (``room``: the room as just read, to read it once)."""
    import hmac

    room = room or room_of(store, audit_id)
    return room.link_live(_now_us()) and bool(link) and hmac.compare_digest(room.link_hash, _link_hash(link))


def _open_room(store: EventStore, record: AuditRecord) -> Room:
    room = room_of(store, record.id)
    if not room.open:
        raise AppError(f"the hearing room of {record.id} is not open")
    return room


def show(store: EventStore, record: AuditRecord, by: str, hypothetical: str) -> AuditRecord:
    """The leader shows a hypothetical of the ruled deal beside it ("": the deal alone)."""
    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.events.hearing import HearingShowed

    _open_room(store, record)
    hypo_id = ""
    if hypothetical:
        h = hy.load(store, hypothetical)
        if (h.started.match, h.started.deal) != (record.match, record.deal):
            raise AppError(f"hypothetical {h.id} was made from match {h.started.match} deal {h.started.deal}, "
                           f"not from the ruled deal (match {record.match} deal {record.deal})")
        hypo_id = h.id
    _append_one(store, record.id, HearingShowed(by=by, hypothetical=hypo_id), by)
    return record


def branch(store: EventStore, record: AuditRecord, by: str, label: str = "") -> tuple[AuditRecord, str]:
    """The leader opens a hypothetical from the moment the room shows and shows it."""
    from kartludo.app.hypotheticals import hypothetical as hy

    room = _open_room(store, record)
    step = max(room.step, 1)
    hypo_id = hy.create(store, record.match, record.deal, step, label=label or f"hearing of {record.id}",
                        by=by)
    show(store, record, by, hypo_id)
    return record, hypo_id


def signature(store: EventStore, room: Room) -> tuple[int, int]:
    """What a follower's frame depends on: the room's version and the shown hypothetical's
    (a move or a rollout in it changes the frame without a room event)."""
    from kartludo.app.hypotheticals import hypothetical as hy

    return room.version, store.stream_version(hy.hypo_stream(room.hypothetical)) if room.hypothetical else 0


def frame(store: EventStore, record: AuditRecord) -> dict[str, Any]:
    """What the room shows now: the moment (step, view, its description and state in
    that view), the ruling's facts and where it was made, the annotations."""
    from kartludo.app.hypotheticals import hypothetical as hy
    from kartludo.app.visibility import state_view
    from kartludo.engine.base import ALL

    room = room_of(store, record.id)
    rep = _deal(store, record)
    step = min(max(room.step, 1), len(rep.steps))
    m = rep.match
    viewer = ALL if room.view == ALL_VIEW else m.seat_of(room.view)
    s = rep.steps[step - 1]
    state = state_view(type(m)(m.id, m.game, m.created, s.state, s.record.version), viewer, secrets=False)
    return {"hearing": record.id, "open": room.open, "version": room.version, "step": step,
            "expires_at": room.expires_at(),
            "of": len(rep.steps), "view": room.view, "players": list(m.players), "game": m.game.name,
            "ruled_step": _ruled_index(rep, record), "description": rep.description(step, viewer),
            "position": s.record.position, "state": state,
            "ruling": {"id": record.id, "player": record.player, "rule": record.rule, "facts": record.facts,
                       "effect": record.effect, "status": record.status},
            "annotations": [annotation_json(a) for a in annotations_of(store, record.id)],
            "hypothetical": _shown_hypothetical(store, room, viewer),
            "hypotheticals": [{"hypothetical": h["hypothetical"], "label": h["label"], "step": h["step"],
                               "settled": h["settled"], "deal_scores": h["deal_scores"],
                               "last_rollout": h["last_rollout"]}
                              for h in hy.list_hypotheticals(store, record.match, record.deal)]}


def _shown_hypothetical(store: EventStore, room: Room, viewer: Any) -> dict[str, Any] | None:
    """The hypothetical beside the deal: its state in the room's view, what each seat
    to act may play, its moves described, and its rollouts (for the chart)."""
    from kartludo.app.hypotheticals import hypothetical as hy

    if not room.hypothetical:
        return None
    h = hy.load(store, room.hypothetical)
    state = hy.state_json(store, h, viewer)
    return {"id": h.id, "label": h.started.label, "step": h.started.step, "state": state,
            "settled": h.settled, "deal_scores": h.deal_scores(),
            # the seats that may move next (after any events the rules still owe there)
            "legal": {p: moves for p in h.match.players if (moves := [c.text() for c in hy.legal(h, p)])},
            "moves": [line for line in hy.replay_lines(h, viewer) if _MOVE_LINE.match(line)],
            "rollouts": [hy.rollout_json(r) for r in h.rollouts]}
