"""The match pipeline on every backend: create, deal, act, retries, idempotency."""

from __future__ import annotations

import multiprocessing
import random
import time

import pytest
from every_game import games

from kartludo.app.errors import AmbiguousMatch, UnknownMatch, UnknownPlayer
from kartludo.app.matches.pipeline import MatchService, fold_records, stream_of
from kartludo.app.matches.simulate import simulate
from kartludo.engine.base import BadCommand, IllegalCommand, seeded_deck
from kartludo.engine.jx import JX_DECK
from kartludo.events.match import DealStarted, MatchCreated

fork = multiprocessing.get_context("fork")


@pytest.fixture
def svc(store):
    return MatchService(store)


def new_uxinjo(svc, seed=7):
    return svc.create("uxinjo", ["ann", "bob", "cy"], seed=seed)


def test_create_records_game_ruleset_players_seed_and_options(svc, store):
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=11, options={"needed_base": "3"})
    created = store.read_stream(stream_of(mid))[0].event
    assert created == MatchCreated(game="uxinjo", ruleset=created.ruleset, players=["ann", "bob", "cy"], seed=11,
                                   options={**created.options, "needed_base": 3})
    assert created.ruleset.startswith("uxinjo")
    assert svc.resolve(mid[:5]) == mid


@pytest.mark.parametrize(
    "game, players, options, message",
    [
        ("nosuch", ["a", "b", "c"], {}, "unknown game 'nosuch'"),
        ("uxinjo", ["a", "b"], {}, "needs 3 players, got 2"),
        ("uxinjo", ["a", "b", "a"], {}, "duplicate player a"),
        ("uxinjo", ["a", "b", "c d"], {}, "bad player name 'c d'"),
        ("uxinjo", ["a", "b", "c"], {"colour": "red"}, "unknown option colour"),
        ("uxinjo", ["a", "b", "c"], {"needed_base": "lots"}, "option needed_base='lots'"),
    ],
)
def test_bad_match_creation_is_refused_and_writes_nothing(svc, store, game, players, options, message):
    with pytest.raises(BadCommand, match=message):
        svc.create(game, players, options=options)
    assert store.count_events() == 0


def test_seeded_deals_are_reproducible_and_recorded(svc, store):
    a, b = new_uxinjo(svc, seed=5), new_uxinjo(svc, seed=5)
    svc.deal(a)
    svc.deal(b)
    deal_a = store.read_stream(stream_of(a))[1].event
    deal_b = store.read_stream(stream_of(b))[1].event
    assert isinstance(deal_a, DealStarted) and deal_a.deal == 1
    assert deal_a.deck == deal_b.deck == list(seeded_deck(JX_DECK, 5, 1)[0])
    assert deal_a.shuffle == "5:1"


def test_a_deck_entered_by_hand_is_recorded_verbatim(svc, store):
    mid = new_uxinjo(svc)
    deck = list(reversed(JX_DECK))
    svc.deal(mid, deck, actor="td")
    rec = store.read_stream(stream_of(mid))[1]
    assert rec.event.deck == deck and rec.event.shuffle is None and rec.actor == "td"


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d[:-1], "missing"),
        (lambda d: d + ["R1"], "extra R1"),
        (lambda d: d[:-1] + ["Z9"], "unknown cards Z9"),
    ],
)
def test_a_bad_deck_is_refused_naming_the_problem(svc, store, edit, message):
    mid = new_uxinjo(svc)
    with pytest.raises(IllegalCommand, match=message):
        svc.deal(mid, edit(list(JX_DECK)))
    assert store.stream_version(stream_of(mid)) == 1


def test_refused_command_names_the_rule_and_writes_nothing(svc, store):
    mid = new_uxinjo(svc)
    svc.deal(mid)
    before = store.stream_version(stream_of(mid))
    with pytest.raises(IllegalCommand) as err:
        svc.act(mid, "bob", "draw")  # Or (ann) deals and acts first
    assert err.value.rule and "uxinjo" in err.value.rule.lower()
    with pytest.raises(UnknownPlayer, match="'zed' does not play"):
        svc.act(mid, "zed", "draw")
    with pytest.raises(BadCommand):
        svc.act(mid, "ann", "fly")
    assert store.stream_version(stream_of(mid)) == before


def test_a_retried_command_id_is_applied_once(svc, store):
    mid = new_uxinjo(svc)
    svc.deal(mid)
    first = svc.act(mid, "ann", "draw", command_id="ann-1")
    again = MatchService(store).act(mid, "ann", "draw", command_id="ann-1")  # e.g. a client retry
    assert again.duplicate and again.positions == first.positions and again.events == first.events
    assert store.stream_version(stream_of(mid)) == 3


def test_a_stale_cache_re_folds_and_re_decides(store):
    one, two, three = MatchService(store), MatchService(store), MatchService(store)
    mid = new_uxinjo(one)
    one.deal(mid)
    two.load(mid)
    three.load(mid)  # both caches: ann to draw
    one.act(mid, "ann", "draw")
    # two's `draw` is decided on a stale fold, conflicts, is re-decided on the fresh fold and refused
    with pytest.raises(IllegalCommand):
        two.act(mid, "ann", "draw")
    # a command only legal in the fresh state succeeds from a stale cache
    hand = one.state_json(one.load(mid), 0)["hands"]["ann"]
    card = next(c for c in hand if c not in ("PJ", "AJ"))
    outcome = three.act(mid, "ann", "discard", [card])
    assert not outcome.duplicate and store.stream_version(stream_of(mid)) == outcome.first_version
    assert fold_records(mid, store.read_stream(stream_of(mid))).state == three.load(mid).state


