"""Matches and their results: the match list and what standings are computed from.

A match's result rows are (re)written whenever it stands between deals or has
finished, from the engine's ``standing``: provisional while it runs (a series
scores a match cut at its deadline from them), final once it has ended. An
overturned ruling reaches these rows only through its appended decision event.

A duplicate board's match is listed (its ``series`` names the event, ``duplicate-ID``)
but has no result rows: boards are scored across tables, not in the league.

A batch writes each match's row and results once, as of its last event in the batch
(the rows hold absolute values, so the last write is the one that stands): the
standing is computed once per match and batch, not at every deal.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from kartludo.events.duplicate import BoardOf
from kartludo.events.streams import DUPLICATE_PREFIX
from kartludo.projections.runner import Item, MatchStep, Projection, dumps, insert_rows
from kartludo.projections.schema import matches, results
from kartludo.store import Recorded

_UPDATE = sa.update(matches).where(matches.c.match_id == sa.bindparam("b_match_id")).values(
    status=sa.bindparam("b_status"), deal=sa.bindparam("b_deal"), updated_at_us=sa.bindparam("b_updated_at_us"),
    finished_position=sa.bindparam("b_finished_position"))
_DELETE_RESULTS = sa.delete(results).where(results.c.match_id == sa.bindparam("b_match_id"))
#: a duplicate board's match: its row names the event (in ``series``), and it has no result rows
_BOARD = sa.update(matches).where(matches.c.match_id == sa.bindparam("b_match_id")).values(
    series=sa.bindparam("b_series"))
_BOARD_RESULTS = sa.delete(results).where(results.c.match_id.in_(
    sa.select(matches.c.match_id).where(matches.c.series.like(DUPLICATE_PREFIX + "%"))))


class MatchesProjection(Projection):
    name = "matches"
    tables = (matches, results)
    about = "match list and per-player results (standings, series)"

    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        created: dict[str, list[Any]] = {}  # rows of matches created in this batch
        changed: dict[str, dict[str, Any]] = {}  # new values of earlier matches' rows
        #: per match, its events in this batch after its creation, with whether it had finished
        seen: dict[str, list[tuple[Recorded, MatchStep, bool]]] = {}
        #: per match, (finished, deal) as of its previous event in this batch
        last: dict[str, tuple[bool, int]] = {}
        boards: list[dict[str, str]] = []  # duplicate boards linked in this batch
        for rec, step in items:
            if step is None:
                if isinstance(rec.event, BoardOf):
                    boards.append({"b_match_id": rec.stream_id.removeprefix("table-"),
                                   "b_series": DUPLICATE_PREFIX + rec.event.duplicate})
                continue
            mid, game, after = step.match_id, step.game, step.after
            if step.before is None:
                created[mid] = [mid, game.name, "in_progress", 0, dumps(step.created.players), step.created.series,
                                rec.recorded_at_us, rec.recorded_at_us, None]
                last[mid] = (step.closed or game.is_finished(after), game.deal_number(after))
                seen[mid] = []
                continue
            finished = step.closed or game.is_finished(after)
            deal = game.deal_number(after)
            before = last.get(mid)
            if before is None:
                before = (step.was_closed or game.is_finished(step.before), game.deal_number(step.before))
            if before != (finished, deal):
                row = created.get(mid)
                if row is not None:
                    row[2:4] = ["finished" if finished else "in_progress", deal]
                    row[7:9] = [rec.recorded_at_us, rec.position if finished else None]
                else:
                    changed[mid] = dict(b_match_id=mid, b_status="finished" if finished else "in_progress",
                                        b_deal=deal, b_updated_at_us=rec.recorded_at_us,
                                        b_finished_position=rec.position if finished else None)
            last[mid] = (finished, deal)
            mine = seen.get(mid)
            if mine is None:
                mine = seen[mid] = []
            mine.append((rec, step, finished))
        insert_rows(conn, matches, [tuple(row) for row in created.values()])
        if changed:
            conn.execute(_UPDATE, list(changed.values()))
        rows: list[tuple[Any, ...]] = []
        rewritten: list[dict[str, str]] = []
        for mid, events in seen.items():
            # the newest event after which the match stood between deals or had finished, with a
            # standing: walked back from the end, so ``can_deal`` is asked of a few states per batch
            for rec, step, finished in reversed(events):
                if not (finished or step.game.can_deal(step.after)):
                    continue
                standing = step.game.standing(step.after)
                if standing is not None:
                    rewritten.append({"b_match_id": mid})
                    rows.extend(_result_rows(rec, step, standing, finished))
                    break
        if rewritten:
            conn.execute(_DELETE_RESULTS, rewritten)
            insert_rows(conn, results, rows)
        if boards:
            conn.execute(_BOARD, boards)
        if boards or rewritten:
            # a duplicate board is scored against the other tables' boards (``duplicate standings``),
            # never as a match of the league: and there it would show a board before every table played it
            conn.execute(_BOARD_RESULTS)


def _result_rows(rec: Recorded, step: MatchStep, standing: Any, finished: bool) -> list[tuple[Any, ...]]:
    """The match's ``results`` rows, in the table's column order."""
    ranks = standing.ranks
    rows = []
    for seat, player in enumerate(step.created.players):
        rank = ranks[player]
        below = sum(1 for r in ranks.values() if r > rank)
        above = sum(1 for r in ranks.values() if r < rank)
        rows.append((
            step.match_id, player, step.game.name, seat, len(ranks), standing.scores[player], rank,
            standing.higher_is_better, None if standing.match_points is None else standing.match_points[player],
            standing.fouls.get(player, 0), below - above, finished, step.created.series, rec.position,
            rec.recorded_at_us,
        ))
    return rows
