"""Events of a hypothetical (stream ``hypo-<id>``): "what would have happened otherwise?".

A hypothetical starts from a recorded moment of a match (after step ``step`` of deal
``deal``, the step numbers of ``replay``) and cites the origin event's hash, so the
moment it starts from is pinned: ``kartludo verify`` checks the citation. The events
that follow are the game's own events, decided by the same engine as the match's; a
rollout's summary is recorded as one event so its figures are part of the record.
Nothing here ever reaches standings, ratings, series or the match list: the
projections read match streams only.
"""

from __future__ import annotations

from typing import Any

from kartludo.events.base import Event, register_union


class HypoStarted(Event, frozen=True, kw_only=True, tag="hypo.started"):
    """A hypothetical begins from ``origin_version`` of match ``match`` (the event of
    step ``step`` of ``deal``; step 0: the deal's first event, as nobody had yet seen
    a card). ``origin_hash`` is that event's stored hash (hex). ``game`` and
    ``players`` are the match's, for listing without folding the match."""

    match: str
    deal: int
    step: int
    origin_version: int
    origin_hash: str
    game: str
    players: list[str]
    label: str = ""
    by: str = ""


class RolloutRecorded(Event, frozen=True, kw_only=True, tag="hypo.rollout"):
    """The summary of ``n`` bot rollouts from the hypothetical's moment to the deal's
    settlement: per player ``mean``/``p10``/``p50``/``p90`` of the deal's score and
    the ``outcomes`` with their counts (the JSON ``hypo rollout`` prints). ``seed``
    None: the rollouts drew from the OS CSPRNG, not reproducible. ``at_version``:
    the hypothetical's version it was rolled out from."""

    n: int
    bots: str
    hidden: str
    seed: int | None
    at_version: int
    players: dict[str, dict[str, float]]
    outcomes: list[dict[str, Any]]


class RolloutJobStarted(Event, frozen=True, kw_only=True, tag="hypo.rollout-job"):
    """A rollout job begins (``POST /hypotheticals/{id}/rollouts``): ``n`` rollouts from
    the hypothetical's version ``at_version`` (the version before this event), run by the
    server process ``runner`` (``host/boot/pid``: a later process on the same machine
    knows whether it is gone). Its result is a ``RolloutRecorded`` followed, in the same
    append, by its ``RolloutJobEnded`` with status ``done``; a job never ended was cut
    short, and the next server to read it records it ``interrupted``."""

    job: str
    n: int
    bots: str
    hidden: str
    seed: int | None
    at_version: int
    by: str = ""
    runner: str = ""


class RolloutJobProgress(Event, frozen=True, kw_only=True, tag="hypo.rollout-job-progress"):
    """A running job's heartbeat: ``done`` of its rollouts played so far (every few
    seconds while it runs; a job whose runner is elsewhere and silent longer than the
    lease is taken for interrupted)."""

    job: str
    done: int


class RolloutJobEnded(Event, frozen=True, kw_only=True, tag="hypo.rollout-job-ended"):
    """A job's end: ``done`` (the ``RolloutRecorded`` just before, in the same append,
    is its result), ``cancelled`` (``DELETE``; no result), ``interrupted`` (its server
    stopped or died first; no result) or ``failed`` (``reason`` says why; no result).
    ``done_rollouts``: how many had been played when it ended."""

    job: str
    status: str
    done_rollouts: int = 0
    reason: str = ""
    by: str = ""


ROLLOUT_JOB_EVENTS = (RolloutJobStarted, RolloutJobProgress, RolloutJobEnded)
HYPO_EVENTS = (HypoStarted, RolloutRecorded, *ROLLOUT_JOB_EVENTS)
hypo_decoder = register_union(*HYPO_EVENTS)
