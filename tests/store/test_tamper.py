"""The tamper suite: an attacker with write access to the database (not to the seal
key, not to the head the TD wrote down) edits a league's log every way issue 18 lists,
on SQLite and on PostgreSQL; ``verify`` must fail every time and its first problem
must name the place (stream, version, position; or the seal, head or commands row).

Each case changes the database, verifies, and restores every table from a copy made
once. The counts (tried / caught) are printed per backend.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
import sqlalchemy as sa
from league import League, root_conftest, stream_of

from kartludo.store import chain
from kartludo.store.database import create_engine, upgrade
from kartludo.store.eventstore import GENESIS, EventStore, chain_hash
from kartludo.store.integrity import verify
from kartludo.store.keys import new_key

TABLES = ("events", "commands", "chain", "seals")
EVENT_COLUMNS = ("position", "stream_id", "version", "type", "schema_version", "payload", "recorded_at_us", "actor",
                 "command_id", "prev_hash", "hash")
#: bits tried in turn when an edited integer collides with a unique key: one byte changes
INT_BITS = (1, 1 << 8, 1 << 16, 1 << 24)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def attacked(request, tmp_path_factory):
    """A league built once per backend, sealed, with a copy of every table to restore from."""
    tmp = tmp_path_factory.mktemp("tamper")
    shared = root_conftest(request.config)
    PG_URL = shared.PG_URL
    schema = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'league.db'}"
    else:
        shared.require_pg()
        import psycopg

        schema = "kt_" + uuid.uuid4().hex[:12]
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}options={quote(f'-csearch_path={schema}')}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        mp.setenv("KARTLUDO_SEAL_EVERY", "400")  # automatic chaining (no key there: chain only)
        upgrade(create_engine(url))
        store = EventStore.open(url)
        league = League(store, new_key(tmp / "seal.key"))
    with store.engine.begin() as conn:
        for table in TABLES:
            conn.execute(sa.text(f"CREATE TABLE bk_{table} AS SELECT * FROM {table}"))
    yield request.param, league
    store.close()
    if schema:
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


class Db:
    """The attacker's hands: plain SQL on the database, outside the store."""

    def __init__(self, conn: sa.Connection) -> None:
        self.conn = conn

    def q(self, sql: str, **params: Any) -> list[Any]:
        return list(self.conn.execute(sa.text(sql), params))

    def x(self, sql: str, **params: Any) -> None:
        self.conn.execute(sa.text(sql), params)

    def stream(self, sid: str) -> list[Any]:
        return self.q(f"SELECT {', '.join(EVENT_COLUMNS)} FROM events WHERE stream_id = :s ORDER BY version", s=sid)

    def delete_events(self, positions: list[int]) -> None:
        """Delete events and make the commands table agree, as a careful attacker would."""
        for pos in positions:
            row = self.q("SELECT stream_id, version, command_id FROM events WHERE position = :p", p=pos)[0]
            self.x("DELETE FROM events WHERE position = :p", p=pos)
            sid, version, cid = row
            left = self.q("SELECT min(version), max(version) FROM events WHERE stream_id = :s AND command_id = :c",
                          s=sid, c=cid)[0]
            if left[0] is None:
                self.x("DELETE FROM commands WHERE stream_id = :s AND command_id = :c", s=sid, c=cid)
            else:
                self.x("UPDATE commands SET first_version = :a, last_version = :b WHERE stream_id = :s AND "
                       "command_id = :c", a=left[0], b=left[1], s=sid, c=cid)

    def rechain_stream(self, sid: str) -> None:
        """Recompute a stream's hash chain from its rows as they now are."""
        prev = GENESIS
        for pos, s, ver, tag, sv, payload, rec, actor, cid, _prev, _hash in self.stream(sid):
            digest = chain_hash(prev, s, ver, tag, sv, rec, actor, cid, bytes(payload))
            self.x("UPDATE events SET prev_hash = :a, hash = :b WHERE position = :p", a=prev, b=digest, p=pos)
            prev = digest

    def rechain_global(self) -> None:
        """Recompute the global chain over the events as they now are, up to its old end."""
        end = self.q("SELECT max(position) FROM chain")[0][0]
        self.x("DELETE FROM chain")
        head, n = GENESIS, 0
        for pos, sid, ver, digest in self.q("SELECT position, stream_id, version, hash FROM events "
                                            "WHERE position <= :e ORDER BY position", e=end):
            head, n = chain.link(head, pos, bytes(digest)), n + 1
            self.x("INSERT INTO chain (position, n, stream_id, version, hash) VALUES (:p, :n, :s, :v, :h)",
                   p=pos, n=n, s=sid, v=ver, h=head)

    def reseal(self, key) -> None:
        """Replace every seal with one over the rewritten chain, signed with another key."""
        for seq, position in self.q("SELECT seq, position FROM seals ORDER BY seq"):
            row = self.q("SELECT n, hash FROM chain WHERE position <= :p ORDER BY position DESC LIMIT 1", p=position)
            n, head = (row[0][0], bytes(row[0][1])) if row else (0, GENESIS)
            at = 1_800_000_000_000_000
            signature = key.sign(chain.seal_message(seq, position, n, head, at))
            self.x("UPDATE seals SET events = :n, head = :h, sealed_at_us = :t, key = :k, signature = :g "
                   "WHERE seq = :q", n=n, h=head, t=at, k=key.public, g=signature, q=seq)


