"""Duplicate boards and their results: what a traveller and an event's standings are
computed from (``app.duplicate.scores``), without folding every board's match.

A board's match is linked to its event by the ``BoardOf`` in its table stream; once the
match has ended (its one deal over and the match closed), each seat's row holds the
game's own total of its player then. A later event of the match (a ruling decided, an
adjusted score) rewrites the rows as the match then stands, so a decision on a board
reaches its traveller; a match that stands open again has no rows.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from kartludo.engine.base import PUBLIC
from kartludo.events.duplicate import BoardOf
from kartludo.projections.runner import Item, MatchStep, Projection, insert_rows
from kartludo.projections.schema import board_results, duplicate_boards
from kartludo.store import Recorded

_DELETE = sa.delete(board_results).where(board_results.c.match_id == sa.bindparam("b_match_id"))


class DuplicateProjection(Projection):
    name = "duplicate"
    tables = (duplicate_boards, board_results)
    about = "duplicate boards and each played board's result per seat"

    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        linked: dict[str, tuple[str, int, int]] = {}  # match -> (event, board, table), linked in this batch
        #: per match, its last event in this batch and the match after it
        last: dict[str, tuple[Recorded, MatchStep]] = {}
        for rec, step in items:
            if step is None:
                if isinstance(rec.event, BoardOf):
                    e = rec.event
                    linked[rec.stream_id.removeprefix("table-")] = (e.duplicate, e.board, e.table)
                continue
            if step.before is not None:
                last[step.match_id] = (rec, step)
        if linked:
            insert_rows(conn, duplicate_boards, [(m, d, b, t) for m, (d, b, t) in linked.items()])
        unknown = [m for m in last if m not in linked]
        if unknown:
            query = sa.select(duplicate_boards).where(duplicate_boards.c.match_id.in_(unknown))
            linked.update({r.match_id: (r.duplicate, r.board, r.table_no) for r in conn.execute(query)})
        boards = [m for m in last if m in linked]
        if not boards:
            return
        conn.execute(_DELETE, [{"b_match_id": m} for m in boards])
        rows: list[tuple[Any, ...]] = []
        for mid in boards:
            rec, step = last[mid]
            if not (step.closed or step.game.is_finished(step.after)):
                continue
            totals = step.game.view(step.after, PUBLIC)["totals"]
            duplicate, board, table = linked[mid]
            rows += [(mid, seat, duplicate, board, table, player, int(totals[player]), rec.position)
                     for seat, player in enumerate(step.created.players)]
        insert_rows(conn, board_results, rows)
