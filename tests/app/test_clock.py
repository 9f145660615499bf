"""Match clocks (issue 40): folded from the events' recorded times, never from a process
staying up. The store's clock is injected (``store.clock``): no test sleeps, and every
figure is asserted exactly."""

from __future__ import annotations

import threading

import every_game
import pytest

from kartludo.app.errors import AppError, InvalidInput, NotAllowed
from kartludo.app.matches import clock
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.app.reading.reader import MatchReader
from kartludo.engine.base import ALL, PUBLIC
from kartludo.engine.registry import get_game
from kartludo.events.match import FlagFall
from kartludo.store import ConcurrencyConflict, EventStore
from kartludo.store.transfer import format_us

S = 1_000_000  # one second in microseconds
T0 = 1_796_000_000_000_000
PLAYERS = ["ann", "bob", "cy", "dan"]


class Now:
    """The injected clock: the test moves it."""

    def __init__(self) -> None:
        self.us = T0

    def __call__(self) -> int:
        return self.us

    def at(self, seconds: float) -> None:
        self.us = T0 + round(seconds * S)


@pytest.fixture
def now(store):
    t = Now()
    store.clock = t
    return t


def hakamo_on_clock(svc: MatchService, control: str | None = "5m+10s", move_limit: str | None = None) -> str:
    """A Hakamo match on a clock, dealt at T0: Hakamo's bidding puts one seat to act at a time."""
    control_set = clock.control_of(control, move_limit)
    mid = svc.create("hakamo", PLAYERS, seed=11, actor="cli", also=clock.setting(control_set))
    svc.deal(mid)
    return mid


def to_act(svc: MatchService, mid: str) -> str:
    m = svc.load(mid)
    [seat] = m.game.to_act(m.state)
    return m.players[seat]


def move(svc: MatchService, mid: str) -> str:
    """The seat to act plays its first legal command (as itself: the actor is the player)."""
    m = svc.load(mid)
    player = to_act(svc, mid)
    verb, *args = svc.legal(m, player)[0].text().split()
    svc.act(mid, player, verb, args)
    return player


#: a reader kept across a test's steps: its clocks are caught up, never folded afresh
READERS: dict[int, MatchReader] = {}


def remaining(store: EventStore, mid: str) -> dict[str, int]:
    """Each seat's remaining time now, by a full fold; the reader's cached clocks agree."""
    reading = clock.reading(store, mid)
    assert reading is not None
    reader = READERS.setdefault(id(store), MatchReader(MatchService(store)))
    assert reader.clocks.reading(mid) == reading
    return {p: s["remaining_ms"] for p, s in reading["seats"].items()}


def test_durations_and_controls_are_read_and_refused_by_name():
    assert clock.parse_clock("5m+10s") == (300 * S, 10 * S)
    assert clock.parse_clock("1m30s") == (90 * S, 0)
    assert clock.parse_duration("60", "--move-limit") == 60 * S
    assert clock.control_text(clock.control_of("5m+10s", "60s")) == "5m+10s, 1m a turn"
    assert clock.control_of(None, None) is None
    for bad, says in [("5x", "--clock base '5x' is not a duration"), ("+10s", "--clock base '' is not a duration"),
                      ("0s+1s", "the base time must be more than 0"), ("5m+", "--clock increment '' is not a duration"),
                      ("2d", "is not a duration"), ("25h", "longer than a day")]:
        with pytest.raises(InvalidInput, match=says):
            clock.control_of(bad, None)
    with pytest.raises(InvalidInput, match="--move-limit '0s' must be more than 0"):
        clock.control_of(None, "0s")
    assert clock.clock_face(4 * 60 * S + 52 * S + 999_999) == "4:52"
    assert clock.clock_face(9_450_000) == "0:09.4"