def flipped(value: Any, bit: int = 1) -> Any:
    """The value with one byte changed."""
    if isinstance(value, bool) or value is None:
        raise TypeError(value)
    if isinstance(value, int):
        return value ^ bit
    if isinstance(value, str):
        return chr(ord(value[0]) ^ 1) + value[1:] if value else "x"
    data = bytearray(bytes(value))
    data[len(data) // 2] ^= 1
    return bytes(data)


Case = tuple[str, Callable[[Db], None], Callable[[str], bool]]


def where(*needles: str) -> Callable[[str], bool]:
    return lambda text: any(n in text for n in needles)


def named(sid: str, version: int, position: int) -> Callable[[str], bool]:
    """The first problem names the event: its position, or its stream and version (the
    edited id itself, or a neighbour's problem that names this version as missing or
    out of order)."""
    import re

    version_named = re.compile(rf"\bversion {version}\b")
    return lambda text: (f"(position {position})" in text
                         or (sid in text or flipped(sid) in text) and bool(version_named.search(text)))


def cases(league: League, db: Db, tmp_key) -> list[Case]:
    """Every tampering, with what the first problem must name."""
    out: list[Case] = []
    streams = {
        "series match": stream_of(league.series_match), "finished match": stream_of(league.finished),
        "other match": stream_of(league.other), "running match": stream_of(league.running),
        "series": f"series-{league.series}", "tokens": "tokens",
    }
    rows = {name: db.stream(sid) for name, sid in streams.items()}
    everything = db.q("SELECT position, stream_id, version FROM events ORDER BY position")
    first_seal_at = league.first_seal.position

    # --- deletions -------------------------------------------------------------------
    for name, stream in rows.items():
        pos, sid, ver = stream[-1][0], stream[-1][1], stream[-1][2]
        out.append((f"delete the newest event of the {name}", lambda d, p=pos: d.delete_events([p]),
                    where(f"{sid} version {ver} (position {pos})")))
        if len(stream) > 4:
            newest3 = [r[0] for r in stream[-3:]]
            out.append((f"delete the newest 3 events of the {name}", lambda d, n=newest3: d.delete_events(n),
                        where(f"{sid} version {stream[-3][2]} (position {newest3[0]})")))
        if len(stream) > 2:
            mid = stream[len(stream) // 2]
            out.append((f"delete an event in the middle of the {name}",
                        lambda d, p=mid[0]: d.delete_events([p]), where(f"stream {sid} version {mid[2] + 1}")))
    for name in ("finished match", "series", "running match", "tokens"):
        stream = rows[name]
        out.append((f"delete the whole {name}", lambda d, s=stream: d.delete_events([r[0] for r in s]),
                    where(f"stream {stream[0][1]} version 1 (position {stream[0][0]})")))
    for k in (1, 5, 40):
        newest = [r[0] for r in everything[-k:]]
        out.append((f"delete the newest {k} events overall", lambda d, n=newest: d.delete_events(n),
                    where(f"(position {newest[0]})")))

        def covered(d: Db, n: list[int] = newest) -> None:
            d.delete_events(n)
            d.x("DELETE FROM chain WHERE position >= :p", p=n[0])
            d.x("DELETE FROM seals WHERE seq > 1")
        out.append((f"delete the newest {k} events overall, their chain entries and the newest seal", covered,
                    where("written-down head")))
    after_seal = [r[0] for r in everything if r[0] > first_seal_at]

    def truncate(d: Db) -> None:
        d.delete_events(after_seal)
        d.x("DELETE FROM chain WHERE position > :p", p=first_seal_at)
        d.x("DELETE FROM seals WHERE seq > 1")
    out.append(("truncate after the first seal (chain and seals too)", truncate, where("written-down head")))
    out.append(("truncate after the first seal (events only)", lambda d: d.delete_events(after_seal),
                where(f"(position {after_seal[0]})")))
    revocation = next(r for r in rows["tokens"] if r[3] == "token.revoked")
    out.append(("delete the token revocation", lambda d: d.delete_events([revocation[0]]),
                where(f"tokens version {revocation[2]} (position {revocation[0]})")))

    # --- order -----------------------------------------------------------------------
    top = everything[-1][0]
    for name in ("finished match", "tokens", "series"):
        pos = rows[name][-1][0]
        out.append((f"move the newest event of the {name} to the end",
                    lambda d, p=pos: d.x("UPDATE events SET position = :t WHERE position = :p", t=top + 1000, p=p),
                    where(f"(position {pos})")))
    mid = rows["other match"][len(rows["other match"]) // 2]
    out.append(("move an event in the middle of a match to the end",
                lambda d: d.x("UPDATE events SET position = :t WHERE position = :p", t=top + 1000, p=mid[0]),
                where(f"stream {mid[1]} version")))
    a, b = rows["series"][-1][0], rows["finished match"][-1][0]

    def swap(d: Db) -> None:
        d.x("UPDATE events SET position = :t WHERE position = :p", t=top + 1000, p=a)
        d.x("UPDATE events SET position = :t WHERE position = :p", t=a, p=b)
        d.x("UPDATE events SET position = :t WHERE position = :p", t=b, p=top + 1000)
    out.append(("swap two streams' newest events in the global order", swap,
                where(f"(position {a})", f"(position {b})")))

    # --- edits with the stream's chain recomputed -----------------------------------------
    target = rows["finished match"][len(rows["finished match"]) // 3]
    sid = target[1]

    def edit_actor(d: Db) -> None:
        d.x("UPDATE events SET actor = 'eve' WHERE position = :p", p=target[0])
        d.rechain_stream(sid)
    created = rows["other match"][0]

    def edit_players(d: Db) -> None:
        event = msgspec.msgpack.decode(bytes(created[5]))
        event["players"] = list(reversed(event["players"]))
        d.x("UPDATE events SET payload = :b WHERE position = :p", b=msgspec.msgpack.encode(event), p=created[0])
        d.rechain_stream(created[1])
    out.append(("edit an actor, stream chain recomputed", edit_actor, where(f"(position {target[0]})")))
    out.append(("edit a match's players, stream chain recomputed", edit_players, where(f"(position {created[0]})")))

    def and_global(edit: Callable[[Db], None]) -> Callable[[Db], None]:
        def run(d: Db) -> None:
            edit(d)
            d.rechain_global()
        return run

    def and_resealed(edit: Callable[[Db], None]) -> Callable[[Db], None]:
        def run(d: Db) -> None:
            edit(d)
            d.rechain_global()
            d.reseal(tmp_key)
        return run
    out.append(("edit an actor, stream and global chains recomputed", and_global(edit_actor), where("seal #")))
    out.append(("edit players, stream and global chains recomputed", and_global(edit_players), where("seal #")))
    out.append(("edit an actor, chains recomputed, seals re-signed with another key", and_resealed(edit_actor),
                where("seal #1", "not trusted")))
    out.append(("delete a stream's newest event, chains recomputed", and_global(
        lambda d: d.delete_events([rows["series"][-1][0]])), where("seal #")))
    out.append(("delete the token revocation, chains recomputed, seals re-signed",
                and_resealed(lambda d: d.delete_events([revocation[0]])), where("not trusted")))

    # --- commands --------------------------------------------------------------------
    commands = db.q("SELECT stream_id, command_id, first_version, last_version FROM commands "
                    "WHERE stream_id = :s ORDER BY first_version", s=streams["finished match"])
    csid, ccid = commands[2][0], commands[2][1]
    key = "stream_id = :s AND command_id = :c"
    out.append(("delete a commands row", lambda d: d.x(f"DELETE FROM commands WHERE {key}", s=csid, c=ccid),
                where(f"commands row ({csid!r}, {ccid!r})")))
    out.append(("add a commands row no event carries", lambda d: d.x(
        "INSERT INTO commands VALUES (:s, 'k1:forged', 1, 1)", s=csid), where("commands row", "'k1:forged'")))
    tokens_cmd = db.q("SELECT stream_id, command_id FROM commands WHERE stream_id = 'tokens'")[-1]
    out.append(("delete the tokens stream's newest commands row", lambda d: d.x(
        f"DELETE FROM commands WHERE {key}", s=tokens_cmd[0], c=tokens_cmd[1]), where("commands row ('tokens'")))

    # --- seals -----------------------------------------------------------------------
    out.append(("delete the first seal", lambda d: d.x("DELETE FROM seals WHERE seq = 1"), where("seal #")))
    out.append(("delete every seal", lambda d: d.x("DELETE FROM seals"), where("written-down head")))

    # --- single-byte edits of every column ----------------------------------------------------
    samples = {"the first event": everything[0][0], "a match's middle event": target[0],
               "the tokens stream's newest event": rows["tokens"][-1][0], "the newest event": everything[-1][0]}
    for what, pos in samples.items():
        row = db.q(f"SELECT {', '.join(EVENT_COLUMNS)} FROM events WHERE position = :p", p=pos)[0]
        for column, value in zip(EVENT_COLUMNS, row):
            out.append((f"one byte of {column} of {what}", lambda d, c=column, v=value, p=pos: _edit(
                d, "events", c, v, "position = :k", p),
                named(row[1], row[2], pos)))
    for crow in (commands[0], commands[-1]):
        for column, value in zip(("stream_id", "command_id", "first_version", "last_version"), crow):
            out.append((f"one byte of commands.{column}", lambda d, c=column, v=value, r=crow: _edit(
                d, "commands", c, v, "stream_id = :k AND command_id = :k2", r[0], r[1]), where("commands row")))
    for cpos in (everything[3][0], first_seal_at):
        crow = db.q("SELECT position, n, stream_id, version, hash FROM chain WHERE position = :p", p=cpos)[0]
        for column, value in zip(("position", "n", "stream_id", "version", "hash"), crow):
            out.append((f"one byte of chain.{column} at position {cpos}", lambda d, c=column, v=value, p=cpos: _edit(
                d, "chain", c, v, "position = :k", p), where(f"(position {cpos})", "seal #")))
    for seq in (1, 2):
        srow = db.q("SELECT seq, position, events, head, sealed_at_us, key, signature FROM seals WHERE seq = :q",
                    q=seq)[0]
        for column, value in zip(("seq", "position", "events", "head", "sealed_at_us", "key", "signature"), srow):
            out.append((f"one byte of seals.{column} of seal #{seq}", lambda d, c=column, v=value, q=seq: _edit(
                d, "seals", c, v, "seq = :k", q), where("seal #", "written-down head")))
    return out


def _edit(d: Db, table: str, column: str, value: Any, condition: str, *key: Any) -> None:
    """Change one byte of one column of one row (another byte if it collides with a key)."""
    params = dict(zip(("k", "k2", "k3"), key))
    for bit in INT_BITS if isinstance(value, int) else (1,):
        new = flipped(value, bit)
        if isinstance(value, str) and value.startswith("k1:"):
            new = value[:-1] + chr(ord(value[-1]) ^ 1)  # keep a keyed command id keyed
        try:
            with d.conn.begin_nested():
                d.x(f"UPDATE {table} SET {column} = :v WHERE {condition}", v=new, **params)
            return
        except sa.exc.IntegrityError:
            continue
    raise AssertionError(f"no one-byte edit of {table}.{column} fits its keys")


def _snapshot_edits(sid: str, code: str, version: int, event_hash: bytes,
                    state: bytes) -> list[tuple[str, Callable[[Db], None]]]:
    """One-byte edits of every column of one snapshot row, and a careful one: a player
    renamed in the decoded state, encoded again."""
    key = "stream_id = :k AND code = :k2 AND version = :k3"
    edits: list[tuple[str, Callable[[Db], None]]] = [
        (f"one byte of snapshots.{column}", lambda d, c=column, v=value: _edit(
            d, "snapshots", c, v, key, sid, code, version))
        for column, value in zip(("stream_id", "code", "version", "event_hash", "state"),
                                 (sid, code, version, event_hash, state))]
    decoded = msgspec.msgpack.decode(bytes(state))
    decoded[0]["players"][0] = "mallory"
    renamed = msgspec.msgpack.encode(decoded)
    edits.append(("a player renamed in the state", lambda d: d.x(
        f"UPDATE snapshots SET state = :v WHERE {key}", v=renamed, k=sid, k2=code, k3=version)))
    return edits


def restore(store: EventStore) -> None:
    with store.engine.begin() as conn:
        for table in TABLES:
            conn.execute(sa.text(f"DELETE FROM {table}"))
            conn.execute(sa.text(f"INSERT INTO {table} SELECT * FROM bk_{table}"))


def test_every_tampering_is_caught_and_named(attacked, tmp_path, capsys):
    backend, league = attacked
    store = league.store
    trusted, heads = [league.key.public], [league.written_down]
    assert verify(store, trusted=trusted, heads=heads).ok
    with store.engine.connect() as conn:
        all_cases = cases(league, Db(conn), new_key(tmp_path / "attacker.key"))
    missed = []
    for name, tamper, names_place in all_cases:
        with store.engine.begin() as conn:
            tamper(Db(conn))
        try:
            report = verify(store, trusted=trusted, heads=heads)
        finally:
            restore(store)
        if report.ok:
            missed.append(f"{name}: not caught")
        elif not names_place(str(report.problems[0])):
            missed.append(f"{name}: caught, but the first problem does not name the place: {report.problems[0]}")
    assert verify(store, trusted=trusted, heads=heads).ok  # restored
    caught = len(all_cases) - sum(": not caught" in m for m in missed)
    with capsys.disabled():
        print(f"\ntamper suite on {backend}: {len(all_cases)} tried, {caught} caught, "
              f"{len(all_cases) - len(missed)} caught and named")
    assert not missed, "\n".join(missed)
    if os.environ.get("KARTLUDO_TAMPER_COUNTS"):
        with open(os.environ["KARTLUDO_TAMPER_COUNTS"], "a") as f:
            f.write(f"{backend}\t{len(all_cases)}\t{caught}\n")


def test_every_snapshot_edit_is_caught_or_ignored_by_every_reader(attacked, capsys):
    """The snapshots table is a cache outside every hash: `state`, replays and the
    service start folding from it. A one-byte edit of any column, or a careful edit of
    the state (a player renamed, re-encoded), must either be named by the snapshot check
    of `kartludo verify` or leave the row unusable, so that a load is still the fold of
    the events."""
    from kartludo.app.matches import snapshots as snaps
    from kartludo.app.matches.snapshots import check as check_snapshots
    from kartludo.engine import match as aggregate

    backend, league = attacked
    store = league.store
    for match_id in (league.series_match, league.finished, league.other):
        snaps.load(store, match_id)  # a cold load past a deal boundary writes a snapshot
    rows = store.select("SELECT stream_id, code, version, event_hash, state FROM snapshots ORDER BY stream_id, version")
    assert len({r[0] for r in rows}) >= 2, "the league's matches have snapshots to attack"
    assert check_snapshots(store) == (len(rows), [])

    tried = caught = 0
    missed = []
    for sid, code, version, event_hash, state in (rows[0], rows[-1]):
        edits = _snapshot_edits(sid, code, version, event_hash, state)
        for name, tamper in edits:
            tried += 1
            with store.engine.begin() as conn:
                tamper(Db(conn))
            try:
                count, problems = check_snapshots(store)
                match_id = sid.removeprefix("match-")
                try:
                    loaded = snaps.load(store, match_id)
                    truth = aggregate.fold(match_id, store.read_stream(sid))
                    same = loaded is not None and (loaded.state, loaded.closed) == (truth.state, truth.closed)
                except Exception:  # noqa: BLE001 - a load that fails shows nothing false either
                    same = False
            finally:
                with store.engine.begin() as conn:
                    conn.execute(sa.text("DELETE FROM snapshots"))
                    for row in rows:
                        conn.execute(sa.text("INSERT INTO snapshots (stream_id, code, version, event_hash, state) "
                                             "VALUES (:a, :b, :c, :d, :e)"), dict(zip("abcde", row)))
            if problems:
                caught += 1
                text = str(problems[0])  # the row as it now stands: its stream or version may be the edit
                if not (text.startswith("snapshot of ") and (sid in text or flipped(sid) in text)):
                    missed.append(f"{name} of {sid}@{version}: caught, not named: {problems[0]}")
            elif not same:
                missed.append(f"{name} of {sid}@{version}: a load shows what the events do not say, verify passes")
    with capsys.disabled():
        print(f"\nsnapshot tampering on {backend}: {tried} tried, {caught} caught by verify, "
              f"{tried - caught - len([m for m in missed if 'verify passes' in m])} left unused by every load")
    assert not missed, "\n".join(missed)


def test_every_read_model_edit_is_caught(attacked, capsys):
    """The read models (standings, series, the audit trail) sit beside the log outside
    every hash, and `standings` reads them: a one-byte edit of any column of a row of
    every projection table, a deleted row, and a checkpoint moved either way must each be
    named by the projection check of `kartludo verify`."""
    from kartludo.projections import all_projections, refresh
    from kartludo.projections.checks import check as check_projections
    from kartludo.projections.schema import checkpoints

    backend, league = attacked
    store = league.store
    refresh(store)
    tables = [t for p in all_projections() for t in p.tables]
    names = [t.name for t in tables] + [checkpoints.name]
    with store.engine.begin() as conn:
        for name in names:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS bkp_{name}"))
            conn.execute(sa.text(f"CREATE TABLE bkp_{name} AS SELECT * FROM {name}"))
    rows, problems = check_projections(store)
    assert rows > 0 and problems == []

    def edits() -> list[tuple[str, Callable[[Db], None]]]:
        out: list[tuple[str, Callable[[Db], None]]] = []
        with store.engine.connect() as conn:
            for table in tables:
                row = conn.execute(sa.select(table).order_by(*table.primary_key.columns).limit(1)).first()
                if row is None:
                    continue
                key_columns = [c.name for c in table.primary_key.columns]
                key = [getattr(row, c) for c in key_columns]
                condition = " AND ".join(f"{c} = :{k}" for c, k in zip(key_columns, ("k", "k2", "k3")))
                for column in table.columns:
                    value = getattr(row, column.name)
                    if value is None or isinstance(value, bool):
                        new = not value if isinstance(value, bool) else {str: "x", int: 1}[column.type.python_type]
                        out.append((f"{table.name}.{column.name} set to {new!r}", lambda d, t=table.name,
                                    c=column.name, v=new, w=condition, k=key: d.x(
                                        f"UPDATE {t} SET {c} = :v WHERE {w}", v=v, **dict(zip(("k", "k2", "k3"), k)))))
                    else:
                        out.append((f"one byte of {table.name}.{column.name}", lambda d, t=table.name,
                                    c=column.name, v=value, w=condition, k=key: _edit(d, t, c, v, w, *k)))
                out.append((f"a row of {table.name} deleted", lambda d, t=table.name, w=condition, k=key: d.x(
                    f"DELETE FROM {t} WHERE {w}", **dict(zip(("k", "k2", "k3"), k)))))
        head = store.head_position()
        out.append(("every checkpoint moved past the log's end", lambda d: d.x(
            "UPDATE projection_checkpoints SET position = :p", p=head + 1000)))
        out.append(("the matches checkpoint moved back one event", lambda d: d.x(
            "UPDATE projection_checkpoints SET position = (SELECT max(position) FROM events WHERE position < :p) "
            "WHERE name = 'matches'", p=head)))
        return out

    tried = 0
    missed = []
    for name, tamper in edits():
        tried += 1
        with store.engine.begin() as conn:
            tamper(Db(conn))
        try:
            _, problems = check_projections(store)
        finally:
            with store.engine.begin() as conn:
                for table in names:
                    conn.execute(sa.text(f"DELETE FROM {table}"))
                    conn.execute(sa.text(f"INSERT INTO {table} SELECT * FROM bkp_{table}"))
        if not problems:
            missed.append(f"{name}: not caught")
        elif not str(problems[0]).startswith(("projection table", "projection checkpoint")):
            missed.append(f"{name}: caught, not named: {problems[0]}")
    assert check_projections(store) == (rows, [])
    with capsys.disabled():
        print(f"\nread-model tampering on {backend}: {tried} tried, {tried - len(missed)} caught and named")
    assert tried >= 30 and not missed, "\n".join(missed)
