"""The audit trail of penalty rulings, with their appeals and TD decisions.

Any game's ruling is a ``Ruling`` event; appeals and decisions are the common
``RulingAppealed`` / ``RulingDecided`` events. What a derived event did to standing
rulings (lifted them: the penalty stopped applying; voided what they would have won)
the game says (``Game.penalty_changes``).

What an event voided is written once, as that event's rows in ``proj_ruling_voids``
(one row per voided transfer), never merged into each ruling's row; a ruling's row says
from and until when its penalty stood. The transfers a ruling voided are the void rows
to its player in that span (``voided_by``): a settlement costs in proportion to its own
size, however many rulings stand, and so does showing one ruling.

An audit record (``AuditRecord``) is a row of this projection, or a decision without a
penalty that a settlement records (``decisions_of``, read from the match's stream):
the application lists and finds both (``app.audit.trail``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
import sqlalchemy as sa

from kartludo.engine.base import BadCommand, Game
from kartludo.engine.registry import get_game
from kartludo.events.match import FlagFall, MatchCreated, Ruling, RulingAppealed, RulingDecided
from kartludo.projections.runner import Item, MatchStep, Projection, dumps, insert_rows
from kartludo.projections.schema import ruling_history, ruling_voids, rulings
from kartludo.store import Recorded
from kartludo.store.transfer import format_us

#: audit ids per ``IN (...)`` list (well under every backend's parameter limit)
_CHUNK = 500

_SET_STATUS = sa.update(rulings).where(rulings.c.audit_id == sa.bindparam("b_audit_id")).values(
    status=sa.bindparam("b_status"))
_SET_LIFTED = sa.update(rulings).where(rulings.c.audit_id == sa.bindparam("b_audit_id")).values(
    lifted_position=sa.bindparam("b_lifted_position"))
_SET_UNTIL = sa.update(rulings).where(rulings.c.audit_id == sa.bindparam("b_audit_id")).values(
    standing_until=sa.bindparam("b_standing_until"))


def audit_id(match_id: str, ruling_id: str) -> str:
    return f"{match_id}/{ruling_id}"


class AuditRecord(msgspec.Struct):
    id: str
    match: str
    ruling_id: str
    game: str
    deal: int
    position: int
    version: int
    player: str
    seat: int
    type: str
    rule: str
    facts: dict[str, Any]
    effect: dict[str, Any]
    status: str
    series: str | None
    series_effect: str | None
    lifted_position: int | None
    voided: list[dict[str, Any]]
    recorded_at: str
    history: list[dict[str, Any]] = []


def foul_series_mp(game_name: str) -> int:
    """What a ruling costs its player in a series, by the game's rules (0 for a game
    this build does not have)."""
    try:
        return get_game(game_name).foul_series_mp
    except BadCommand:
        return 0


#: the status of an audit record that is a decision without a penalty (never appealed)
DECISION = "decision"


def decisions_of(match_id: str, records: list[Recorded]) -> list[AuditRecord]:
    """The decisions without a penalty that a match's settlements record (an invalid
    claim beside a valid one, the levu voided by all three), as audit records."""
    created = records[0].event
    if not isinstance(created, MatchCreated):
        return []
    game = get_game(created.game)
    out = []
    for rec in records[1:]:
        if not type(rec.event).derived:
            continue
        for d in game.decisions(rec.event, created.players):
            out.append(AuditRecord(
                id=f"{match_id}/{d.key}", match=match_id, ruling_id=d.key, game=game.name,
                deal=getattr(rec.event, "deal", 0), position=rec.position, version=rec.version,
                player=created.players[d.seat], seat=d.seat, type=rec.type, rule=d.rule, facts=dict(d.facts),
                effect=dict(d.effect), status=DECISION, series=created.series, series_effect=None,
                lifted_position=None, voided=[], recorded_at=format_us(rec.recorded_at_us),
            ))
    return out


def makes_decisions(game_name: str) -> bool:
    """Whether ``game_name``'s settlements record decisions without a penalty."""
    try:
        return type(get_game(game_name)).decisions is not Game.decisions
    except Exception:  # noqa: BLE001 - a game this build does not have makes none it can show
        return False


