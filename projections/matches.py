"""Matches and their results: the match list and what standings are computed from.

A match's result rows are (re)written whenever it stands between deals or has
finished, from the engine's ``standing``: provisional while it runs (a series
scores a match cut at its deadline from them), final once it has ended. An
overturned ruling reaches these rows only through its appended decision event.
"""

from __future__ import annotations

import sqlalchemy as sa

from kartludo.events.match import MatchClosed
from kartludo.projections.runner import MatchStep, Projection, dumps
from kartludo.projections.schema import matches, results
from kartludo.store import Recorded


class MatchesProjection(Projection):
    name = "matches"
    tables = (matches, results)
    about = "match list and per-player results (standings, series)"

    def apply(self, conn: sa.Connection, rec: Recorded, step: MatchStep | None) -> None:
        if step is None:
            return
        game, after = step.game, step.after
        if step.before is None:
            conn.execute(sa.insert(matches).values(
                match_id=step.match_id, game=game.name, status="in_progress", deal=0,
                players=dumps(step.created.players), series=step.created.series,
                created_at_us=rec.recorded_at_us, updated_at_us=rec.recorded_at_us, finished_position=None,
            ))
            return
        finished = step.closed or game.is_finished(after)
        deal = game.deal_number(after)
        if type(rec.event) is MatchClosed or finished != game.is_finished(step.before) \
                or deal != game.deal_number(step.before):
            conn.execute(sa.update(matches).where(matches.c.match_id == step.match_id).values(
                status="finished" if finished else "in_progress", deal=deal, updated_at_us=rec.recorded_at_us,
                finished_position=rec.position if finished else None,
            ))
        if not (finished or game.can_deal(after)):
            return
        standing = game.standing(after)
        if standing is None:
            return
        conn.execute(sa.delete(results).where(results.c.match_id == step.match_id))
        ranks = standing.ranks
        rows = []
        for seat, player in enumerate(step.created.players):
            rank = ranks[player]
            below = sum(1 for r in ranks.values() if r > rank)
            above = sum(1 for r in ranks.values() if r < rank)
            rows.append(dict(
                match_id=step.match_id, player=player, game=game.name, seat=seat, players=len(ranks),
                score=standing.scores[player], rank=rank, higher_is_better=standing.higher_is_better,
                match_points=None if standing.match_points is None else standing.match_points[player],
                fouls=standing.fouls.get(player, 0), placement_points=below - above, final=finished,
                series=step.created.series, position=rec.position, recorded_at_us=rec.recorded_at_us,
            ))
        conn.execute(sa.insert(results), rows)