def test_a_store_that_lost_the_newest_events_is_followed_not_fought(tmp_path):
    """After a failover to a standby that had not received a match's newest events, a
    service that folded them decides on the match as the store now holds it (issue 42):
    the lost draw is drawn again, rather than refused as done or retried into contention."""
    import shutil

    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    primary_url, standby_url = f"sqlite:///{tmp_path}/primary.db", f"sqlite:///{tmp_path}/standby.db"
    upgrade(create_engine(primary_url))
    primary = EventStore.open(primary_url)
    svc = MatchService(primary)
    mid = new_uxinjo(svc)
    svc.deal(mid)
    primary.close()
    for suffix in ("", "-wal", "-shm"):  # the standby stops receiving here
        if (tmp_path / f"primary.db{suffix}").exists():
            shutil.copy(tmp_path / f"primary.db{suffix}", tmp_path / f"standby.db{suffix}")
    primary = EventStore.open(primary_url)
    svc.store = primary
    svc.act(mid, "ann", "draw")  # acknowledged by the primary only, and folded here
    assert svc.load(mid, refresh=False).version == 3
    primary.close()
    standby = EventStore.open(standby_url)  # promoted: the service now writes here
    svc.store = standby
    hand = svc.state_json(svc.load(mid, refresh=False), 0)["hands"]["ann"]
    card = next(c for c in hand if c not in ("PJ", "AJ"))
    with pytest.raises(IllegalCommand):  # ann's draw is lost: she must draw before she discards
        svc.act(mid, "ann", "discard", [card])
    drawn = svc.act(mid, "ann", "draw")
    assert drawn.first_version == 3 and standby.stream_version(stream_of(mid)) == 3
    assert fold_records(mid, standby.read_stream(stream_of(mid))).state == svc.load(mid).state
    standby.close()


def test_unknown_and_ambiguous_match_ids(svc):
    ids = {svc.create("uxinjo", ["a", "b", "c"], match_id=i) for i in ("abc111", "abc222")}
    assert svc.resolve("abc1") == "abc111"
    with pytest.raises(AmbiguousMatch, match="ambiguous"):
        svc.resolve("abc")
    with pytest.raises(UnknownMatch, match="no match 'zzz'"):
        svc.resolve("zzz")
    assert ids == {"abc111", "abc222"}


def test_refold_of_stored_events_equals_the_live_state(svc, store):
    summary = simulate(svc, ["uxinjo"], 3, seed=3, bots=["random", "heuristic"], max_deals=8)
    assert summary.matches == 3 and summary.events > 0
    for mid in summary.match_ids:
        live = svc.load(mid, refresh=False).state
        assert fold_records(mid, store.read_stream(stream_of(mid))).state == live


def test_state_json_has_the_documented_fields(svc):
    mid = new_uxinjo(svc)
    svc.deal(mid)
    data = svc.state_json(svc.load(mid), 1)
    for key in ("match", "game", "status", "deal", "phase", "to_act", "players", "hands", "totals",
                "markers", "penalties"):
        assert key in data, key
    assert data["status"] == "in_progress" and data["deal"] == 1 and data["to_act"] == ["ann"]
    assert list(data["hands"]) == ["bob"] and len(data["hands"]["bob"]) == 5


def _seat_worker(url, mid, player, seed, queue):
    from kartludo.store import EventStore

    store = EventStore.open(url, create=False)
    svc = MatchService(store)
    rng = random.Random(seed)
    done = refused = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = svc.load(mid)
        game = match.game
        if game.can_deal(match.state) or game.is_finished(match.state):
            break
        seat = match.seat_of(player)
        if seat not in game.to_act(match.state):
            continue
        legal = [c for c in game.legal_commands(match.state, seat) if c.text() != "munt"]
        if not legal:
            continue
        try:
            svc.execute(mid, svc.play(rng.choice(legal)), actor=player)
            done += 1
        except IllegalCommand:
            refused += 1  # the match moved on between legal and execute: re-decided, refused
    store.close()
    queue.put((player, done, refused))


def test_three_processes_playing_one_deal_keep_it_consistent(svc, store, db_url):
    mid = new_uxinjo(svc, seed=21)
    svc.deal(mid)
    queue = fork.Queue()
    procs = [fork.Process(target=_seat_worker, args=(db_url, mid, p, i, queue))
             for i, p in enumerate(["ann", "bob", "cy"])]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    records = store.read_stream(stream_of(mid))
    assert [r.version for r in records] == list(range(1, len(records) + 1))
    assert sum(done for _, done, _ in results) >= 6
    game = svc.load(mid).game
    # every stored action re-applies: the fold is the live state of a fresh reader
    assert fold_records(mid, records).state == MatchService(store).load(mid).state
    assert game.deal_number(fold_records(mid, records).state) == 1


def test_options_that_do_not_fit_the_players_are_refused_at_creation(svc, store):
    with pytest.raises(BadCommand, match="trumps names 2 suits for 3 players"):
        svc.create("svoi-kozyri", ["ann", "bob", "cy"], options={"trumps": "S,H"})
    assert store.count_events() == 0


@pytest.mark.parametrize("game", games())
def test_a_deal_is_not_a_players_verb(game):
    """Deals start with `match deal` (seeded or entered deck), never through `act`."""
    from kartludo.engine.registry import get_game

    with pytest.raises(BadCommand, match="unknown"):
        get_game(game).parse_command(0, "deal", ["R1"])
