"""Events of an appeal hearing (stream ``hearing-<match>/<ruling>``), never of the match.

The match's stream holds the facts of play and the TD's decision; what is said about
them at the hearing (comments on its events) lives beside it, so a comment can never
change a fold, a standing or a hash of the match.
"""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class AnnotationAdded(Event, frozen=True, kw_only=True, tag="hearing.annotated"):
    """``by`` (a TD or a player of the match) comments on the ruled deal's event at
    ``position`` (global; ``version`` in the match stream, step ``step`` of the deal)."""

    match: str
    ruling_id: str
    deal: int
    position: int
    version: int
    step: int
    by: str
    role: str  # "td" or "player"
    text: str


HEARING_EVENTS = (AnnotationAdded,)
hearing_decoder = register_union(*HEARING_EVENTS)
