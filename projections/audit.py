"""The audit trail of penalty rulings, with their appeals and TD decisions.

Any game's ruling is a ``Ruling`` event; appeals and decisions are the common
``RulingAppealed`` / ``RulingDecided`` events. What a derived event did to standing
rulings (lifted them: the penalty stopped applying; voided what they would have won)
the game says (``Game.penalty_changes``).
"""

from __future__ import annotations

import msgspec
import sqlalchemy as sa

from kartludo.engine.base import PenaltyChanges
from kartludo.events.match import Ruling, RulingAppealed, RulingDecided
from kartludo.projections.runner import MatchStep, Projection, dumps
from kartludo.projections.schema import ruling_history, rulings
from kartludo.store import Recorded


def audit_id(match_id: str, ruling_id: str) -> str:
    return f"{match_id}/{ruling_id}"


class AuditProjection(Projection):
    name = "audit"
    tables = (rulings, ruling_history)
    about = "penalty rulings, appeals and TD decisions"

    def apply(self, conn: sa.Connection, rec: Recorded, step: MatchStep | None) -> None:
        if step is None:
            return
        event = rec.event
        if isinstance(event, Ruling):
            aid = audit_id(step.match_id, event.ruling_id)
            conn.execute(sa.insert(rulings).values(
                audit_id=aid, match_id=step.match_id, ruling_id=event.ruling_id, game=step.game.name,
                deal=event.deal, position=rec.position, version=rec.version, seat=event.seat,
                player=step.created.players[event.seat], type=rec.type, rule=event.rule,
                facts=dumps(msgspec.to_builtins(event.facts)), effect=dumps(msgspec.to_builtins(event.effect)),
                series=step.created.series, status="standing", lifted_position=None, voided="[]",
                recorded_at_us=rec.recorded_at_us,
            ))
            self._history(conn, aid, "ruled", "engine", event.rule, rec)
        elif isinstance(event, (RulingAppealed, RulingDecided)):
            aid = audit_id(step.match_id, event.ruling_id)
            if isinstance(event, RulingAppealed):
                kind = "appealed"
            else:
                kind = {"uphold": "upheld", "overturn": "overturned"}.get(event.decision, "adjusted")
            conn.execute(sa.update(rulings).where(rulings.c.audit_id == aid).values(status=kind))
            self._history(conn, aid, kind, event.by, event.reason, rec)
        elif type(event).derived:
            changes = step.game.penalty_changes(event)
            if changes is None:
                return
            self._voided(conn, step, rec, changes)
            for rid in changes.lifted:
                aid = audit_id(step.match_id, rid)
                conn.execute(sa.update(rulings).where(rulings.c.audit_id == aid)
                             .values(lifted_position=rec.position))
                self._history(conn, aid, "lifted", "engine", changes.reason, rec)

    @staticmethod
    def _voided(conn: sa.Connection, step: MatchStep, rec: Recorded, changes: PenaltyChanges) -> None:
        players = step.created.players
        by_ruling: dict[str, list[dict]] = {
            rid: [{"position": rec.position, "payer": players[payer], "payee": players[payee], "amount": amount,
                   "reason": reason} for payer, payee, amount, reason in voids]
            for rid, voids in changes.voided.items()
        }
        for rid, items in by_ruling.items():
            aid = audit_id(step.match_id, rid)
            current = conn.execute(sa.select(rulings.c.voided).where(rulings.c.audit_id == aid)).scalar()
            if current is not None:
                merged = msgspec.json.decode(current) + items
                conn.execute(sa.update(rulings).where(rulings.c.audit_id == aid).values(voided=dumps(merged)))

    @staticmethod
    def _history(conn: sa.Connection, aid: str, kind: str, by: str, reason: str, rec: Recorded) -> None:
        seq = conn.execute(
            sa.select(sa.func.count()).select_from(ruling_history).where(ruling_history.c.audit_id == aid)
        ).scalar()
        conn.execute(sa.insert(ruling_history).values(
            audit_id=aid, seq=int(seq or 0) + 1, kind=kind, by=by, reason=reason, position=rec.position,
            recorded_at_us=rec.recorded_at_us,
        ))
