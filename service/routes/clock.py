"""A match's clocks over HTTP: anyone reads them (times only: no card), a TD token adds
time or pauses and resumes them (authority checked on every call by ``td_only``; the
TD is recorded under its token's label). Flag falls are the server's own
(``app.matches.clock.Sweeper``, run by the app's lifecycle)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get, post
from litestar.params import JSONBody

from kartludo.app.errors import UnknownMatch
from kartludo.app.matches import clock
from kartludo.engine.base import ALL
from kartludo.service import schemas as s
from kartludo.service.deps import MatchOf, Svcs, User, View, td_only
from kartludo.service.errors import responses


@get("/matches/{match_id:str}/clock", sync_to_thread=True, responses=responses(401, 404))
def get_clock(services: Svcs, mid: MatchOf, viewer: View) -> s.ClockOut:
    """The match's clocks now (as `state`'s `clock`): the control, each seat's
    `remaining_ms`, whether it is `running` (the seat to act) and its standing flag
    falls; `as_of` is the server's time of the figures. A watcher (no token) of a match
    with a watch delay reads them as they stood at the watchers' cut. 404 for a match
    without a clock."""
    reading = services.reader.clock(mid, viewer, viewer == ALL)
    if reading is None:
        raise UnknownMatch(f"match {mid} has no clock")
    return msgspec.convert(reading, s.ClockOut)


def _changed(services: Any, mid: str) -> s.ClockOut:
    services.live.notify(mid)
    reading = services.reader.clocks.reading(mid)
    assert reading is not None
    return msgspec.convert(reading, s.ClockOut)


@post("/matches/{match_id:str}/clock/time", sync_to_thread=True, guards=[td_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def add_time(services: Svcs, user: User, mid: MatchOf, data: JSONBody[s.AddTime]) -> s.ClockOut:
    """A TD gives a seat more time (`{"seat": "ann", "time": "60s", "reason": "…"}`), recorded
    with the TD's label and the reason; the match's clocks after it."""
    with services.locked(mid):
        clock.add_time(services.store, mid, data.seat, data.time, by=user.label or "td", reason=data.reason)
    services.wrote(user)
    return _changed(services, mid)


@post("/matches/{match_id:str}/clock/pause", sync_to_thread=True, guards=[td_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def pause_clock(services: Svcs, user: User, mid: MatchOf, data: JSONBody[s.ClockChange]) -> s.ClockOut:
    """A TD stops every clock of the match (`{"reason": "…"}`); 409 when already paused."""
    with services.locked(mid):
        clock.pause(services.store, mid, by=user.label or "td", reason=data.reason)
    services.wrote(user)
    return _changed(services, mid)


@post("/matches/{match_id:str}/clock/resume", sync_to_thread=True, guards=[td_only],
      responses=responses(401, 403, 404, 409, 413, 415, 422))
def resume_clock(services: Svcs, user: User, mid: MatchOf, data: JSONBody[s.ClockChange]) -> s.ClockOut:
    """A TD restarts the clocks of a paused match (`{"reason": "…"}`); 409 when not paused."""
    with services.locked(mid):
        clock.pause(services.store, mid, by=user.label or "td", reason=data.reason, resume=True)
    services.wrote(user)
    return _changed(services, mid)


ROUTES = [get_clock, add_time, pause_clock, resume_clock]
