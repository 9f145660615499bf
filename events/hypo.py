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


HYPO_EVENTS = (HypoStarted, RolloutRecorded)
hypo_decoder = register_union(*HYPO_EVENTS)
