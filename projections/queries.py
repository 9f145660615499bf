"""The read models' queries: the match list, league and series standings, and the
audit trail of rulings. Each brings every projection up to date first, so a reader
sees its own writes. The projections own their tables, so their queries live here;
``app/`` shapes the answers (``Standing``, ``SeriesReport``, ``AuditRecord``).

``refreshed=True``: the caller has brought the projections up to date on the primary
already, and ``store`` may be a read replica that has replayed past that catch-up
(``cli.context.Env.read_models``, ``service.services.Services.read_models``); the
query then only reads, so it runs on a hot standby.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa

from kartludo.app.audit import AuditRecord, decisions_of, foul_series_mp, makes_decisions
from kartludo.app.errors import AmbiguousMatch, UnknownMatch
from kartludo.app.matches import MatchService
from kartludo.app.series import SeriesReport, SeriesRow, fmt_time, load_series
from kartludo.app.standings import SORTS, Standing, rank_players
from kartludo.engine.registry import get_game
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.projections import refresh
from kartludo.projections.audit import voided_by
from kartludo.projections.schema import matches, results, ruling_history, rulings
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


# --- standings -----------------------------------------------------------------------
def standings(store: EventStore, game: str | None = None, sort: str = "rating", *,
              refreshed: bool = False) -> list[Standing]:
    """League standings from the finished matches' results (``app.standings`` ranks them)."""
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r} (sorts: {', '.join(SORTS)})")
    _refresh(store, refreshed)
    query = sa.select(results).where(results.c.final.is_(True))
    if game:
        query = query.where(results.c.game == get_game(game).name)
    with store.engine.connect() as conn:
        rows = conn.execute(query.order_by(results.c.position, results.c.seat)).all()
    return rank_players(list(rows), single_game=game is not None, sort=sort)


def series_report(store: EventStore, series_id: str, *, refreshed: bool = False) -> SeriesReport:
    """Series standings from the projections.

    ``ended`` compares the deadline with the newest recorded event time in the
    database, so a replayed or imported series reads the same."""
    _refresh(store, refreshed)
    series = load_series(store, series_id)
    foul_mp = get_game(series.created.game).foul_series_mp
    rows = {p: SeriesRow(p) for p in series.created.players}
    listed = []
    with store.engine.connect() as conn:
        status = dict(conn.execute(sa.select(matches.c.match_id, matches.c.status)
                                   .where(matches.c.series == series_id)).all())
        result_rows = conn.execute(sa.select(results).where(results.c.series == series_id)
                                   .order_by(results.c.position)).all()
        newest = conn.execute(sa.text("SELECT max(recorded_at_us) FROM events")).scalar() or 0
    for r in result_rows:
        row = rows.setdefault(r.player, SeriesRow(r.player))
        row.matches += 1
        row.finished += r.final
        row.match_points += r.match_points if r.match_points is not None else r.placement_points
        row.fouls += r.fouls
    for row in rows.values():
        row.foul_mp = -foul_mp * row.fouls
        row.total = row.match_points + row.foul_mp
    for i, mid in enumerate(series.match_ids):
        listed.append({"match": mid, "seats": series.seat_order(i), "status": status.get(mid, "in_progress")})
    return SeriesReport(
        series=series_id, game=series.created.game, players=series.created.players,
        minutes=series.created.minutes, starts_at=fmt_time(series.created.starts_at_us),
        deadline=fmt_time(series.deadline_us), ended=newest >= series.deadline_us, matches=listed,
        standings=sorted(rows.values(), key=lambda r: (-r.total, r.player)),
    )


# --- the audit trail -----------------------------------------------------------------
def _records(store: EventStore, where: Any = None, *, refreshed: bool = False) -> list[AuditRecord]:
    _refresh(store, refreshed)
    query = sa.select(rulings).order_by(rulings.c.position)
    if where is not None:
        query = query.where(where)
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


