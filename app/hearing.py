"""The appeal hearing of a ruling: annotations on the ruled deal's events.

A hearing's events live in its own stream, ``hearing-<match>/<ruling>``, never in the
match's (a comment changes no fold, standing or hash of the match). Who may speak: a TD
(the label of a live TD token, or a caller holding a TD token) and the players of the
match. Who may read: anyone once the ruled deal has ended; before, TDs only (a comment
may name cards a seat has not seen).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.audit import AuditRecord, NAME_LIMIT, resolve_ruling, td_labels
from kartludo.app.errors import AppError, NotAllowed, UnknownPlayer, check_text
from kartludo.events.hearing import AnnotationAdded
from kartludo.store import ConcurrencyConflict, EventStore

HEARING_PREFIX = "hearing-"
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
    from kartludo.app.casebook import deal_has_ended

    return deal_has_ended(store, record)


def annotate(store: EventStore, ruling: str, by: str, position: int, text: str, *, td: bool = False) -> Annotation:
    """``by`` comments on the event at global ``position`` of the ruled deal. ``td``:
    the caller holds a TD token; otherwise ``by`` must be a player of the match or the
    label of a live TD token."""
    from kartludo.app.matches import MatchService, stream_of
    from kartludo.app.replay import build

    check_text("the annotator's name (--by)", by, NAME_LIMIT)
    check_text("the annotation", text, TEXT_LIMIT)
    record = resolve_ruling(store, ruling)
    match = MatchService(store).load(record.match)
    if td or by in td_labels(store):
        role = "td"
    elif by in match.players:
        role = "player"
    else:
        raise UnknownPlayer(f"{by!r} does not play in match {record.match} (players: {', '.join(match.players)}) "
                            f"and is no TD (no live TD token is labelled {by!r}): only they may annotate")
    rep = build(record.match, store.read_stream(stream_of(record.match)), record.deal)
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
    return msgspec.to_builtins(a)
