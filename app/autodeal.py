"""The match moves on: a match created with ``auto_deal`` starts its next deal by itself
when one ends, as a ``StartDeal`` recorded by the table (actor ``table``) with the deck
the match would get from ``match deal`` (its seeded shuffle, or the OS CSPRNG).

The service calls ``deal_if_due`` after every command it applies (and the CLI's ``act``
for a match created with ``--auto-deal``), so nobody waits for a TD between deals.
Nothing is dealt once the match is over, nor when a TD (or a racing command) has
already dealt: the deal checker refuses, and that is an answer, not an error.
"""

from __future__ import annotations

from kartludo.app.errors import AppError
from kartludo.app.matches import MatchService, Outcome
from kartludo.engine.base import IllegalCommand

#: who records an automatic deal
TABLE = "table"


def due(svc: MatchService, match_id: str) -> bool:
    """Whether ``match_id`` deals by itself and a deal may start now."""
    match = svc.load(match_id, refresh=False)
    if not match.created.auto_deal or match.closed:
        return False
    return match.game.can_deal(match.state) and not match.game.is_finished(match.state)


def deal_if_due(svc: MatchService, match_id: str) -> Outcome | None:
    """Start the next deal of an ``auto_deal`` match whose deal has ended; None when
    none is due (or another writer dealt first)."""
    if not due(svc, match_id):
        return None
    try:
        return svc.deal(match_id, actor=TABLE)
    except (IllegalCommand, AppError):  # dealt meanwhile, or closed by its series deadline
        return None