def list_rulings(store: EventStore, match: str | None = None, player: str | None = None, *,
                 refreshed: bool = False) -> list[AuditRecord]:
    """The penalty rulings (of ``match``, against ``player``), in the order they were made."""
    conditions = []
    if match:
        conditions.append(rulings.c.match_id == MatchService(store).resolve(match))
    if player:
        conditions.append(rulings.c.player == player)
    return _records(store, sa.and_(*conditions) if conditions else None, refreshed=refreshed)


def resolve_ruling(store: EventStore, text: str, *, refreshed: bool = False) -> AuditRecord:
    """A ruling by its audit id (``MATCH/RULING``), where each part may be a unique
    prefix (``3f9c/uxinjo-d2``), or by a unique prefix of the whole id."""
    text = text.removeprefix(MATCH_PREFIX)
    if len(text) > 200:
        raise UnknownMatch(f"no ruling {text[:40]!r}… (an audit id is MATCH/RULING, far shorter)")
    match_part, sep, ruling_part = text.partition("/")
    if sep and match_part:
        try:
            match_id = MatchService(store).resolve(match_part)
        except UnknownMatch:
            raise UnknownMatch(f"no ruling {text!r}: no match {match_part!r}") from None
        text = f"{match_id}/{ruling_part}"
    found = _records(store, rulings.c.audit_id.startswith(text, autoescape=True), refreshed=refreshed) if text else []
    exact = [r for r in found if r.id == text]
    if exact:
        return exact[0]
    if not found:
        raise UnknownMatch(f"no ruling {text!r} (see `kartludo audit list`)")
    if len(found) > 1:
        raise AmbiguousMatch(f"ruling id {text!r} is ambiguous: {', '.join(r.id for r in found[:5])}")
    return found[0]


def list_decisions(store: EventStore, match: str | None = None, player: str | None = None, *,
                   refreshed: bool = False) -> list[AuditRecord]:
    """Decisions without a penalty, read from the match streams of the games that make
    them (the rulings projection holds penalty rulings only)."""
    if match:
        ids = [MatchService(store).resolve(match)]
    else:
        ids = [m["match"] for m in list_matches(store, refreshed=refreshed) if makes_decisions(m["game"])
               and (player is None or player in m["players"])]
    out: list[AuditRecord] = []
    for match_id in ids:
        out.extend(r for r in decisions_of(match_id, store.read_stream(match_stream(match_id)))
                   if player is None or r.player == player)
    return out


def list_entries(store: EventStore, match: str | None = None, player: str | None = None, *,
                 refreshed: bool = False) -> list[AuditRecord]:
    """Penalty rulings and decisions without a penalty, in the order they were made."""
    entries = (list_rulings(store, match, player, refreshed=refreshed)
               + list_decisions(store, match, player, refreshed=refreshed))
    return sorted(entries, key=lambda r: r.position)  # stable: a settlement's decisions keep their order


def resolve_entry(store: EventStore, text: str, *, refreshed: bool = False) -> AuditRecord:
    """A penalty ruling (as ``resolve_ruling``), else a decision ``MATCH/KEY`` where
    each part may be a unique prefix."""
    try:
        return resolve_ruling(store, text, refreshed=refreshed)
    except UnknownMatch as not_a_ruling:
        match_part, sep, key = text.removeprefix(MATCH_PREFIX).partition("/")
        if not sep or not match_part:
            raise
        try:
            match_id = MatchService(store).resolve(match_part)
        except UnknownMatch:
            raise not_a_ruling from None
        found = [r for r in decisions_of(match_id, store.read_stream(match_stream(match_id)))
                 if r.ruling_id.startswith(key)]
        exact = [r for r in found if r.ruling_id == key]
        if exact:
            return exact[0]
        if len(found) > 1:
            raise AmbiguousMatch(f"ruling id {text!r} is ambiguous: {', '.join(r.id for r in found[:5])}") from None
        if not found:
            raise not_a_ruling from None
        return found[0]
