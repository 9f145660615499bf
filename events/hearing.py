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


class HearingOpened(Event, frozen=True, kw_only=True, tag="hearing.opened"):
    """The TD ``by`` opens the hearing room; followers read it with the link whose
    SHA-256 is ``link_hash`` (the link itself is never stored). ``expires_at_us``: when
    the link stops working by itself (microseconds since the epoch; 0: only closing the
    room ends it)."""

    by: str
    link_hash: str
    expires_at_us: int = 0


class HearingMoved(Event, frozen=True, kw_only=True, tag="hearing.moved"):
    """The leading TD shows step ``step`` of the ruled deal in ``view`` ("all" or a
    player's name); every follower sees the same moment."""

    by: str
    step: int
    view: str


class HearingShowed(Event, frozen=True, kw_only=True, tag="hearing.showed"):
    """The leading TD shows the hypothetical ``hypothetical`` (made from the ruled deal)
    to the room, or ("") goes back to the ruled deal itself."""

    by: str
    hypothetical: str


class HearingClosed(Event, frozen=True, kw_only=True, tag="hearing.closed"):
    """The TD closes the room: its link no longer opens it."""

    by: str


HEARING_EVENTS = (AnnotationAdded, HearingOpened, HearingMoved, HearingShowed, HearingClosed)
hearing_decoder = register_union(*HEARING_EVENTS)
