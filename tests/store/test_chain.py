"""The global chain and its seals, on every backend: what each one catches."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sample_events import Noted

from kartludo.store import chain
from kartludo.store.integrity import verify
from kartludo.store.keys import key_path, new_key


def notes(*ns: int) -> list[Noted]:
    return [Noted(n=n) for n in ns]


def run(store, sql: str, **params) -> None:
    with store.engine.begin() as conn:
        conn.execute(sa.text(sql), params)


def fill(store) -> None:
    store.append("match-a", notes(1, 2), 0, command_id="a1")
    store.append("match-b", notes(1), 0, command_id="b1")
    store.append("match-a", notes(3), 2, command_id="a2")
    store.append("tokens", notes(9), 0, command_id="t1")


def test_the_chain_covers_every_settled_event_and_verifies(store):
    fill(store)
    head = chain.extend(store)
    assert head.events == 5 and head.position == store.head_position()
    assert chain.extend(store) == head  # nothing new: nothing chained twice
    store.append("match-b", notes(2), 1)
    report = verify(store)
    assert report.ok, report.problems
    assert (report.chained, report.unchained, report.commands) == (5, 1, 5)
    assert chain.extend(store).events == 6 and verify(store).unchained == 0


def test_a_streams_newest_event_deleted_is_named(store):
    fill(store)
    chain.extend(store)
    pos = store.read_stream("match-a")[-1].position
    run(store, "DELETE FROM events WHERE position = :p", p=pos)
    run(store, "DELETE FROM commands WHERE command_id = 'a2'")
    report = verify(store)
    assert not report.ok and report.problems[0].position == pos
    assert "missing" in report.problems[0].reason and "match-a version 3" in str(report.problems[0])


def test_a_deleted_commands_row_is_named(store):
    fill(store)
    run(store, "DELETE FROM commands WHERE command_id = 'b1'")
    report = verify(store)
    assert "commands row ('match-b', 'b1')" in str(report.problems[0])
    assert "apply again" in report.problems[0].reason


def test_seals_sign_the_head_and_a_rewrite_no_longer_reaches_it(store):
    fill(store)
    key = new_key(key_path())
    sealed, new = chain.seal(store, key)
    assert new and sealed.signed_by(key.public) and sealed.events == 5
    assert chain.seal(store, key) == (sealed, False)
    assert verify(store, trusted=[key.public]).ok
    # the attacker rewrites the chain entries to agree with a deleted event: the seal catches it
    pos = store.read_stream("tokens")[-1].position
    run(store, "DELETE FROM events WHERE position = :p", p=pos)
    run(store, "DELETE FROM commands WHERE command_id = 't1'")
    run(store, "DELETE FROM chain WHERE position = :p", p=pos)
    report = verify(store, stop_at_first=False)
    assert any(p.place.startswith("seal #1") for p in report.problems), report.problems
    other = new_key(key_path().with_name("other.key"))
    report = verify(store, trusted=[other.public])
    assert "not trusted" in report.problems[0].reason


@pytest.mark.parametrize("every", [3])
def test_automatic_chaining_every_n_events(db_url, every, monkeypatch):
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    monkeypatch.setenv("KARTLUDO_SEAL_EVERY", str(every))
    upgrade(create_engine(db_url))
    store = EventStore.open(db_url)
    try:
        new_key(key_path())
        store.append("s", notes(1, 2), 0)
        assert chain.chain_head(store).events == 0 and not chain.seals(store)
        store.append("s", notes(3), 2)
        # sealed right after the append that reached 3 events (without waiting: on a shared
        # PostgreSQL another session's transaction may hold the horizon below them a while)
        assert len(chain.seals(store)) == 1 and chain.chain_head(store).events <= 3
        assert chain.extend(store).events == 3
    finally:
        store.close()


@pytest.mark.parametrize("field, value, says", [
    ("stream", "s" * 201, "stream id is 201 characters long"),
    ("stream", "match-\x00", "stream id contains a NUL"),
    ("actor", "a" * 201, "actor is 201 characters long"),
    ("actor", "td\x00", "actor contains a NUL"),
    ("command", "c" * 201, "command id is 201 characters long"),
    ("command", "c\x00", "command id contains a NUL"),
    ("actor", "bad\udcff", "actor is not valid UTF-8"),
])
def test_values_postgresql_refuses_are_refused_on_every_backend(store, field, value, says):
    from kartludo.store.errors import InvalidValue

    args = {"stream": "s", "actor": "", "command": None, field: value}
    with pytest.raises(InvalidValue, match=says):
        store.append(args["stream"], notes(1), 0, actor=args["actor"], command_id=args["command"])
    assert store.count_events() == 0
    store.append("s" * 200, notes(1), 0, actor="a" * 200, command_id="c" * 200)  # the limit itself is fine


def test_every_deal_end_is_sealed_when_the_key_is_there(db_url, monkeypatch):
    """Each `kartludo act` is a process of its own, so a count of events kept in memory
    never reaches N there: a deal's end (and a match's) is sealed on its own. Every game,
    played one command per append; on SQLite (one writer: every event settles at once)
    each deal's last event is exactly a seal's position."""
    import random

    from kartludo.app.matches.pipeline import MatchService
    from kartludo.app.matches.simulate import pick_bots, play_match
    from kartludo.engine.registry import all_games
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    monkeypatch.setenv("KARTLUDO_SEAL_EVERY", "1000000")
    upgrade(create_engine(db_url))
    key = new_key(key_path())
    store = EventStore.open(db_url)
    try:
        svc = MatchService(store)
        rng = random.Random(3)
        ends: list[int] = []
        for game in all_games():
            players = [f"p{i}" for i in range(game.player_counts[0])]
            match_id, _, _ = play_match(svc, game.name, players, pick_bots(game.name, None), rng, batch=False,
                                        max_deals=4)
            records = store.read_stream(f"match-{match_id}")
            ends += [a.position for a, b in zip(records[1:], records[2:]) if b.type == "match.deal-started"]
            ends.append(records[-1].position)  # the fourth deal's end (or the match's)
        sealed = {s.position for s in chain.seals(store)}
        assert sealed and all(s.key == key.public for s in chain.seals(store))
        if store.backend == "sqlite":
            assert [p for p in ends if p not in sealed] == []
        else:  # another session's transaction may hold the horizon below a deal's end a while
            assert max(sealed) <= store.head_position()
        assert verify(store, trusted=[key.public]).ok
    finally:
        store.close()
