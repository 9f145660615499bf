"""Whether the read models are what the events give: ``kartludo verify`` rebuilds each
projection beside the live one and compares them row by row (they live outside every
hash chain, so an edited row would change a league table while the log verifies)."""

from __future__ import annotations

from typing import Any

from kartludo.store import EventStore
from kartludo.store.integrity import Problem


def check(store: EventStore) -> tuple[int, list[Problem]]:
    """(projection rows, problems): the read models (standings, series, the audit
    trail) must be exactly what their events give. They live beside the log, outside
    every hash chain, and `standings` and the service read them: an edited row would
    change a league table while the log verifies. Each projection is rebuilt, up to its
    checkpoint, in a scratch SQLite file from a copy of the events (positions kept), and
    compared row by row; the first row that differs in each table is named."""
    import tempfile
    from pathlib import Path

    from kartludo.projections import all_projections
    from kartludo.projections.runner import catch_up, dump, status
    from kartludo.store.database import create_engine, upgrade
    from kartludo.store.transfer import copy_events

    projections = all_projections()
    try:
        # a running service may project meanwhile: its rows and checkpoint commit
        # together, so rows read between two equal readings of the checkpoints agree
        for _attempt in range(10):
            checkpoints = {name: position for name, position, _lag in status(store, projections)}
            live = {p.name: dump(store, p) for p in projections}
            if checkpoints == {name: position for name, position, _lag in status(store, projections)}:
                break
    except Exception:  # noqa: BLE001 - no projection tables yet: nothing to compare
        return 0, []
    problems: list[Problem] = []
    head = store.head_position()
    for name, position in checkpoints.items():
        if position > head:
            problems.append(Problem("", 0, position, f"at position {position}, beyond the log's last event "
                                    f"({head}): the events after {head} would never reach it (altered)",
                                    f"projection checkpoint {name!r}"))
            checkpoints[name] = head
    rows = 0
    with tempfile.TemporaryDirectory(prefix="kartludo-verify-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'scratch.db'}"
        engine = create_engine(url)
        upgrade(engine)
        engine.dispose()
        scratch = EventStore.open(url)
        scratch.sealer = None
        try:
            copied = 0
            for end in sorted(set(checkpoints.values())):
                copied = copy_events(store, scratch, copied, end)
                due = [p for p in projections if checkpoints[p.name] == end]
                catch_up(scratch, due)
                for projection in due:
                    for table, expected in dump(scratch, projection).items():
                        found = live[projection.name].get(table, [])
                        rows += len(found)
                        problem = _first_difference(table, found, expected)
                        if problem is not None:
                            problems.append(problem)
        finally:
            scratch.close()
    return rows, problems


def _first_difference(table: str, found: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> Problem | None:
    """The first row of ``table`` (sorted) where the stored rows and the rebuilt ones part."""
    found_set, expected_set = set(found), set(expected)
    extra = [r for r in found if r not in expected_set]
    missing = [r for r in expected if r not in found_set]
    if not extra and not missing:
        return None
    fix = "(altered; `kartludo projections rebuild` recomputes it from the log)"
    place = f"projection table {table}"
    if extra:
        row = ", ".join(repr(v) for v in extra[0])
        return Problem("", 0, 0, f"row ({row}) is not what the events give {fix}", place)
    row = ", ".join(repr(v) for v in missing[0])
    return Problem("", 0, 0, f"row ({row}) the events give is missing {fix}", place)
