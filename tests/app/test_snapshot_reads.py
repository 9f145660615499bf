"""Reads of part of a match that start from a snapshot (a deal's replay, the events
after a position, a ruling's context) show exactly what the full fold shows, to
every reader: each seat, the public and all hands, TD or not; in every game, in
matches with and without a seed, between deals and in a running deal."""

from __future__ import annotations

import random

import msgspec
import pytest

from kartludo.app import audit, replay, snapshots, visibility
from kartludo.app.matches import MatchService
from kartludo.app.presenters import describe_shown, events_json, replay_steps, shown_out
from kartludo.app.simulate import CLUB, pick_bots, play_match
from kartludo.engine.base import ALL, PUBLIC
from kartludo.engine.registry import game_names, get_game
from kartludo.events.streams import match_stream
from kartludo.store import EventStore
from kartludo.store import snapshots as table


@pytest.fixture(autouse=True)
def often(monkeypatch):
    """A snapshot every few events, and every one kept, so a read has many to start from."""
    monkeypatch.setattr(snapshots, "EVERY", 4)
    monkeypatch.setattr(table, "KEEP", 10_000)
    snapshots._latest.clear()
    yield
    snapshots._latest.clear()


def _play(store: EventStore, game: str, seed: int, *, seeded: bool, running: bool) -> str:
    """A bot-played match of a few deals; ``running``: it stops in the middle of a deal."""
    rng = random.Random(seed)
    players = rng.sample(CLUB, rng.choice(get_game(game).player_counts))
    bots = pick_bots(game, ["heuristic" if game == "svoi-kozyri" else "random"])
    svc = MatchService(store)
    match_id = svc.create(game, players, seed=rng.getrandbits(32) if seeded else None, actor="t")
    play_match(svc, game, players, bots, rng, max_deals=4, max_commands=800, match_id=match_id)
    # an event of the match's own right after a deal boundary (a snapshot): shown exactly to all
    from kartludo.app import aggregate
    from kartludo.events.match import Ruling

    ruled = [r.event for r in store.read_stream(match_stream(match_id)) if isinstance(r.event, Ruling)]
    if ruled:
        snapshots._latest.clear()
        svc.execute(match_id, lambda m: aggregate.appeal(m, ruled[-1].ruling_id, players[0], "t"), actor="t")
    if running:
        m = svc.load(match_id)
        if m.game.can_deal(m.state):
            svc.deal(match_id, actor="t")
        for _ in range(3):
            m = svc.load(match_id)
            seats = m.game.to_act(m.state)
            if not seats or m.over:
                break
            legal = m.game.legal_commands(m.state, seats[0])
            svc.act(match_id, m.players[seats[0]], *_words(rng.choice(legal).text()))
    return match_id


def _words(text: str) -> tuple[str, list[str]]:
    verb, *args = text.split()
    return verb, args


def _readers(seats: int) -> list[tuple[object, bool | None]]:
    return [(ALL, None), (ALL, True), (PUBLIC, None), *[(s, None) for s in range(seats)], (0, True)]


def _json(value: object) -> bytes:
    return msgspec.json.encode(msgspec.to_builtins(value))


CASES = [(game, seeded, running) for game in sorted(game_names()) for seeded in (True, False)
         for running in (False, True)]


@pytest.mark.parametrize(("game", "seeded", "running"), CASES)
def test_reads_from_snapshots_equal_the_full_fold(tmp_path, game, seeded, running):
    store = EventStore.open(f"sqlite:///{tmp_path / 'm.db'}")
    try:
        # an unseeded deck is the operating system's: a match may end within its first deal
        # and so have no deal boundary to snapshot; play another then (a few tries)
        for attempt in range(8):
            match_id = _play(store, game, 7 + len(game) + 100 * attempt, seeded=seeded, running=running)
            records = store.read_stream(match_stream(match_id))
            full = visibility.read_match(match_id, records, ALL)
            if table.nearest(store, match_stream(match_id), snapshots.code_of(full.match.game, full.match.created)):
                break
        else:
            pytest.fail("no match of eight had a snapshot")
        svc = MatchService(store)
        seats = len(full.match.players)
        deals = replay.deal_numbers(records)
        assert deals, "the match has deals"
        started = 0
        for viewer, td in _readers(seats):
            # every deal's replay, and the default (the last deal)
            for deal in [None, *deals]:
                want = replay.build(match_id, records, deal)
                want_reading = visibility.read_match(match_id, records, viewer, td=td)
                got, got_reading = replay.read(store, match_id, deal, lambda m, viewer=viewer: viewer, td=td)
                assert (got.deal, got.deals, got.match, got.steps) == (want.deal, want.deals, want.match, want.steps)
                assert (got_reading.td, got_reading.secrets, got_reading.over) == (want_reading.td,
                                                                                   want_reading.secrets,
                                                                                   want_reading.over)
                assert got_reading.match.state == want_reading.match.state
                started += got_reading.shown[0].record.version > 1
                for st in want.steps:
                    assert got_reading.of(st.record) == want_reading.of(st.record)
                wanted = list(range(1, len(want.steps) + 1))
                for view in dict.fromkeys([viewer, PUBLIC, ALL]):
                    assert _json(replay_steps(svc, got, wanted, view, got_reading)) == _json(
                        replay_steps(svc, want, wanted, view, want_reading))
            # the events after every position
            for rec in [None, *records[::5], *records[-12:]]:
                after = 0 if rec is None else rec.position
                if td is not None:
                    got_events = list(visibility.events_of(visibility.read_after(store, match_id, viewer, after,
                                                                                 td=td), after))
                    want_events = list(visibility.events_of(visibility.read_match(match_id, records, viewer, td=td),
                                                            after))
                    assert got_events == want_events
                    continue
                match, shown = visibility.visible_events(match_id, records, viewer, after)
                want_json = [shown_out(s, describe_shown(match, s)) for s in shown]
                assert _json(events_json(svc, match_id, viewer, after)) == _json(want_json)
        assert started, "some reads started from a snapshot"
        # every ruling's context, with and without snapshots
        rulings = list(_rulings(records, match_id))
        contexts = [audit.ruling_context(store, r) for r in rulings]
        table.drop_all(store)
        assert [audit.ruling_context(store, r) for r in rulings] == contexts
    finally:
        store.close()


def _rulings(records, match_id):
    """An audit record for each ruling recorded in the match (what ``ruling_context`` reads of it)."""
    from kartludo.events.match import Ruling

    created = records[0].event
    for rec in records:
        if isinstance(rec.event, Ruling):
            e = rec.event
            yield audit.AuditRecord(
                id=f"{match_id}/{e.ruling_id}", match=match_id, ruling_id=e.ruling_id, game=created.game,
                deal=e.deal, position=rec.position, version=rec.version, player=created.players[e.seat],
                seat=e.seat, type=rec.type, rule=e.rule, facts=dict(e.facts), effect=dict(e.effect),
                status="standing", series=None, series_effect=None, lifted_position=None, voided=[],
                recorded_at="")
