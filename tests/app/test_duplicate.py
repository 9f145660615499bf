"""Duplicate play (issue 39), on every backend and for every installed game: an event of
3 tables x 4 boards played to its end by bots (a different bot at each table, so the
tables differ), every table dealt the same decks from the same seats, the travellers'
matchpoints as ``compare`` gives them, a board hidden from every player until the last
table has played it, and the standings the same when folded afresh and after the log is
exported into another database."""

from __future__ import annotations

import random

import every_game
import pytest

from kartludo.app.duplicate.boards import after_command, create_duplicate, load_duplicate
from kartludo.app.duplicate.scores import standings, traveller
from kartludo.app.matches.fairness import commitment
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.app.reading.reader import MatchReader
from kartludo.engine.base import ALL, PUBLIC, BadCommand
from kartludo.engine.match import NotAllowed
from kartludo.engine.registry import get_game
from kartludo.events.match import DealStarted, MatchClosed

TABLES = 3
BOARDS = 4


@pytest.fixture
def svc(store):
    return MatchService(store)


def tables_of(game: str) -> list[list[str]]:
    n = len(every_game.players(game, smallest=True))
    return [[f"p{t}{s}" for s in range(n)] for t in range(1, TABLES + 1)]


def bots(game: str) -> dict[int, object]:
    """Table 1 the heuristic bot, table 2 the erratic one, table 3 random play early on."""
    return {1: every_game.heuristic(game), 2: every_game.Erratic(game, share=0.3),
            3: every_game.Erratic(game, share=0.6)}


def step(svc: MatchService, dup_id: str, table: int, bot, rng: random.Random) -> bool:
    """One command at ``table``'s board in play; False when it has nothing to play."""
    dup = load_duplicate(svc.store, dup_id)
    latest = dup.latest(table)
    assert latest is not None
    match = svc.load(latest[1])
    if match.over:
        return False
    seat = match.game.to_act(match.state)[0]
    legal = match.game.legal_commands(match.state, seat)
    svc.execute(match.id, svc.play(bot.choose(match.game, match.state, seat, legal, rng)),
                actor=match.players[seat])
    after_command(svc, match.id)
    return True


def play_board(svc: MatchService, dup_id: str, table: int, bot, rng: random.Random) -> None:
    """Play ``table``'s board in play to its end (the next board starts by itself)."""
    board = load_duplicate(svc.store, dup_id).latest(table)
    for _ in range(20_000):
        if not step(svc, dup_id, table, bot, rng) or load_duplicate(svc.store, dup_id).latest(table) != board:
            return
    pytest.fail("a board did not end")


@pytest.mark.parametrize("game", every_game.games())
def test_an_event_played_to_its_end(svc, store, game):
    rng = random.Random(game)
    dup_id = create_duplicate(svc, game, tables_of(game), BOARDS, seed=11, options=every_game.short_options(game),
                              actor="td")
    players = {t: bots(game)[t] for t in range(1, TABLES + 1)}
    for _ in range(BOARDS):
        for table in range(1, TABLES + 1):
            play_board(svc, dup_id, table, players[table], rng)
    dup = load_duplicate(store, dup_id)
    assert len(dup.started) == TABLES * BOARDS
    for board in range(1, BOARDS + 1):
        decks, dealers = [], []
        for table in range(1, TABLES + 1):
            records = store.read_stream(stream_of(dup.started[table, board]))
            deals = [r.event for r in records if isinstance(r.event, DealStarted)]
            assert len(deals) == 1, "a board is one deal"
            assert isinstance(records[-1].event, MatchClosed) or svc.load(dup.started[table, board]).over
            decks.append(deals[0].deck)
            dealers.append(deals[0].dealer)
            assert records[0].event.players == dup.seats(table, board)
        assert len(set(dealers)) == 1, "the same seat deals the board at every table"
        assert all(d == dup.created.decks[board - 1] for d in decks), "every table got the board's deck"
        k = board - 1
        assert commitment(dup.created.salts[k], dup.created.decks[k]) == dup.created.commitments[k]
    # the travellers: each seat's matchpoints as compare gives them, summing to T x (T - 1) per seat
    game_ = get_game(game)
    for board in range(1, BOARDS + 1):
        t = traveller(svc, dup, board, td=False)
        assert t.complete and len(t.tables) == TABLES and t.deck == dup.created.decks[board - 1]
        for seat in range(len(dup.created.tables[0])):
            at_seat = [tr.results[seat] for tr in t.tables]
            assert sum(r.matchpoints for r in at_seat) == TABLES * (TABLES - 1)
            for r in at_seat:
                mine = r.score if not game_.low_totals_win else -r.score
                others = [o.score if not game_.low_totals_win else -o.score for o in at_seat if o is not r]
                assert r.matchpoints == sum(2 if mine > o else 1 if mine == o else 0 for o in others)
    ranked = standings(svc, dup)
    assert ranked.boards_complete == BOARDS
    assert sorted(r.player for r in ranked.rows) == sorted(p for t in dup.created.tables for p in t)
    assert all(r.boards == BOARDS and r.top == BOARDS * 2 * (TABLES - 1) for r in ranked.rows)
    assert [r.percentage for r in ranked.rows] == sorted((r.percentage for r in ranked.rows), reverse=True)
    # the duplicate projection rebuilt from the log: the same standings and travellers
    from kartludo.projections.duplicate import DuplicateProjection
    from kartludo.projections.runner import reset

    travellers = [traveller(svc, dup, b, td=True) for b in range(1, BOARDS + 1)]
    reset(store, DuplicateProjection())
    fresh = MatchService(store)
    assert standings(fresh, load_duplicate(store, dup_id)) == ranked
    assert [traveller(fresh, dup, b, td=True) for b in range(1, BOARDS + 1)] == travellers


