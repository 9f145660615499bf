"""The match moves on: a match whose table deals by itself (``auto_deal``, set when the
match is created) starts its next deal when one ends, as a ``StartDeal`` recorded by
the table (actor ``table``) with the deck ``match deal`` would use (the match's seeded
shuffle, or the OS CSPRNG).

The setting lives in the match's ``table-MATCH`` stream (``TableSet``), written in the
same transaction as the match: the match stream itself, which the engines fold and the
hash chain commits to, stays as it was. The service calls ``deal_if_due`` after every
command it applies (and the CLI's ``act``), so nobody waits for a TD between deals.
Nothing is dealt once the match is over, nor when a TD (or a racing command) has
already dealt: the deal checker refuses, and that is an answer, not an error.
"""

from __future__ import annotations

from typing import Any

from kartludo.app.errors import AppError
from kartludo.app.matches.pipeline import MatchService, Outcome
from kartludo.engine.base import IllegalCommand
from kartludo.events.table import TableSet
from kartludo.store import EventStore

#: who records an automatic deal
TABLE = "table"


def table_stream(match_id: str) -> str:
    return f"table-{match_id}"


def setting(auto_deal: bool) -> Any:
    """A ``create_once(also=…)`` function recording the table's setting with the match."""
    def also(match_id: str, seats: list[str]) -> list[tuple[str, list[Any], int]]:
        return [(table_stream(match_id), [TableSet(auto_deal=auto_deal)], 0)]

    return also


def both(*alsos: Any) -> Any:
    """Several ``also`` functions as one (their appends in one transaction; appends to
    one stream, a new match's table settings (auto deal, clock, watchers), become one)."""
    def also(match_id: str, seats: list[str]) -> list[Any]:
        merged: dict[str, tuple[str, list[Any], int]] = {}
        for fn in alsos:
            if fn is None:
                continue
            for stream, events, version in fn(match_id, seats):
                if stream in merged:
                    merged[stream] = (stream, [*merged[stream][1], *events], merged[stream][2])
                else:
                    merged[stream] = (stream, list(events), version)
        return list(merged.values())

    return also


def auto_deal(store: EventStore, match_id: str) -> bool:
    """Whether ``match_id``'s table deals by itself (its latest ``TableSet``; no setting: no)."""
    settings = [r.event for r in store.read_stream(table_stream(match_id)) if isinstance(r.event, TableSet)]
    return bool(settings and settings[-1].auto_deal)


def due(svc: MatchService, match_id: str) -> bool:
    """Whether ``match_id`` deals by itself and a deal may start now."""
    match = svc.load(match_id, refresh=False)
    if match.closed or match.game.is_finished(match.state) or not match.game.can_deal(match.state):
        return False
    return auto_deal(svc.store, match_id)


def deal_if_due(svc: MatchService, match_id: str) -> Outcome | None:
    """Start the next deal of an ``auto_deal`` match whose deal has ended; None when
    none is due (or another writer dealt first)."""
    if not due(svc, match_id):
        return None
    try:
        return svc.deal(match_id, actor=TABLE)
    except (IllegalCommand, AppError):  # dealt meanwhile, or closed by its series deadline
        return None