def test_an_increment_and_a_tds_extra_time_are_counted_exactly(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc)
    first = to_act(svc, mid)
    assert remaining(store, mid) == dict.fromkeys(PLAYERS, 300_000)
    now.at(7)
    assert remaining(store, mid)[first] == 293_000  # running: 7 s of its turn used
    assert move(svc, mid) == first  # its turn took 7 s and earned the 10 s increment
    second = to_act(svc, mid)
    now.at(27)
    assert move(svc, mid) == second  # 20 s
    third = to_act(svc, mid)
    now.at(30)
    clock.add_time(store, mid, third, "60s", by="td1", reason="the lights went out")
    now.at(40)
    assert remaining(store, mid) == {**dict.fromkeys(PLAYERS, 300_000), first: 303_000, second: 290_000,
                                     third: 300_000 + 60_000 - 13_000}
    clock.pause(store, mid, by="td1", reason="a dispute")
    now.at(100)
    assert remaining(store, mid)[third] == 347_000  # nothing runs while paused
    assert clock.apply_due(svc, mid) == []
    clock.pause(store, mid, by="td1", reason="settled", resume=True)
    now.at(110)
    assert remaining(store, mid)[third] == 337_000
    state = MatchReader(svc).state(svc.load(mid), PUBLIC)
    assert state["clock"]["seats"][third] == {"remaining_ms": 337_000, "running": True, "flags": 0}
    assert state["clock"]["control"] == "5m+10s" and state["clock"]["paused"] is False
    table = store.read_stream(clock.table_stream(mid))
    assert [(r.type, r.actor, getattr(r.event, "by", None)) for r in table] == [
        ("table.clock-set", "cli", None), ("table.time-added", "td1", "td1"), ("table.clock-paused", "td1", "td1"),
        ("table.clock-resumed", "td1", "td1")]


def test_a_flag_fall_is_a_ruling_applied_once_across_a_restart(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, "1m+5s")
    loser = to_act(svc, mid)
    now.at(59.999)
    assert clock.apply_due(svc, mid) == [] and clock.sweep(svc) == []
    version = svc.load(mid).version
    # the server is down when the flag falls; after its restart the sweep finds it in the log
    now.at(75)
    restarted = MatchService(store)
    applied = clock.sweep(restarted)
    assert [(m, r.version) for m, r in applied] == [(mid, version + 1)]
    ruling = applied[0][1].event
    assert isinstance(ruling, FlagFall) and applied[0][1].actor == clock.CLOCK_ACTOR
    assert ruling.seat == PLAYERS.index(loser)
    assert ruling.rule == clock.flag_rule("hakamo") == "hakamo §Clocks (RULING: flag fall)"
    assert ruling.facts == {"player": loser, "control": "1m+5s", "turn_started_at": format_us(T0),
                            "flag_fell_at": format_us(T0 + 60 * S), "turn_us": 60 * S}
    assert ruling.effect["consequence"] == "bot"
    records = store.read_stream(stream_of(mid))
    assert records[-1].version > version + 1  # the bot played the seat's turn in the same append
    assert [r.actor for r in records[version:]] == [clock.CLOCK_ACTOR] * (len(records) - version)
    assert to_act(restarted, mid) != loser
    # the flag fell at 60 s: nothing after it is charged; the flagged turn earns its increment
    assert remaining(store, mid)[loser] == 5_000
    assert clock.sweep(restarted) == [] and clock.sweep(MatchService(store)) == []  # exactly once
    assert clock.sweep(svc) == []  # the first process, its cache stale, finds it applied too
    assert [r.event.ruling_id for r in store.read_stream(stream_of(mid)) if isinstance(r.event, FlagFall)] == [
        f"flag-v{version + 1}"]
    assert remaining(store, mid)[loser] == 5_000
    # the audit trail lists it like every ruling, with the times as facts
    from kartludo.app.audit.trail import list_rulings, resolve_ruling

    [record] = list_rulings(store, mid)
    assert record.type == "match.flag-fall" and record.player == loser and record.facts["turn_us"] == 60 * S
    assert [(h["kind"], h["by"]) for h in record.history][:1] == [("ruled", "clock")]
    assert resolve_ruling(store, f"{mid}/flag").id == record.id


def test_two_appliers_racing_one_loses_at_the_stores_expected_version(db_url, store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, "1m")
    now.at(61)
    stores = [EventStore.open(db_url, clock=now) for _ in range(2)]
    barrier = threading.Barrier(2, timeout=30)
    conflicts: list[int] = []

    def racing(s: EventStore) -> None:
        real = s.append
        first = [True]

        def append(stream, events, expected, **kw):  # both decide before either appends
            if first[0] and stream == stream_of(mid):
                first[0] = False
                barrier.wait()
            try:
                return real(stream, events, expected, **kw)
            except ConcurrencyConflict:
                conflicts.append(expected)
                raise

        s.append = append  # type: ignore[method-assign]

    results: list[list] = [[], []]

    def worker(i: int) -> None:
        results[i] = clock.apply_due(MatchService(stores[i]), mid)

    for s in stores:
        racing(s)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for s in stores:
        s.close()
    flags = [r for r in store.read_stream(stream_of(mid)) if isinstance(r.event, FlagFall)]
    assert len(flags) == 1 and len(conflicts) == 1  # one appended, one met the conflict and re-read
    assert sorted(bool(r) for r in results) == [False, True]


