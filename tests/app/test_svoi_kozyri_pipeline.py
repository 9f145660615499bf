"""Svoi Kozyri matches simulated into the store on every backend: the stored
stream re-folds to the live state and every match finishes."""

from __future__ import annotations

import random

from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.matches.simulate import play_match, simulate
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI
from kartludo.engine.svoi_kozyri.bots import HeuristicBot
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded


def check_match(svc, store, mid):
    live = svc.load(mid, refresh=False)
    records = store.read_stream(stream_of(mid))
    assert fold_records(mid, records).state == live.state
    assert live.status == "finished"
    events = [r.event for r in records]
    created = events[0]
    assert isinstance(created, MatchCreated) and created.game == "svoi-kozyri"
    deals = created.options["deals"]
    ended = [e for e in events if isinstance(e, DealEnded)]
    assert len(ended) == deals == len([e for e in events if isinstance(e, DealStarted)])
    assert isinstance(events[-1], MatchEnded) and events[-1].deals == deals
    result = SVOI_KOZYRI.result(live.state)
    assert result.scores == events[-1].losses and result.higher_is_better is False
    return live


def test_simulated_matches_refold_and_finish(store):
    svc = MatchService(store)
    summary = simulate(svc, ["svoi-kozyri"], 2, seed=11)
    assert summary.matches == 2 and summary.finished == 2 and summary.deals == 16
    for mid in summary.match_ids:
        check_match(svc, store, mid)


def test_every_table_size_with_options(store):
    svc = MatchService(store)
    rng = random.Random(5)
    for players, trumps in ((["ann", "bob"], "C,D"), (["ann", "bob", "cy"], "D,S,H"),
                            (["ann", "bob", "cy", "dan"], "C,H,S,D")):
        mid, deals, _ = play_match(svc, "svoi-kozyri", players, [HeuristicBot()], rng,
                                   options={"trumps": trumps, "deals": "2"})
        live = check_match(svc, store, mid)
        assert deals == 2 and "".join(live.state.trumps) == trumps.replace(",", "")


def test_a_seat_sees_its_own_twelve_cards_in_its_deal_event(store):
    """The generic path (replay steps, the service's events) hands the game the state
    before the event, so at a three-player table each seat sees its 12 dealt cards."""
    from kartludo.app.reading.reader import MatchReader
    from kartludo.app.reading.replay import build

    svc = MatchService(store)
    mid = svc.create("svoi-kozyri", ["ann", "bob", "cy"], seed=5)
    svc.deal(mid)
    replay = build(mid, svc.records(mid), 1)
    hands = svc.state_json(svc.load(mid), -1)["hands"]
    for seat, name in enumerate(["ann", "bob", "cy"]):
        read = MatchReader(svc).replay(mid, lambda m, seat=seat: seat, deal=1)
        deck = read.steps([1], seat)[0].event.payload["deck"]
        shown = [c for c in deck if c != "??"]
        assert len(shown) == 12
        passed = replay.steps[1].record.event  # the sixes pass right after the deal
        gave = {p.card for p in passed.passes if p.giver == seat}
        got = {p.card for p in passed.passes if p.receiver == seat}
        assert set(shown) == (set(hands[name]) - got) | gave


def test_without_a_seed_the_first_dealer_is_drawn_afresh_and_recorded(store):
    """A match without a seed draws its first dealer from the lot recorded at its
    creation: not one fixed seat for every match, and the stream alone re-folds it."""
    svc = MatchService(store)
    dealers = set()
    for _ in range(24):
        mid = svc.create("svoi-kozyri", ["ann", "bob", "cy"])
        records = store.read_stream(stream_of(mid))
        created = records[0].event
        assert created.seed is None and isinstance(created.lot, int)
        svc.deal(mid)
        dealt = next(r.event for r in store.read_stream(stream_of(mid)) if isinstance(r.event, DealStarted))
        assert dealt.dealer == fold_records(mid, records[:1]).state.upcoming_dealer
        dealers.add(dealt.dealer)
    assert dealers == {0, 1, 2}  # 24 draws miss a seat with probability 3 * (2/3)**24 < 1e-4


def test_a_seeded_match_records_no_lot(store):
    svc = MatchService(store)
    mid = svc.create("svoi-kozyri", ["ann", "bob", "cy"], seed=9)
    assert store.read_stream(stream_of(mid))[0].event.lot is None
