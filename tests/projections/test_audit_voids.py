"""What each ruling voided, read from the audit trail one ruling at a time (a window
of the match's void rows) and for the whole match at once, equals what the stored
settlements say, transfer by transfer: each void transfer, voided by every penalty
its payee had standing."""

from __future__ import annotations

import random

from kartludo.app import aggregate
from kartludo.app.matches import MatchService, stream_of
from kartludo.app.simulate import pick_bots, play_match
from kartludo.events.uxinjo import DealDrawn, Foul, Settled
from kartludo.projections.queries import list_rulings, resolve_ruling


def test_each_rulings_voids_equal_the_stored_settlements(store):
    svc = MatchService(store)
    match_id, _, _ = play_match(svc, "uxinjo", ["ann", "bob", "cy"], pick_bots("uxinjo", ["random"]),
                                random.Random(11), max_deals=40, max_commands=10**5)
    fouls = [r.event for r in store.read_stream(stream_of(match_id)) if isinstance(r.event, Foul)]
    assert len(fouls) >= 10, "random bots foul: the match needs standing penalties"
    # an overturned ruling keeps what it voided before
    svc.execute(match_id, lambda m: aggregate.appeal(m, fouls[0].ruling_id, "ann", "no foul"), actor="ann")
    svc.execute(match_id, lambda m: aggregate.decide(m, fouls[0].ruling_id, "mia", "overturn", "x"), actor="mia")
    match = svc.load(match_id)
    players, game = match.players, match.game
    expected: dict[str, list[dict]] = {}  # each void transfer, under each standing penalty of its payee
    records = store.read_stream(stream_of(match_id))
    state = game.start(records[0].event)
    for rec in records[1:]:
        if isinstance(rec.event, (Settled, DealDrawn)):
            for t in rec.event.transfers:
                assert t.void == bool(state.penalties[t.payee])
                for rid in state.penalties[t.payee] if t.void else ():
                    expected.setdefault(rid, []).append(
                        {"position": rec.position, "payer": players[t.payer], "payee": players[t.payee],
                         "amount": t.amount, "reason": t.reason})
        if aggregate.engine_folds(rec.event):
            state = game.evolve(state, rec.event)
    assert sum(len(v) for v in expected.values()) >= 10, "the match needs voided transfers"
    every = list_rulings(store, match_id)
    assert len(every) == len(fouls)
    for record in every:
        assert record.voided == expected.get(record.ruling_id, []), record.ruling_id
        assert resolve_ruling(store, record.id).voided == record.voided
