"""What each ruling voided, read from the audit trail one ruling at a time and for the
whole match at once, equals what the folded match says, transfer by transfer: each void
transfer is voided by every penalty its payee had standing then. Also after an
overturn that moves an earlier lift onto another penalty, with play going on."""

from __future__ import annotations

import random

from kartludo.app.audit.trail import list_rulings, resolve_ruling
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.engine import match as aggregate
from kartludo.events.uxinjo import DealDrawn, Settled

BOTS = pick_bots("uxinjo", ["random"])


def _moved_lift(svc: MatchService, match_id: str) -> tuple[str, str] | None:
    """A lifted ruling ``a`` whose seat had
    another penalty ``b`` standing behind it: overturning ``a`` moves that lift to ``b``."""
    match = svc.load(match_id)
    game = match.game
    records = svc.records(match_id)
    state = game.start(records[0].event)
    for rec in records[1:]:
        event = rec.event
        if isinstance(event, Settled) and event.lifted and len(state.penalties[event.winner]) >= 2:
            return event.lifted, state.penalties[event.winner][1]
        if aggregate.engine_folds(event):
            state = game.evolve(state, event)
    return None


def _expected(svc: MatchService, match_id: str) -> dict[str, list[dict]]:
    match = svc.load(match_id)
    players, game = match.players, match.game
    out: dict[str, list[dict]] = {}
    records = svc.records(match_id)
    state = game.start(records[0].event)
    for rec in records[1:]:
        if isinstance(rec.event, (Settled, DealDrawn)):
            for t in rec.event.transfers:
                assert t.void == bool(state.penalties[t.payee])
                for rid in state.penalties[t.payee] if t.void else ():
                    out.setdefault(rid, []).append(
                        {"position": rec.position, "payer": players[t.payer], "payee": players[t.payee],
                         "amount": t.amount, "reason": t.reason})
        if aggregate.engine_folds(rec.event):
            state = game.evolve(state, rec.event)
    return out


def test_each_rulings_voids_equal_the_folded_match(store):
    svc = MatchService(store)
    found = None
    for seed in range(40):  # a match where some lift had another penalty standing behind it
        match_id, _, _ = play_match(svc, "uxinjo", ["ann", "bob", "cy"], BOTS, random.Random(seed),
                                    max_deals=30, max_commands=10**5)
        found = _moved_lift(svc, match_id)
        if found is not None and not svc.load(match_id).game.is_finished(svc.load(match_id).state):
            break
    assert found is not None, "no seed gave a lift with a penalty behind it"
    lifted, behind = found
    svc.execute(match_id, lambda m: aggregate.appeal(m, lifted, "ann", "no foul"), actor="ann")
    svc.execute(match_id, lambda m: aggregate.decide(m, lifted, "mia", "overturn", "x"), actor="mia")
    assert behind not in [r for seat in svc.load(match_id).state.penalties for r in seat]  # its lift moved
    play_match(svc, "uxinjo", ["ann", "bob", "cy"], BOTS, random.Random(99), max_deals=30, match_id=match_id)
    expected = _expected(svc, match_id)
    assert sum(len(v) for v in expected.values()) >= 10, "the match needs voided transfers"
    every = list_rulings(store, match_id)
    for record in every:
        assert record.voided == expected.get(record.ruling_id, []), record.ruling_id
        assert resolve_ruling(store, record.id).voided == record.voided
    # the whole league's listing (every match's spans in one query) says the same
    league = {r.id: r.voided for r in list_rulings(store)}
    assert all(league[r.id] == r.voided for r in every)
    moved = next(r for r in every if r.ruling_id == behind)
    assert moved.history[-1]["kind"] == "lifted" and f"overturn of {lifted}" in moved.history[-1]["reason"]
