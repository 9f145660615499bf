"""The read models' queries: the match list, the results behind league and series
standings, and the audit trail's rulings. Each brings every projection up to date
first, so a reader sees its own writes. The projections own their tables, so their
queries live here and answer in rows or records; ``app/`` makes the answers users get
of them (``app.league``: standings and series reports; ``app.audit.trail``: rulings
found by any unique prefix, with the decisions beside them).

``refreshed=True``: the caller has brought the projections up to date on the primary
already, and ``store`` may be a read replica that has replayed past that catch-up
(``cli.context.Env.read_models``, ``service.services.Services.read_models``); the
query then only reads, so it runs on a hot standby.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa

from kartludo.engine.registry import get_game
from kartludo.projections import refresh
from kartludo.projections.audit import AuditRecord, foul_series_mp, voided_by
from kartludo.projections.schema import board_results, matches, results, ruling_history, rulings
from kartludo.store import EventStore
from kartludo.store.transfer import format_us


def _refresh(store: EventStore, refreshed: bool) -> None:
    if not refreshed:
        refresh(store)


# --- matches -------------------------------------------------------------------------
def list_matches(store: EventStore, game: str | None = None, *, refreshed: bool = False) -> list[dict[str, Any]]:
    """The match list from the ``matches`` projection."""
    _refresh(store, refreshed)
    query = sa.select(matches).order_by(matches.c.created_at_us, matches.c.match_id)
    if game:
        query = query.where(matches.c.game == get_game(game).name)
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    return [
        {"match": r.match_id, "game": r.game, "status": r.status, "deal": r.deal,
         "players": msgspec.json.decode(r.players), "series": r.series,
         "created_at": format_us(r.created_at_us)}
        for r in rows
    ]


# --- results -------------------------------------------------------------------------
def final_results(store: EventStore, game: str | None = None, *, refreshed: bool = False) -> list[Any]:
    """The finished matches' result rows (one per player and match, in the order the
    matches finished), of ``game`` or of every game: what league standings rank."""
    _refresh(store, refreshed)
    query = sa.select(results).where(results.c.final.is_(True))
    if game:
        query = query.where(results.c.game == get_game(game).name)
    with store.engine.connect() as conn:
        return list(conn.execute(query.order_by(results.c.position, results.c.seat)).all())


def series_results(store: EventStore, series_id: str, *, refreshed: bool = False) -> tuple[dict[str, str], list[Any]]:
    """A series' matches' statuses (match id -> status) and their result rows, in order."""
    _refresh(store, refreshed)
    with store.engine.connect() as conn:
        status = dict(conn.execute(sa.select(matches.c.match_id, matches.c.status)
                                   .where(matches.c.series == series_id)).all())
        rows = conn.execute(sa.select(results).where(results.c.series == series_id)
                            .order_by(results.c.position)).all()
    return status, list(rows)


# --- duplicate boards ----------------------------------------------------------------
def board_rows(store: EventStore, duplicate_id: str, board: int | None = None, *,
               refreshed: bool = False) -> list[Any]:
    """The played boards' results of a duplicate event (of ``board`` only, if given): one
    row per table and seat, by board, table and seat."""
    _refresh(store, refreshed)
    query = sa.select(board_results).where(board_results.c.duplicate == duplicate_id)
    if board is not None:
        query = query.where(board_results.c.board == board)
    with store.engine.connect() as conn:
        return list(conn.execute(query.order_by(board_results.c.board, board_results.c.table_no,
                                                board_results.c.seat)).all())


# --- the audit trail -----------------------------------------------------------------
def rulings_where(store: EventStore, *, match_id: str | None = None, player: str | None = None,
                  audit_prefix: str | None = None, refreshed: bool = False) -> list[AuditRecord]:
    """The penalty rulings (of the match ``match_id``, against ``player``, whose audit id
    starts with ``audit_prefix``), in the order they were made, each with its history
    and what it voided."""
    _refresh(store, refreshed)
    query = sa.select(rulings).order_by(rulings.c.position)
    if match_id is not None:
        query = query.where(rulings.c.match_id == match_id)
    if player is not None:
        query = query.where(rulings.c.player == player)
    if audit_prefix is not None:
        query = query.where(rulings.c.audit_id.startswith(audit_prefix, autoescape=True))
    decode = msgspec.json.decode
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
        history: dict[str, list[dict[str, Any]]] = {}
        voided = voided_by(conn, rows)
        if rows:
            for h in conn.execute(sa.select(ruling_history).where(
                    ruling_history.c.audit_id.in_([r.audit_id for r in rows])).order_by(ruling_history.c.seq)):
                history.setdefault(h.audit_id, []).append(
                    {"kind": h.kind, "by": h.by, "reason": h.reason, "position": h.position,
                     "at": format_us(h.recorded_at_us)})
    out = []
    for r in rows:
        series_effect = None
        foul_mp = foul_series_mp(r.game) if r.series else 0
        if foul_mp:
            series_effect = f"-{foul_mp} MP in series {r.series}" + (" (lifted by overturn)"
                                                                      if r.status == "overturned" else "")
        out.append(AuditRecord(
            id=r.audit_id, match=r.match_id, ruling_id=r.ruling_id, game=r.game, deal=r.deal, position=r.position,
            version=r.version, player=r.player, seat=r.seat, type=r.type, rule=r.rule, facts=decode(r.facts),
            effect=decode(r.effect), status=r.status, series=r.series, series_effect=series_effect,
            lifted_position=r.lifted_position, voided=voided.get(r.audit_id, []),
            recorded_at=format_us(r.recorded_at_us), history=history.get(r.audit_id, []),
        ))
    return out
