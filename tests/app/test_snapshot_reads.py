"""Reads of part of a match that start from a snapshot (a deal's replay, the events
after a position, a ruling's context) show exactly what the full fold shows, to
every reader: each seat, the public and all hands, TD or not; in every game, in
matches with and without a seed, between deals and in a running deal. What the full
fold shows is computed here as the README states the rules (each event as the reader
may see it now; its hash only when it and every earlier one is shown exactly as
stored), apart from the match reader, which counts exactness as it folds."""

from __future__ import annotations

import random

import msgspec
import pytest
from every_game import Erratic

from kartludo.app import visibility
from kartludo.app.audit import rulings as audit
from kartludo.app.matches import snapshots
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.matches.simulate import CLUB, play_match
from kartludo.app.reading import replay
from kartludo.app.reading.presenters import ReplayStep, event_out, state_json
from kartludo.app.reading.reader import MatchReader
from kartludo.engine import match as aggregate
from kartludo.engine.base import ALL, PUBLIC
from kartludo.engine.match import Match, describe
from kartludo.engine.registry import game_names, get_game
from kartludo.events.match import DealStarted
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
    bots = [Erratic(game)]
    svc = MatchService(store)
    match_id = svc.create(game, players, seed=rng.getrandbits(32) if seeded else None, actor="t")
    play_match(svc, game, players, bots, rng, max_deals=4, max_commands=800, match_id=match_id)
    # an event of the match's own right after a deal boundary (a snapshot): shown exactly to all
    from kartludo.engine import match as aggregate
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


def reference(match_id: str, records: list, viewer, td: bool) -> tuple[Match, list, bool]:
    """Every event as ``viewer`` sees it now, each (record, state before, event shown, the
    view it is in, hash), by the rules as stated: an ended deal's events in every hand's
    view, a running one's in the reader's; the hash while every event so far is exact."""
    match = aggregate.start(match_id, records[0])
    befores, deals, current = [None], [None], None
    for rec in records[1:]:
        if isinstance(rec.event, DealStarted):
            current = rec.event.deal
        befores.append(match.state)
        deals.append(current)
        match.apply(rec.event, rec.version)
    secrets = visibility.sees_secrets(viewer, td, visibility.match_over(match))
    last_ended = visibility.deal_over(match)
    exact, out = True, []
    for rec, before, deal in zip(records, befores, deals):
        event, seen = visibility.shown_as(match.game, before, rec.event, deal, current, last_ended, viewer,
                                          secrets=secrets)
        exact = exact and event == rec.event
        out.append((rec, before, event, seen, rec.hash.hex() if exact else None))
    return match, out, secrets


def reference_events(match_id: str, records: list, viewer, td: bool, after: int) -> list:
    match, shown, _ = reference(match_id, records, viewer, td)
    return [event_out(rec, event, h, describe(match.game, before, rec.event, seen, match.players))
            for rec, before, event, seen, h in shown if rec.position > after]


def reference_steps(svc, match_id: str, records: list, deal, viewer, td: bool, view) -> list:
    """A deal's steps in ``view``, for the reader of ``viewer``: an event's hash where
    the reader gets it and ``view`` shows the event exactly."""
    rep = replay.build(match_id, records, deal)
    match, shown, secrets = reference(match_id, records, viewer, td)
    hashes = {rec.version: h for rec, _, _, _, h in shown}
    secrets = secrets and visibility.sees_secrets(view, td, visibility.match_over(match))
    units = replay.turn_units(rep.game, rep.steps)
    out = []
    for st in rep.steps:
        event = visibility.redact(rep.game, st.before, st.record.event, view, secrets=secrets)
        m = rep.match
        state = state_json(svc, Match(m.id, m.game, m.created, st.state, st.record.version), view, secrets=secrets)
        text = rep.description(st.index, view)
        h = hashes[st.record.version] if event == st.record.event else None
        out.append(ReplayStep(st.index, len(rep.steps), text, event_out(st.record, event, h, text), state,
                              replay.is_ruling_or_settlement(st.record.event), units[st.index - 1]))
    return out


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
            full = aggregate.fold(match_id, records)
            if table.nearest(store, match_stream(match_id), snapshots.code_of(full.game, full.created)):
                break
        else:
            pytest.fail("no match of eight had a snapshot")
        svc = MatchService(store)
        reader = MatchReader(svc)
        seats = len(full.players)
        deals = replay.deal_numbers(records)
        assert deals, "the match has deals"
        for viewer, td in _readers(seats):
            td = viewer == ALL if td is None else td
            # every deal's replay, and the default (the last deal)
            for deal in [None, *deals]:
                want = replay.build(match_id, records, deal)
                got = reader.replay(match_id, lambda m, viewer=viewer: viewer, td=td, deal=deal)
                assert (got.replay.deal, got.replay.deals, got.replay.match, got.replay.steps) == (
                    want.deal, want.deals, want.match, want.steps)
                assert got.match.state == full.state
                wanted = list(range(1, len(want.steps) + 1))
                for view in dict.fromkeys([viewer, PUBLIC, ALL]):
                    assert _json(got.steps(wanted, view)) == _json(
                        reference_steps(svc, match_id, records, deal, viewer, td, view))
            # the events after every position
            for rec in [None, *records[::5], *records[-12:]]:
                after = 0 if rec is None else rec.position
                assert _json(reader.events(match_id, viewer, td=td, after=after)) == _json(
                    reference_events(match_id, records, viewer, td, after))
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