def test_a_move_limit_flag_falls_per_turn_and_an_overturn_gives_the_time_back(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, "5m", move_limit="30s")
    loser = to_act(svc, mid)
    now.at(29)
    assert remaining(store, mid)[loser] == 1_000  # the turn's limit, not the bank, is what is left
    now.at(31)
    [(_, rec)] = clock.sweep(svc)
    assert rec.event.facts["turn_us"] == 30 * S and rec.event.facts["flag_fell_at"] == format_us(T0 + 30 * S)
    # the bank lost the 30 s, then the next seat runs with a fresh limit
    nxt = to_act(svc, mid)
    assert remaining(store, mid) == {**dict.fromkeys(PLAYERS, 300_000), loser: 270_000, nxt: 30_000}
    now.at(35)
    assert remaining(store, mid)[nxt] == 26_000
    from kartludo.app.audit.rulings import appeal, decide
    from kartludo.app.audit.trail import resolve_ruling

    record = resolve_ruling(store, f"{mid}/{rec.event.ruling_id}")
    appeal(store, record, loser, "the server's clock was wrong")
    decide(store, record, "td1", "overturn", "a power cut")
    reading = clock.reading(store, mid)
    assert reading is not None and reading["seats"][loser]["flags"] == 0
    folded = clock.read(store, mid)
    assert folded.clock is not None and folded.clock.bank(PLAYERS.index(loser)) == 300 * S  # 270 s + 30 s back


def test_refusals_name_the_problem_and_write_nothing(store, now):
    svc = MatchService(store)
    plain = svc.create("hakamo", PLAYERS, seed=3)
    mid = hakamo_on_clock(svc)
    before = [len(store.read_stream(clock.table_stream(m))) for m in (plain, mid)]
    with pytest.raises(AppError, match=f"match {plain} has no clock"):
        clock.add_time(store, plain, "ann", "60s", by="td1", reason="x")
    with pytest.raises(AppError, match="no clock"):
        clock.pause(store, plain, by="td1", reason="x")
    with pytest.raises(AppError, match="'zed' does not play in match"):
        clock.add_time(store, mid, "zed", "60s", by="td1", reason="x")
    with pytest.raises(InvalidInput, match="--time '-5s' is not a duration"):
        clock.add_time(store, mid, "ann", "-5s", by="td1", reason="x")
    with pytest.raises(InvalidInput, match="gives a reason"):
        clock.pause(store, mid, by="td1", reason=" ")
    with pytest.raises(AppError, match="are not paused"):
        clock.pause(store, mid, by="td1", reason="x", resume=True)
    with pytest.raises(NotAllowed, match="'ann' is no TD"):
        clock.pause(store, mid, by="ann", reason="x", named=True)
    assert [len(store.read_stream(clock.table_stream(m))) for m in (plain, mid)] == before
    assert clock.apply_due(svc, plain) == []


def test_replay_shows_the_clocks_each_step_as_they_were(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, "1m+5s")
    seen = {}
    for t in (4, 9, 15):
        now.at(t)
        move(svc, mid)
        seen[svc.load(mid).version] = remaining(store, mid)
    now.at(200)
    clock.sweep(svc)
    read = MatchReader(svc).replay(mid, lambda m: ALL, td=True)
    steps = read.steps(list(range(1, len(read.replay.steps) + 1)), ALL)
    shown = {s.event.version: s.state["clock"] for s in steps}
    for version, figures in seen.items():
        assert {p: c["remaining_ms"] for p, c in shown[version]["seats"].items()} == figures
    # the live reading now and the replay's last step agree (nothing runs after a flag fall's bot turn
    # until the next seat's time: the same figures at the last event's time)
    last = max(shown)
    assert shown[last] == clock.read(store, mid).clock.reading()
    flagged = [s for s in steps if s.event.type == "match.flag-fall"]
    assert flagged and flagged[0].ruling


