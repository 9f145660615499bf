"""Time-control events of a match's ``table-MATCH`` stream (beside ``TableSet``): the
clock the match is played with, and a TD's pauses and extra time. Like the table's
other settings they are none of the rules' business: the engines never fold them and
the match stream's hash chain stays as it was. A flag fall, which the rules do feel, is
a ruling in the match stream (``events.match.FlagFall``).

Times are whole microseconds, as the store records ``recorded_at_us``.
"""

from __future__ import annotations

from kartludo.events.base import Event, register_union


class ClockSet(Event, frozen=True, kw_only=True, tag="table.clock-set"):
    """The match's time control from now on: ``base_us`` per seat plus
    ``increment_us`` for each turn the seat plays (``5m+10s``), and/or a limit on each
    turn (``move_limit_us``, ``--move-limit 60s``); 0 is "none". ``consequence`` is
    what a flag fall does: ``"bot"`` (the game's heuristic bot plays the seat's turn) or
    ``"bot-penalty"`` (that, and the game's time penalty: ``engine.match.flag_penalty``)."""

    base_us: int = 0
    increment_us: int = 0
    move_limit_us: int = 0
    consequence: str = "bot"


class ClockPaused(Event, frozen=True, kw_only=True, tag="table.clock-paused"):
    """A TD stops every clock of the match."""

    by: str
    reason: str


class ClockResumed(Event, frozen=True, kw_only=True, tag="table.clock-resumed"):
    """A TD restarts the clocks of a paused match."""

    by: str
    reason: str


class TimeAdded(Event, frozen=True, kw_only=True, tag="table.time-added"):
    """A TD gives one seat ``amount_us`` more time."""

    seat: int
    amount_us: int
    by: str
    reason: str


CLOCK_EVENTS = (ClockSet, ClockPaused, ClockResumed, TimeAdded)
clock_decoder = register_union(*CLOCK_EVENTS)
