"""The audit trail as users ask for it: penalty rulings (from the rulings projection)
and decisions without a penalty (read from the settlements of the games that make
them), listed together in the order they were made, and found by any unique prefix of
their id (``MATCH/RULING``, where each part may be a prefix)."""

from __future__ import annotations

from kartludo.app.errors import AmbiguousMatch, UnknownMatch
from kartludo.app.matches.pipeline import MatchService
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.projections.audit import AuditRecord, decisions_of, makes_decisions
from kartludo.projections.queries import list_matches, rulings_where
from kartludo.store import EventStore


def list_rulings(store: EventStore, match: str | None = None, player: str | None = None, *,
                 refreshed: bool = False) -> list[AuditRecord]:
    """The penalty rulings (of ``match``, any unique prefix, against ``player``), in the
    order they were made."""
    match_id = MatchService(store).resolve(match) if match else None
    return rulings_where(store, match_id=match_id, player=player or None, refreshed=refreshed)


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
    found = rulings_where(store, audit_prefix=text, refreshed=refreshed) if text else []
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


def list_audit(store: EventStore, *, match: str | None = None, player: str | None = None, game: str | None = None,
               status: str | None = None, decisions: bool = True, refreshed: bool = False) -> list[AuditRecord]:
    """The audit trail as a TD filters it (``audit list``, ``GET /audit``): of ``match``
    (any unique prefix), against ``player``, in matches of ``game`` (any name the
    registry knows), in ``status``; with ``decisions``, the decisions without a penalty
    too (``list_entries``), else the penalty rulings only."""
    from kartludo.engine.registry import get_game

    name = get_game(game).name if game else None
    found = (list_entries if decisions else list_rulings)(store, match, player, refreshed=refreshed)
    return [r for r in found if (name is None or r.game == name) and (status is None or r.status == status)]


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