@pytest.mark.parametrize("game", every_game.games())
def test_every_game_states_its_flag_fall_consequence_and_the_ruling_cites_it(game):
    from kartludo.app.casebook import rulebook

    [cited] = rulebook.citations(clock.flag_rule(game), game)
    assert cited.section is not None and cited.section.label == "Clocks"
    [ruling] = [p for p in rulebook.page_text(game).split("\n\n") if "RULING (flag fall)" in p]
    # the game's heuristic bot plays a flagged turn (the random bot for a game without one)
    bot = "heuristic bot" if "heuristic" in get_game(game).bots() else "random bot"
    assert f"{bot} plays the" in ruling and "never a card" in ruling


def test_a_servers_sweeper_keeps_its_clocks_between_rounds(store, now):
    svc = MatchService(store)
    from kartludo.app.matches.autodeal import setting

    plain = svc.create("hakamo", PLAYERS, seed=3, also=setting(True))  # a table stream, no clock
    mid = hakamo_on_clock(svc, "1m")
    sweeper = clock.Sweeper(svc)
    now.at(30)
    assert sweeper.run_once() == []
    move(svc, mid)  # folded in by the next round, not from the start
    nxt = to_act(svc, mid)
    now.at(89)
    assert sweeper.run_once() == []
    now.at(91)
    [(found, rec)] = sweeper.run_once()
    assert found == mid and rec.event.facts["player"] == nxt and rec.event.facts["turn_us"] == 60 * S
    assert sweeper.run_once() == []
    assert plain in sweeper._skip and mid not in sweeper._skip


@pytest.mark.parametrize("game", every_game.games())
def test_every_game_takes_a_flag_fall_into_its_audit_trail_and_rechecks_clean(store, now, game):
    from kartludo.app.audit.recheck import recheck_match
    from kartludo.app.audit.trail import list_rulings
    from kartludo.app.matches.refold import refold_all

    svc = MatchService(store)
    names = every_game.players(game, PLAYERS)
    mid = svc.create(game, names, seed=21, also=clock.setting(clock.control_of("1m", None)))
    svc.deal(mid)
    flagged = 0
    for minute in range(1, 4):  # a flag falls each minute, the bot plays each flagged turn
        now.at(60 * minute + 1)
        flagged += len(clock.sweep(svc))
    assert flagged >= 3
    records = store.read_stream(stream_of(mid))
    assert recheck_match(records, mid) == ([], [])
    rulings = list_rulings(store, mid)
    assert [r.type for r in rulings] == ["match.flag-fall"] * len(rulings) and len(rulings) >= 3
    assert all(set(r.facts) == {"player", "control", "turn_started_at", "flag_fell_at", "turn_us"} for r in rulings)
    assert refold_all(store)[1] == []  # `verify`'s full re-fold


def test_a_move_limits_extra_time_given_while_a_seat_waits_is_for_its_next_turn(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, None, move_limit="30s")
    first = to_act(svc, mid)
    waiting = next(p for p in PLAYERS if p != first)
    clock.add_time(store, mid, waiting, "15s", by="td1", reason="a long call to make")
    assert remaining(store, mid)[waiting] == 45_000
    while to_act(svc, mid) != waiting:
        now.us += 5 * S
        move(svc, mid)
    now.us += 40 * S
    assert remaining(store, mid)[waiting] == 5_000 and clock.apply_due(svc, mid) == []
    move(svc, mid)  # the turn ends: the extra time is spent
    assert remaining(store, mid)[waiting] == 30_000


#: the time penalty each game's rules page states (§Clocks): how the totals move when the first seat's flag falls
PENALTIES = {
    "uxinjo": lambda flagged, others: {flagged: -2, **dict.fromkeys(others, 1)},  # pays 1 to each other seat
    "hakamo": lambda flagged, others: {flagged: -7},  # what resigning the lowest contract (13) costs
    "laugavatnsmanni": lambda flagged, others: {flagged: -1},
    "svoi-kozyri": lambda flagged, others: {flagged: 1},  # one more deal lost
}


def expected_penalty(game: str, flagged: str, others: list[str]) -> dict[str, int]:
    """The four games' penalties as their rules pages state them; another game's as the
    contract says (``Game.flag_penalty`` in its own score, paid to each other seat in a
    zero-sum game, a loss counted up in a game won with a low total)."""
    if game in PENALTIES:
        return PENALTIES[game](flagged, others)
    g = get_game(game)
    if g.zero_sum_scores:
        return {flagged: -g.flag_penalty * len(others), **dict.fromkeys(others, g.flag_penalty)}
    return {flagged: g.flag_penalty if g.low_totals_win else -g.flag_penalty}


