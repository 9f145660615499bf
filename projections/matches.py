"""Matches and their results: the match list and what standings are computed from.

A match's result rows are (re)written whenever it stands between deals or has
finished, from the engine's ``standing``: provisional while it runs (a series
scores a match cut at its deadline from them), final once it has ended. An
overturned ruling reaches these rows only through its appended decision event.

A batch writes each match's row and results once, as of its last event in the batch
(the rows hold absolute values, so the last write is the one that stands): the
standing is computed once per match and batch, not at every deal.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from kartludo.projections.runner import Item, MatchStep, Projection, dumps
from kartludo.projections.schema import matches, results
from kartludo.store import Recorded

_UPDATE = sa.update(matches).where(matches.c.match_id == sa.bindparam("b_match_id")).values(
    status=sa.bindparam("b_status"), deal=sa.bindparam("b_deal"), updated_at_us=sa.bindparam("b_updated_at_us"),
    finished_position=sa.bindparam("b_finished_position"))
_DELETE_RESULTS = sa.delete(results).where(results.c.match_id == sa.bindparam("b_match_id"))


class MatchesProjection(Projection):
    name = "matches"
    tables = (matches, results)
    about = "match list and per-player results (standings, series)"

    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        created: dict[str, dict[str, Any]] = {}  # rows of matches created in this batch
        changed: dict[str, dict[str, Any]] = {}  # new values of earlier matches' rows
        #: per match, the events after which it stood between deals or had finished, newest last
        standing_at: dict[str, list[tuple[Recorded, MatchStep, bool]]] = {}
        for rec, step in items:
            if step is None:
                continue
            mid, game, after = step.match_id, step.game, step.after
            if step.before is None:
                created[mid] = dict(
                    match_id=mid, game=game.name, status="in_progress", deal=0,
                    players=dumps(step.created.players), series=step.created.series,
                    created_at_us=rec.recorded_at_us, updated_at_us=rec.recorded_at_us, finished_position=None,
                )
                continue
            finished = step.closed or game.is_finished(after)
            deal = game.deal_number(after)
            if finished != (step.was_closed or game.is_finished(step.before)) \
                    or deal != game.deal_number(step.before):
                values = dict(status="finished" if finished else "in_progress", deal=deal,
                              updated_at_us=rec.recorded_at_us, finished_position=rec.position if finished else None)
                row = created.get(mid)
                if row is not None:
                    row.update(values)
                else:
                    changed[mid] = values
            if finished or game.can_deal(after):
                standing_at.setdefault(mid, []).append((rec, step, finished))
        if created:
            conn.execute(sa.insert(matches), list(created.values()))
        if changed:
            conn.execute(_UPDATE, [{"b_match_id": mid, **{f"b_{k}": v for k, v in values.items()}}
                                   for mid, values in changed.items()])
        rows: list[dict[str, Any]] = []
        rewritten: list[str] = []
        for mid, candidates in standing_at.items():
            for rec, step, finished in reversed(candidates):  # the newest one with a standing
                standing = step.game.standing(step.after)
                if standing is not None:
                    rewritten.append(mid)
                    rows.extend(_result_rows(rec, step, standing, finished))
                    break
        if rewritten:
            conn.execute(_DELETE_RESULTS, [{"b_match_id": mid} for mid in rewritten])
            conn.execute(sa.insert(results), rows)


def _result_rows(rec: Recorded, step: MatchStep, standing: Any, finished: bool) -> list[dict[str, Any]]:
    ranks = standing.ranks
    rows = []
    for seat, player in enumerate(step.created.players):
        rank = ranks[player]
        below = sum(1 for r in ranks.values() if r > rank)
        above = sum(1 for r in ranks.values() if r < rank)
        rows.append(dict(
            match_id=step.match_id, player=player, game=step.game.name, seat=seat, players=len(ranks),
            score=standing.scores[player], rank=rank, higher_is_better=standing.higher_is_better,
            match_points=None if standing.match_points is None else standing.match_points[player],
            fouls=standing.fouls.get(player, 0), placement_points=below - above, final=finished,
            series=step.created.series, position=rec.position, recorded_at_us=rec.recorded_at_us,
        ))
    return rows
