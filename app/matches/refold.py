"""``kartludo verify``'s full re-fold: every match stream folded from scratch through its
engine, reporting the events that would not fold."""

from __future__ import annotations

import msgspec

from kartludo.engine import match as aggregate
from kartludo.events.match import MatchCreated
from kartludo.events.streams import MATCH_PREFIX
from kartludo.store import EventStore


class FoldProblem(msgspec.Struct, frozen=True):
    match: str
    version: int
    reason: str

    def __str__(self) -> str:
        return f"match {self.match} version {self.version}: {self.reason}"


def refold_all(store: EventStore) -> tuple[int, list[FoldProblem]]:
    """Fold every match stream through its engine from scratch (``kartludo verify``).

    Returns the number of matches folded and the events that would not fold.
    """
    problems: list[FoldProblem] = []
    count = 0
    for stream in store.streams(MATCH_PREFIX):
        match_id = stream.removeprefix(MATCH_PREFIX)
        records = store.read_stream(stream)
        count += 1
        try:
            if not isinstance(records[0].event, MatchCreated):
                raise ValueError("the stream does not start with MatchCreated")
            match = aggregate.start(match_id, records[0])
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            problems.append(FoldProblem(match_id, records[0].version, str(exc)))
            continue
        for rec in records[1:]:
            try:
                match.apply(rec.event, rec.version)
            except Exception as exc:  # noqa: BLE001 - a stored event the engine cannot fold
                problems.append(FoldProblem(match_id, rec.version, f"{type(exc).__name__}: {exc}"))
                break
    return count, problems
