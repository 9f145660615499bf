"""Read models built from the global order: matches and results (standings),
series, the audit trail of penalty rulings, and duplicate boards' results."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kartludo.projections.runner import Projection
    from kartludo.store.eventstore import EventStore


def all_projections() -> list[Projection]:
    from kartludo.projections.audit import AuditProjection
    from kartludo.projections.duplicate import DuplicateProjection
    from kartludo.projections.matches import MatchesProjection
    from kartludo.projections.series import SeriesProjection

    return [MatchesProjection(), SeriesProjection(), AuditProjection(), DuplicateProjection()]


def get_projection(name: str) -> Projection:
    for projection in all_projections():
        if projection.name == name:
            return projection
    names = ", ".join(p.name for p in all_projections())
    raise LookupError(f"no projection {name!r} (projections: {names})")


def refresh(store: EventStore) -> int:
    """Bring every projection up to date (read commands call this first)."""
    from kartludo.projections.runner import catch_up

    return catch_up(store, all_projections())
