"""The cost of the global chain and its seals on appends: the same appends with
automatic chaining off (as before issue 18), chaining every N events without a key,
and chaining plus an Ed25519 seal every N events; on SQLite and PostgreSQL, rounds
alternated so machine noise hits all alike, best of each. Prints events/s and each
ratio to "off"; then the cost of one `kartludo seal` and of `verify` of the result.

    python bench/chain.py [--streams 300] [--per-stream 100] [--every 1000] [--no-pg]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from urllib.parse import quote

from kartludo.store import chain
from kartludo.store.database import create_engine, upgrade
from kartludo.store.eventstore import EventStore
from kartludo.store.integrity import verify
from kartludo.store.keys import new_key
from store import make_batches  # bench/store.py: the same events and batching

MODES = ("off", "chain", "seal")


def run(url: str, batches, mode: str, every: int, key_file: str) -> tuple[float, float, float]:
    """(append seconds, one final seal's seconds, verify seconds) in one mode."""
    os.environ["KARTLUDO_SEAL_EVERY"] = "0" if mode == "off" else str(every)
    os.environ["KARTLUDO_KEY"] = key_file if mode == "seal" else key_file + ".absent"
    upgrade(create_engine(url))
    store = EventStore.open(url)
    t0 = time.perf_counter()
    for sid, start, events in batches:
        store.append(sid, events, start, actor="bench")
    t_append = time.perf_counter() - t0
    t0 = time.perf_counter()
    chain.seal(store, _load(key_file))
    t_seal = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = verify(store, decode_payloads=False)
    t_verify = time.perf_counter() - t0
    assert report.ok, report.problems
    store.close()
    return t_append, t_seal, t_verify


def _load(path: str):
    from pathlib import Path

    from kartludo.store.keys import load_key

    return load_key(Path(path))


def pg_schema(base: str) -> tuple[str, str]:
    import psycopg

    schema = "kb_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema, f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={schema}')}"


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=300)
    ap.add_argument("--per-stream", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pg", default=os.environ.get("KARTLUDO_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--no-pg", action="store_true")
    args = ap.parse_args()
    batches = make_batches(args.streams, args.per_stream, args.batch)
    total = args.streams * args.per_stream
    print(f"{total:,} events, {args.streams} streams x {args.per_stream}, {args.batch} per append, "
          f"chain/seal every {args.every}")
    backends = ["sqlite"] + ([] if args.no_pg else ["postgresql"])
    with tempfile.TemporaryDirectory() as tmp:
        key_file = os.path.join(tmp, "seal.key")
        new_key(__import__("pathlib").Path(key_file))
        for backend in backends:
            results: dict[str, list[tuple[float, float, float]]] = {m: [] for m in MODES}
            for i in range(args.rounds):
                for mode in MODES:
                    if backend == "sqlite":
                        results[mode].append(run(f"sqlite:///{tmp}/{mode}{i}.db", batches, mode, args.every,
                                                 key_file))
                    else:
                        schema, url = pg_schema(args.pg)
                        try:
                            results[mode].append(run(url, batches, mode, args.every, key_file))
                        finally:
                            drop_schema(args.pg, schema)
            off = min(r[0] for r in results["off"])
            for mode in MODES:
                best = min(r[0] for r in results[mode])
                seal_s = min(r[1] for r in results[mode])
                verify_s = min(r[2] for r in results[mode])
                print(f"{backend:10} {mode:5} append {total / best:10,.0f} ev/s  ratio to off {off / best:5.2f}   "
                      f"final seal {seal_s * 1000:7.1f} ms   verify {total / verify_s:9,.0f} ev/s")


if __name__ == "__main__":
    main()