@pytest.mark.parametrize("game", every_game.games())
def test_a_penalised_flag_fall_moves_the_totals_by_the_games_penalty_and_an_overturn_gives_it_back(
        store, now, game):
    from kartludo.app.audit.recheck import recheck_match
    from kartludo.app.audit.rulings import appeal, decide
    from kartludo.app.audit.trail import resolve_ruling
    from kartludo.app.matches.refold import refold_all
    from kartludo.engine import match as aggregate

    svc = MatchService(store)
    names = every_game.players(game, PLAYERS)
    mid = svc.create(game, names, seed=21, also=clock.setting(clock.control_of("1m", None, "bot-penalty")))
    svc.deal(mid)
    now.at(61)
    [(_, rec)] = clock.sweep(svc)[:1]
    ruling = rec.event
    flagged = names[ruling.seat]
    expected = expected_penalty(game, flagged, [p for p in names if p != flagged])
    assert ruling.effect["consequence"] == "bot-penalty" and ruling.effect["penalty"] == expected
    assert "time penalty: " in ruling.effect["text"]

    records = store.read_stream(stream_of(mid))
    at = next(i for i, r in enumerate(records) if r.version == rec.version)
    before = aggregate.fold(mid, records[:at])
    after = aggregate.fold(mid, records[:at + 1])
    totals = before.game.view(before.state, ALL)["totals"]
    moved = {p: after.game.view(after.state, ALL)["totals"][p] - totals[p] for p in names}
    assert moved == {p: expected.get(p, 0) for p in names}  # the ruling alone moves the totals, exactly

    assert recheck_match(records, mid) == ([], [])
    assert refold_all(store)[1] == []
    standing = svc.load(mid)
    shown = standing.game.view(standing.state, ALL)["totals"]
    record = resolve_ruling(store, f"{mid}/{ruling.ruling_id}")
    assert record.effect["penalty"] == expected  # the audit trail shows what it cost
    appeal(store, record, flagged, "the clock ran while the server was down")
    decide(store, record, "td1", "overturn", "a server fault")
    given_back = svc.load(mid)
    back = given_back.game.view(given_back.state, ALL)["totals"]
    assert {p: back[p] - shown[p] for p in names} == {p: -expected.get(p, 0) for p in names}
    assert recheck_match(store.read_stream(stream_of(mid)), mid) == ([], [])
    assert refold_all(store)[1] == []


def test_a_flag_fall_without_a_penalty_moves_no_total_and_on_flag_needs_a_clock(store, now):
    svc = MatchService(store)
    mid = hakamo_on_clock(svc, "1m")
    totals = svc.load(mid).game.view(svc.load(mid).state, ALL)["totals"]
    now.at(61)
    [(_, rec)] = clock.sweep(svc)
    player = rec.event.facts["player"]
    assert rec.event.effect == {"consequence": "bot", "text": f"the heuristic bot plays {player}'s turn"}
    m = svc.load(mid)
    assert m.game.view(m.state, ALL)["totals"] == totals
    with pytest.raises(InvalidInput, match="--on-flag bot-penalty says what a flag fall does: it needs a clock"):
        clock.control_of(None, None, "bot-penalty", on_flag_given=True)
    with pytest.raises(InvalidInput, match="--on-flag 'concede' is not a flag-fall consequence: bot "):
        clock.control_of("5m", None, "concede")


def test_a_clock_asked_for_before_its_match_exists_counts_once_it_does(store, now):
    """Whether a match runs on a clock is read once per store and kept, but nothing is
    kept for a match not created yet (a duplicate board's id is derived: it may be asked
    for first): once created on a clock, its clock reads and its flag falls."""
    svc = MatchService(store)
    mid = "feedc0ffee00"
    clocks = clock.Clocks(store)
    assert clocks.reading(mid) is None and clock.apply_due(svc, mid) == []
    svc.create_once("hakamo", PLAYERS, seed=11, match_id=mid, actor="cli",
                    also=clock.setting(clock.control_of("1m", None)))
    svc.deal(mid)
    assert clocks.reading(mid) is not None
    now.at(61)
    assert [r.type for r in clock.apply_due(svc, mid)][:1] == ["match.flag-fall"]