class AuditProjection(Projection):
    name = "audit"
    tables = (rulings, ruling_history, ruling_voids)
    about = "penalty rulings, appeals and TD decisions"

    def apply_batch(self, conn: sa.Connection, items: list[Item]) -> None:
        ruled: dict[str, list[Any]] = {}  # rows of rulings made in this batch
        status: dict[str, str] = {}  # new status of earlier rulings
        lifted: dict[str, int] = {}  # lifted position of earlier rulings
        until: dict[str, int] = {}  # where earlier rulings stopped standing
        history: list[tuple[str, str, str, str, Recorded]] = []
        voids: list[tuple[Any, ...]] = []
        kinds = _KINDS
        for rec, step in items:
            if step is None:
                continue
            event: Any = rec.event  # narrowed by its kind, not by isinstance at every event
            kind = kinds.get(type(event))
            if kind is None:
                kind = kinds[type(event)] = _kind(type(event))
            if kind is _SKIP:
                continue
            changes = step.game.penalty_changes(event, step.before, step.after)
            if kind is _RULING:
                aid = audit_id(step.match_id, event.ruling_id)
                ruled[aid] = [
                    aid, step.match_id, event.ruling_id, step.game.name, event.deal, rec.position, rec.version,
                    event.seat, step.created.players[event.seat], rec.type, event.rule,
                    dumps(msgspec.to_builtins(event.facts)), dumps(msgspec.to_builtins(event.effect)),
                    step.created.series, "standing", None, rec.recorded_at_us,
                    changes is not None and event.ruling_id in changes.started, None,
                ]
                # the engine's rulings, and the clock's (a flag fall: recorded by the server)
                history.append((aid, "ruled", "clock" if isinstance(event, FlagFall) else "engine", event.rule, rec))
            elif kind is _DISPUTE:
                aid = audit_id(step.match_id, event.ruling_id)
                if isinstance(event, RulingAppealed):
                    done = "appealed"
                else:
                    done = {"uphold": "upheld", "overturn": "overturned"}.get(event.decision, "adjusted")
                if aid in ruled:
                    ruled[aid][_STATUS] = done
                else:
                    status[aid] = done
                history.append((aid, done, event.by, event.reason, rec))
            if changes is None:
                continue
            voids.extend(_void_rows(step, rec, changes.transfers))
            for rid in changes.lifted:
                aid = audit_id(step.match_id, rid)
                if aid in ruled:
                    ruled[aid][_LIFTED] = rec.position
                else:
                    lifted[aid] = rec.position
                history.append((aid, "lifted", "engine", changes.reason, rec))
            for rid in (*changes.lifted, *changes.ended):
                aid = audit_id(step.match_id, rid)
                if aid in ruled:
                    ruled[aid][_UNTIL] = rec.position
                else:
                    until[aid] = rec.position
        insert_rows(conn, rulings, [tuple(row) for row in ruled.values()])
        if status:
            conn.execute(_SET_STATUS, [{"b_audit_id": a, "b_status": s} for a, s in status.items()])
        if lifted:
            conn.execute(_SET_LIFTED, [{"b_audit_id": a, "b_lifted_position": p} for a, p in lifted.items()])
        if until:
            conn.execute(_SET_UNTIL, [{"b_audit_id": a, "b_standing_until": p} for a, p in until.items()])
        insert_rows(conn, ruling_voids, voids)
        if history:
            insert_rows(conn, ruling_history, _history_rows(conn, history, set(ruled)))


#: what the audit trail does with an event type: a ruling, an appeal or decision on one,
#: a derived event that may lift or void penalties (the game says), or nothing
_RULING, _DISPUTE, _DERIVED, _SKIP = "ruling", "dispute", "derived", "skip"
_KINDS: dict[type, str] = {}
#: indexes of ``status``, ``lifted_position`` and ``standing_until`` in a ``rulings`` row
_STATUS, _LIFTED, _UNTIL = 14, 15, 18