def test_a_board_stays_hidden_until_every_table_has_played_it(svc, store):
    game = "uxinjo"
    dup_id = create_duplicate(svc, game, tables_of(game), 2, seed=3, actor="td")
    rng = random.Random(1)
    bot = every_game.heuristic(game)
    play_board(svc, dup_id, 1, bot, rng)  # table 1 has played board 1; tables 2 and 3 have not
    dup = load_duplicate(store, dup_id)
    done, running = dup.started[1, 1], dup.started[2, 1]
    deck = dup.created.decks[0]
    reader = MatchReader(svc)
    assert svc.load(done).over
    for seat in range(3):
        # table 1's seats: their own board reads as a running deal (the deck and the other hands hidden)
        events = reader.events(done, seat, td=False)
        [dealt] = [e for e in events if e.type == "match.deal-started"]
        assert dealt.payload["deck"] != deck and "??" in dealt.payload["deck"]
        state = reader.state(svc.load(done), seat)
        assert set(state["hands"]) == {svc.load(done).players[seat]}
        with pytest.raises(NotAllowed):  # an every-hand replay of it
            reader.replay(done, lambda m, s=seat: s, td=False).view("all")
        # nor another table's board in play
        with pytest.raises(NotAllowed):
            reader.events(running, PUBLIC, td=False)
    with pytest.raises(NotAllowed):  # the public reads neither
        reader.events(done, PUBLIC, td=False)
    with pytest.raises(NotAllowed):
        reader.state(svc.load(done), PUBLIC)
    with pytest.raises(NotAllowed):  # nor the traveller
        traveller(svc, dup, 1, td=False)
    assert standings(svc, dup).boards_complete == 0
    # a TD sees everything now
    assert any(e.payload.get("deck") == deck for e in reader.events(done, ALL) if e.type == "match.deal-started")
    assert [tr.table for tr in traveller(svc, dup, 1, td=True).tables] == [1]
    # the last tables play board 1: it is public
    play_board(svc, dup_id, 2, bot, rng)
    with pytest.raises(NotAllowed):
        traveller(svc, load_duplicate(store, dup_id), 1, td=False)
    play_board(svc, dup_id, 3, bot, rng)
    dup = load_duplicate(store, dup_id)
    fresh = MatchReader(svc)
    for reader_ in (reader, fresh):
        [dealt] = [e for e in reader_.events(done, PUBLIC, td=False) if e.type == "match.deal-started"]
        assert dealt.payload["deck"] == deck
    assert traveller(svc, dup, 1, td=False).deck == deck
    assert standings(svc, dup).boards_complete == 1
    # board 2 is under way at every table: hidden again
    with pytest.raises(NotAllowed):
        reader.events(dup.started[1, 2], PUBLIC, td=False)


@pytest.mark.parametrize(("tables", "boards", "message"), [
    ([["ann", "bob", "cy"]], 2, "2 to 64 tables"),
    ([["ann", "bob", "cy"], ["dee", "eve", "fay"]], 0, "1 to 64 boards"),
    ([["ann", "bob", "cy"], ["dee", "eve"]], 2, "needs 3 players"),
    ([["ann", "bob", "cy"], ["ann", "eve", "fay"]], 2, "ann at more than one"),
])
def test_a_bad_event_is_refused_and_writes_nothing(svc, store, tables, boards, message):
    with pytest.raises(BadCommand, match=message):
        create_duplicate(svc, "uxinjo", tables, boards)
    assert store.streams("duplicate-") == [] and store.streams("match-") == []


def test_unequal_tables_are_refused(svc, store):
    with pytest.raises(BadCommand, match="as many players"):
        create_duplicate(svc, "svoi-kozyri", [["ann", "bob", "cy"], ["dee", "eve"]], 2)
    assert store.streams("duplicate-") == []


