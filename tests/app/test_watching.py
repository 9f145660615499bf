"""The watch delay in the match reader (issue 40), as a property over random play of every
game of the registry: with a delay of k moves, after every move M a watcher's state,
events and replay stand exactly at the version before move M - k + 1 (nothing of move
n before move n + k has been made), and seats and TDs read live.

A move is one accepted command of a seat (``app.watching``): here each ``svc.act``;
deals (``svc.deal``) are none.
"""

from __future__ import annotations

import random

import every_game
import pytest
from every_game import games
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.app import watching
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.reading.reader import MatchReader
from kartludo.engine.base import ALL, PUBLIC


@pytest.mark.parametrize("game_name", games())
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(k=st.integers(1, 4), seed=st.integers(0, 2**32), moves=st.integers(1, 30))
def test_a_watcher_reads_the_match_k_moves_behind(game_name, k, seed, moves, store):
    svc = MatchService(store)
    reader = MatchReader(svc)
    players = every_game.players(game_name)
    mid = svc.create(game_name, players, options=every_game.short_options(game_name),
                     also=watching.creation(str(k), False, "td"))
    rng = random.Random(seed)
    firsts: list[int] = []
    for _ in range(moves):
        live = svc.load(mid)
        game = live.game
        if game.is_finished(live.state):
            break
        if game.can_deal(live.state):
            svc.deal(mid)  # no move
            continue
        seat = rng.choice(game.to_act(live.state))
        command = rng.choice(game.legal_commands(live.state, seat))
        verb, *args = command.text().split()
        firsts.append(svc.act(mid, players[seat], verb, args).first_version)
        live = svc.load(mid)
        if game.is_finished(live.state):
            break  # over: history, public in full
        made = len(firsts)
        cut = firsts[made - k] - 1 if made >= k else firsts[0] - 1
        state = reader.state(live, PUBLIC)
        assert state["version"] == cut and state["watch"]["moves"] == k, (made, k, state["version"], cut)
        assert "hands" not in state or not state["hands"] or all(not h for h in state["hands"].values())
        events = reader.events(mid, PUBLIC)
        assert events[-1].version == cut and all(e.version <= cut for e in events)
        try:
            read = reader.replay(mid, lambda _: PUBLIC)
        except Exception:  # noqa: BLE001 - no deal yet at the cut
            read = None
        if read is not None:
            assert max(st.record.version for st in read.replay.steps) <= cut
        # seats and a TD: live
        assert reader.state(live, 0)["version"] == reader.state(live, ALL)["version"] == live.version
        assert reader.events(mid, PUBLIC, td=True)[-1].version == live.version
        # every move begins with its seat's command
        assert store.read_stream(f"match-{mid}", firsts[-1], firsts[-1])[0].actor == players[seat]


@pytest.mark.parametrize("game_name", games())
def test_a_watcher_reads_past_the_snapshots_behind_the_cut(game_name, store, monkeypatch):
    """Snapshots at every deal boundary: a watcher's state, events and replay start from
    one at or before the cut, never from one past it (the first moves of a new deal, with
    the boundary snapshot just ahead of the cut), and stand at the cut all the same."""
    from kartludo.app.matches import snapshots

    monkeypatch.setattr(snapshots, "EVERY", 1)
    svc = MatchService(store)
    reader = MatchReader(svc)
    players = every_game.players(game_name)
    k = 3
    mid = svc.create(game_name, players, seed=3, also=watching.creation(str(k), False, "td"))
    bot = every_game.heuristic(game_name)
    rng = random.Random(5)
    firsts: list[int] = []
    boundaries = 0
    for _ in range(400):
        live = svc.load(mid)
        game = live.game
        if game.is_finished(live.state) or boundaries >= 2 and len(firsts) > k + 2:
            break
        if game.can_deal(live.state):
            boundaries += 1
            svc.deal(mid)
            continue
        seat = game.to_act(live.state)[0]
        verb, *args = bot.choose(game, live.state, seat, game.legal_commands(live.state, seat), rng).text().split()
        firsts.append(svc.act(mid, players[seat], verb, args).first_version)
        live = svc.load(mid)
        if game.is_finished(live.state) or len(firsts) < k:
            continue
        cut = firsts[-k] - 1
        at = reader.match_at(mid, cut)
        assert at.version == cut
        assert reader.state(live, PUBLIC)["version"] == cut
        events = reader.events(mid, PUBLIC)
        assert events[-1].version == cut
        middle = events[(len(events) - 1) // 2]
        later = reader.events(mid, PUBLIC, after=middle.position)  # from a snapshot at or before it
        assert [e.version for e in later] == list(range(middle.version + 1, cut + 1))
        if game.deal_number(at.state):
            read = reader.replay(mid, lambda _: PUBLIC)
            assert read.replay.deal == game.deal_number(at.state)
            assert read.replay.steps[-1].record.version == cut or game.can_deal(at.state)
    assert boundaries >= 2
    assert sum(1 for _ in snapshots.starts(store, mid)[1]) >= 2  # a snapshot at a deal boundary, and the creation


@pytest.mark.parametrize("game_name", games())
def test_the_cut_read_backwards_in_chunks_is_the_cut_of_the_whole_stream(game_name, store):
    """``watching.cut`` reads the stream from its end a chunk at a time (32 records, then
    twice as many): for every delay it finds what a read of the whole stream finds, a
    move spanning a chunk's edge included."""
    svc = MatchService(store)
    players = every_game.players(game_name)
    mid = svc.create(game_name, players, seed=9)
    bot = every_game.heuristic(game_name)
    rng = random.Random(9)
    for _ in range(150):
        live = svc.load(mid)
        game = live.game
        if game.is_finished(live.state):
            break
        if game.can_deal(live.state):
            svc.deal(mid)
            continue
        seat = game.to_act(live.state)[0]
        verb, *args = bot.choose(game, live.state, seat, game.legal_commands(live.state, seat), rng).text().split()
        svc.act(mid, players[seat], verb, args)
    records = store.read_stream(f"match-{mid}")
    head = records[-1].version
    starts = watching.move_starts(records, players)
    assert len(records) > 2 * watching.CHUNK and len(starts) > 10  # reads past the first chunk and the next
    for k in range(1, len(starts) + 3):
        expected = starts[-k] - 1 if k <= len(starts) else starts[0] - 1
        assert watching.cut(store, mid, head, players, watching.Watch(moves=k), 0) == expected, k
    times = sorted({r.recorded_at_us for r in records})
    for t in times[:: max(1, len(times) // 40)]:
        expected = max(r.version for r in records if r.recorded_at_us <= t)
        assert watching.cut(store, mid, head, players, watching.Watch(seconds=1), t + 1_000_000) == expected