def _kind(cls: type) -> str:
    if issubclass(cls, Ruling):
        return _RULING
    if issubclass(cls, (RulingAppealed, RulingDecided)):
        return _DISPUTE
    return _DERIVED if getattr(cls, "derived", False) else _SKIP


def _void_rows(step: MatchStep, rec: Recorded, transfers: list[tuple[int, int, int, str]]
               ) -> list[tuple[Any, ...]]:
    """One row per voided transfer (the table's column order)."""
    players = step.created.players
    mid, position = step.match_id, rec.position
    return [(mid, position, seq, players[payer], players[payee], amount, reason)
            for seq, (payer, payee, amount, reason) in enumerate(transfers, 1)]


def _history_rows(conn: sa.Connection, history: list[tuple[str, str, str, str, Recorded]], new: set[str]
                  ) -> list[tuple[Any, ...]]:
    """Each entry numbered after its ruling's earlier ones (those of rulings made
    before this batch are counted once, in a few queries)."""
    earlier = sorted({aid for aid, *_ in history} - new)
    seqs: dict[str, int] = {}
    for i in range(0, len(earlier), _CHUNK):
        chunk = earlier[i:i + _CHUNK]
        seqs.update(conn.execute(
            sa.select(ruling_history.c.audit_id, sa.func.max(ruling_history.c.seq))
            .where(ruling_history.c.audit_id.in_(chunk)).group_by(ruling_history.c.audit_id)).all())
    rows = []
    for aid, kind, by, reason, rec in history:
        seq = seqs[aid] = (seqs.get(aid) or 0) + 1
        rows.append((aid, seq, kind, by, reason, rec.position, rec.recorded_at_us))
    return rows


def voided_by(conn: sa.Connection, rows: Iterable[Any]) -> dict[str, list[dict[str, Any]]]:
    """What later events voided for each ruling row whose penalty stood (``audit_id``,
    ``match_id``, ``player``, ``position``, ``stood``, ``standing_until``), in event
    order: ``{"position", "payer", "payee", "amount", "reason"}`` each: the void rows to
    its player after it and up to the event that lifted or ended it (that event's own
    settlement was made while it stood). Only the span of each match's rulings is read
    (one query per ``_CHUNK`` matches): showing one ruling costs what it voided, not
    every void of the match."""
    wanted: dict[str, dict[str, list[Any]]] = {}  # match -> player -> its rulings that stood
    for r in rows:
        if r.stood:
            wanted.setdefault(r.match_id, {}).setdefault(r.player, []).append(r)
    out: dict[str, list[dict[str, Any]]] = {}
    matches = sorted(wanted)
    for i in range(0, len(matches), _CHUNK):
        spans = []
        for match_id in matches[i:i + _CHUNK]:
            mine = [r for player in wanted[match_id].values() for r in player]
            span = [ruling_voids.c.match_id == match_id, ruling_voids.c.position > min(r.position for r in mine),
                    ruling_voids.c.payee.in_(sorted(wanted[match_id]))]
            ends = [r.standing_until for r in mine]
            if None not in ends:
                span.append(ruling_voids.c.position <= max(ends))
            spans.append(sa.and_(*span))
        query = sa.select(ruling_voids).where(sa.or_(*spans)).order_by(
            ruling_voids.c.match_id, ruling_voids.c.position, ruling_voids.c.seq)
        for v in conn.execute(query):
            item = {"position": v.position, "payer": v.payer, "payee": v.payee, "amount": v.amount,
                    "reason": v.reason}
            for r in wanted[v.match_id][v.payee]:
                if r.position < v.position and (r.standing_until is None or v.position <= r.standing_until):
                    out.setdefault(r.audit_id, []).append(dict(item))
    return out
