"""Store benchmark: kartludo's append and read+decode against the raw driver.

On each backend, in one run: append 100,000 small events (1,000 streams x 100, ten
events per call, as a match service would) through ``EventStore.append``, then read
them all back decoded; and the same work with the bare driver: the same rows, each
batch's payloads encoded and hash-chained inside the timing as the store does, and its
command record, inserted with ``sqlite3`` / psycopg ``executemany``, one commit per
batch; ``SELECT`` of the same columns and the same msgspec decoding. kartludo runs twice:
as configured by default (the global tamper-evident chain extended every
``KARTLUDO_SEAL_EVERY`` events), against a raw arm that extends the same chain with the
bare driver (``RawChain``: the same reads and chain inserts), and without the chain
(``KARTLUDO_SEAL_EVERY=0``) against the raw arm without it, so the chain's cost shows
apart from the store's. What the raw arm does not do is the
store's own guarantees: checking, inside the transaction, that a batch follows its
stream's stored head (migration 0013), and the connection pool. Prints events/s and the
ratio kartludo / raw of the medians over the rounds (target >= 0.85).

    python bench/store.py [--streams 1000] [--per-stream 100] [--pg URL | --no-pg]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import statistics
import tempfile
import time
import uuid

import msgspec

from kartludo.events.base import Event, encode, register_union
from kartludo.store.chain import DEFAULT_SEAL_EVERY as SEAL_EVERY
from kartludo.store.database import create_engine, upgrade
from kartludo.store.eventstore import _COLUMNS, GENESIS, EventStore, chain_hash


class BenchTick(Event, frozen=True, kw_only=True, tag="bench.tick"):
    seat: int
    card: str
    n: int


register_union(BenchTick)


def make_batches(streams: int, per_stream: int, batch: int) -> list[tuple[str, int, list[BenchTick]]]:
    out = []
    for s in range(streams):
        sid = f"match-{s:06d}"
        for start in range(0, per_stream, batch):
            out.append((sid, start, [BenchTick(seat=i % 3, card="R7", n=start + i) for i in range(batch)]))
    # interleave streams as concurrent matches would
    out.sort(key=lambda b: (b[1], b[0]))
    return out


def raw_rows(batches):
    """The exact rows kartludo writes (same bytes; the baseline makes them in its timing)."""
    rows_per_batch = []
    heads = {}
    for sid, start, events in batches:
        prev = heads.get(sid, GENESIS)
        rows = []
        cid = uuid.uuid4().hex
        for i, e in enumerate(events):
            payload = encode(e)
            v = start + i + 1
            h = chain_hash(prev, sid, v, "bench.tick", 1, 0, "bench", cid, payload)
            rows.append((sid, v, "bench.tick", 1, payload, 0, "bench", cid, prev, h))
            prev = h
        heads[sid] = prev
        rows_per_batch.append(rows)
    return rows_per_batch


def bench_kartludo(url: str, batches, *, chain: bool = True) -> tuple[float, float, int]:
    store = EventStore.open(url)
    if not chain:
        store.sealer = None  # as KARTLUDO_SEAL_EVERY=0 opens it
    t0 = time.perf_counter()
    for sid, start, events in batches:
        store.append(sid, events, start, actor="bench")
    t_append = time.perf_counter() - t0
    t0 = time.perf_counter()
    n = 0
    for _rec in store.iter_all(0, 5000):
        n += 1
    t_read = time.perf_counter() - t0
    store.close()
    return t_append, t_read, n


_COMMAND_SQL = "INSERT INTO commands (stream_id, command_id, first_version, last_version) VALUES ({0}, {0}, {0}, {0})"


class RawChain:
    """The global chain as the store extends it (``store.chain._extend``), by the bare
    driver: every ``SEAL_EVERY`` events, the events since the chain's end read back,
    linked and inserted as chain rows, in a transaction of their own."""

    def __init__(self, mark: str) -> None:
        self.count, self.position, self.n, self.head = 0, 0, 0, GENESIS
        self.select = (f"SELECT position, stream_id, version, hash FROM events WHERE position > {mark} "
                       "ORDER BY position")
        self.insert = f"INSERT INTO chain (position, n, stream_id, version, hash) VALUES ({', '.join([mark] * 5)})"

    def appended(self, cur, commit, n: int) -> None:
        self.count += n
        if self.count < SEAL_EVERY:
            return
        self.count = 0
        cur.execute(self.select, (self.position,))
        entries = []
        head, count = self.head, self.n
        for pos, sid, version, digest in cur.fetchall():
            head = hashlib.sha256(head + pos.to_bytes(8, "big") + bytes(digest)).digest()
            count += 1
            entries.append((pos, count, sid, version, head))
        if entries:
            cur.executemany(self.insert, entries)
            self.position, self.n, self.head = entries[-1][0], count, head
        commit()


def bench_raw_sqlite(path: str, batches, *, chain: bool = False) -> tuple[float, float, int]:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    sql = f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    command_sql = _COMMAND_SQL.format("?")
    chainer = RawChain("?") if chain else None
    t0 = time.perf_counter()
    for rows in raw_rows(batches):
        conn.executemany(sql, rows)
        conn.execute(command_sql, (rows[0][0], rows[0][7], rows[0][1], rows[-1][1]))
        conn.commit()
        if chainer:
            chainer.appended(conn.cursor(), conn.commit, len(rows))
    t_append = time.perf_counter() - t0
    dec = msgspec.msgpack.Decoder(BenchTick)
    t0 = time.perf_counter()
    n = 0
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT position, {_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT 5000", (last,)
        ).fetchall()
        if not rows:
            break
        for row in rows:
            dec.decode(row[5])
            n += 1
        last = rows[-1][0]
    t_read = time.perf_counter() - t0
    conn.close()
    return t_append, t_read, n


def bench_raw_pg(url: str, batches, *, chain: bool = False) -> tuple[float, float, int]:
    import psycopg

    conn = psycopg.connect(url)
    # the position as kartludo's schema wants it (transaction id << 16 + row index):
    # the same work, done by the bare driver
    sql = (f"INSERT INTO events (position, {_COLUMNS}) VALUES ((pg_current_xact_id()::text::bigint << 16) + %s, "
           "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
    command_sql = _COMMAND_SQL.format("%s")
    chainer = RawChain("%s") if chain else None
    t0 = time.perf_counter()
    with conn.cursor() as cur:
        for rows in raw_rows(batches):
            cur.executemany(sql, [(i, *row) for i, row in enumerate(rows)])
            cur.execute(command_sql, (rows[0][0], rows[0][7], rows[0][1], rows[-1][1]))
            conn.commit()
            if chainer:
                chainer.appended(cur, conn.commit, len(rows))
    t_append = time.perf_counter() - t0
    dec = msgspec.msgpack.Decoder(BenchTick)
    t0 = time.perf_counter()
    n = 0
    last = 0
    with conn.cursor() as cur:
        while True:
            cur.execute(
                f"SELECT position, {_COLUMNS} FROM events WHERE position > %s ORDER BY position LIMIT 5000", (last,)
            )
            rows = cur.fetchall()
            if not rows:
                break
            for row in rows:
                dec.decode(row[5])
                n += 1
            last = rows[-1][0]
    t_read = time.perf_counter() - t0
    conn.close()
    return t_append, t_read, n


def median(runs):
    """The median append and the median read over the rounds (each a (append s, read s, n)):
    the figure issue 41 asks for, steadier than the best on a shared machine."""
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2]


def report(backend, total, k, r, label="kartludo", raw_label="raw"):
    ka, kr, kn = k
    ra, rr, rn = r
    assert kn == rn == total, (kn, rn, total)
    for what, k_s, r_s in (("append", ka, ra), ("read", kr, rr)):
        print(f"{backend:10} {what:7} {label:18} {total / k_s:10,.0f} ev/s   {raw_label:11} {total / r_s:10,.0f} ev/s"
              f"   ratio {r_s / k_s:5.2f}")


def pg_database(base_url: str, name: str):
    import psycopg

    admin = psycopg.connect(base_url, autocommit=True)
    admin.execute(f"DROP DATABASE IF EXISTS {name}")
    admin.execute(f"CREATE DATABASE {name}")
    admin.close()
    return base_url.rsplit("/", 1)[0] + "/" + name


def drop_pg(base_url: str, name: str) -> None:
    import psycopg

    admin = psycopg.connect(base_url, autocommit=True)
    admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--per-stream", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--pg", default=os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--rounds", type=int, default=3, help="alternate kartludo/raw this many times; the median of each")
    args = ap.parse_args()
    batches = make_batches(args.streams, args.per_stream, args.batch)
    total = args.streams * args.per_stream
    print(f"{total:,} events, {args.streams:,} streams x {args.per_stream}, {args.batch} per append")
    ks, ns, rs, cs = [], [], [], []
    for _ in range(args.rounds):  # alternate, so machine noise hits both alike; the median of each
        with tempfile.TemporaryDirectory() as tmp:
            k_path, n_path, r_path, c_path = (os.path.join(tmp, f) for f in ("k.db", "n.db", "r.db", "c.db"))
            for path in (r_path, c_path):
                upgrade(create_engine(f"sqlite:///{path}"))
            ks.append(bench_kartludo(f"sqlite:///{k_path}", batches))
            ns.append(bench_kartludo(f"sqlite:///{n_path}", batches, chain=False))
            rs.append(bench_raw_sqlite(r_path, batches))
            cs.append(bench_raw_sqlite(c_path, batches, chain=True))
    report("sqlite", total, median(ks), median(cs), raw_label="raw + chain")
    report("sqlite", total, median(ns), median(rs), "kartludo, no chain")
    if not args.no_pg:
        names = ("kartludo_bench_k", "kartludo_bench_n", "kartludo_bench_r", "kartludo_bench_c")
        try:
            k_url, n_url, r_url, c_url = (pg_database(args.pg, n) for n in names)
        except Exception as exc:  # noqa: BLE001 - a benchmark may run without PostgreSQL
            print(f"postgresql skipped: {str(exc).splitlines()[0]}")
            return
        ks, ns, rs, cs = [], [], [], []
        try:
            for i in range(args.rounds):
                if i:
                    k_url, n_url, r_url, c_url = (pg_database(args.pg, n) for n in names)
                for url in (k_url, n_url, r_url, c_url):
                    upgrade(create_engine(url))
                ks.append(bench_kartludo(k_url, batches))
                ns.append(bench_kartludo(n_url, batches, chain=False))
                rs.append(bench_raw_pg(r_url, batches))
                cs.append(bench_raw_pg(c_url, batches, chain=True))
                for n in names:
                    drop_pg(args.pg, n)
            report("postgresql", total, median(ks), median(cs), raw_label="raw + chain")
            report("postgresql", total, median(ns), median(rs), "kartludo, no chain")
        finally:
            for n in names:
                drop_pg(args.pg, n)


if __name__ == "__main__":
    main()
