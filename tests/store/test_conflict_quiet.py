"""An ordinary concurrency conflict on PostgreSQL is quiet: psycopg logs nothing
(it used to log "error ignored terminating …: pipeline aborted" on the user's
stderr when a concurrent writer's row made an append's pipelined COMMIT fail)."""

from __future__ import annotations

import logging
import threading

import pytest

from kartludo.events.match import MatchCreated
from kartludo.store import ConcurrencyConflict, EventStore
from kartludo.store.database import create_engine, upgrade


@pytest.mark.postgres
def test_concurrent_appends_conflict_without_psycopg_warnings(pg_url, caplog):
    upgrade(create_engine(pg_url))
    stores = [EventStore.open(pg_url) for _ in range(6)]
    event = MatchCreated(game="uxinjo", ruleset="uxinjo-1", players=["ann", "bob", "cy"])
    outcomes: list[str] = []
    lock = threading.Lock()

    def append(store: EventStore, version: int) -> None:
        try:
            store.append("match-quiet", [event], version)
            result = "ok"
        except ConcurrencyConflict:
            result = "conflict"
        with lock:
            outcomes.append(result)

    caplog.set_level(logging.WARNING, logger="psycopg")
    try:
        for version in range(20):  # six writers race for each version
            threads = [threading.Thread(target=append, args=(s, version)) for s in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert outcomes.count("ok") == 20 and outcomes.count("conflict") == 100
        assert stores[0].stream_version("match-quiet") == 20
        assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []
        # every connection came back clean: the next append on each works
        for i, s in enumerate(stores):
            s.append(f"match-after-{i}", [event], 0)
    finally:
        for s in stores:
            s.close()