def test_boards_are_not_league_matches(svc, store):
    """A board is scored across tables: it has no league result (standings would show a
    board's result before every table has played it), and its listed row names its event."""
    from kartludo.projections.matches import MatchesProjection
    from kartludo.projections.queries import final_results, list_matches
    from kartludo.projections.runner import reset

    game = "uxinjo"
    dup_id = create_duplicate(svc, game, tables_of(game), 2, seed=3, actor="td")
    rng = random.Random(2)
    for table in range(1, TABLES + 1):
        play_board(svc, dup_id, table, every_game.heuristic(game), rng)
    boards = set(load_duplicate(store, dup_id).started.values())
    assert sum(svc.load(m).over for m in boards) == TABLES  # board 1 played everywhere
    for _ in range(2):  # as followed, and rebuilt from the log
        listed = {r["match"]: r for r in list_matches(store)}
        assert boards <= set(listed) and {listed[m]["series"] for m in boards} == {f"duplicate-{dup_id}"}
        assert [r for r in final_results(store) if r.match_id in boards] == []
        reset(store, MatchesProjection())


def test_a_decision_on_a_played_board_reaches_its_traveller_and_the_standings(k, store):
    """A TD's adjusted score on a board every table has played moves that board's
    traveller and the event's standings, as the projection follows it and rebuilt."""
    from kartludo.projections.duplicate import DuplicateProjection
    from kartludo.projections.queries import rulings_where
    from kartludo.projections.runner import reset

    svc = MatchService(store)
    game = "uxinjo"
    dup_id = create_duplicate(svc, game, tables_of(game), 1, seed=5, actor="td")
    rng = random.Random(5)
    for table in range(1, TABLES + 1):  # random play fouls: a ruling to decide
        play_board(svc, dup_id, table, every_game.Erratic(game, share=1.0), rng)
    dup = load_duplicate(store, dup_id)
    boards = [dup.started[t, 1] for t in range(1, TABLES + 1)]
    ruled = next((r for m in boards for r in rulings_where(store, match_id=m)), None)
    assert ruled is not None, "random play made no ruling on the board"
    table = boards.index(ruled.match) + 1
    before = traveller(svc, dup, 1, td=False)
    players = svc.load(ruled.match).players
    shown = {r.player: r.score for r in before.tables[table - 1].results}
    award = ",".join(f"{p}={shown[p] + 2 if i == 0 else shown[p] - 2 if i == 1 else shown[p]:+d}"
                     for i, p in enumerate(players))
    k("audit", "appeal", ruled.id, "--by", ruled.player, "--reason", "the board")
    k("token", "new", "--role", "td", "--label", "td-mia")
    k("audit", "decide", ruled.id, "--by", "td-mia", "--adjust-scores", award, "--reason", "12C1(c)")
    for _ in range(2):  # as followed, then rebuilt from the log
        after = traveller(MatchService(store), load_duplicate(store, dup_id), 1, td=False)
        old = {r.player: r.score for r in before.tables[table - 1].results}
        new = {r.player: r.score for r in after.tables[table - 1].results}
        decided = svc.load(ruled.match)
        assert new == {p: int(t) for p, t in decided.game.view(decided.state, PUBLIC)["totals"].items()}
        assert new != old, "the award moved the board's scores"
        assert [[r.score for r in t.results] for t in after.tables if t.table != table] == \
            [[r.score for r in t.results] for t in before.tables if t.table != table], "the others' scores stand"
        ranked = standings(MatchService(store), load_duplicate(store, dup_id))
        assert {r.player: r.matchpoints for r in ranked.rows} == \
            {r.player: r.matchpoints for t in after.tables for r in t.results}
        reset(store, DuplicateProjection())


def test_a_board_asked_for_before_it_starts_is_a_board_once_it_has(svc, store):
    """A board's match id is derived (anyone may work it out), and a process remembers
    which matches are boards: asked before the board starts, nothing is kept, so once it
    starts it is a board (its state says so, and it stays hidden until every table has
    played it), in the same long-lived reader."""
    from kartludo.app.duplicate.boards import board_link, board_match_id
    from kartludo.app.reading.presenters import board_json

    game = "uxinjo"
    dup_id = create_duplicate(svc, game, tables_of(game), 2, seed=3, actor="td")
    reader = MatchReader(svc)
    second = board_match_id(dup_id, 1, 2)
    assert board_link(store, second) is None and board_json(svc, second) is None
    assert not reader.boards.withheld(second)
    play_board(svc, dup_id, 1, every_game.heuristic(game), random.Random(1))  # table 1 starts board 2
    assert load_duplicate(store, dup_id).started[1, 2] == second
    link = board_link(store, second)
    assert link is not None and (link.board, link.table) == (2, 1)
    assert board_json(svc, second) == {"duplicate": dup_id, "board": 2, "table": 1, "boards": 2}
    assert reader.boards.withheld(second)  # tables 2 and 3 have not played board 2
    with pytest.raises(NotAllowed, match="still to be played at another table"):
        reader.state(svc.load(second), PUBLIC)
    assert reader.state(svc.load(second), 0)["board"]["board"] == 2
