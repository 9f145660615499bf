"""PostgreSQL going away under a service that 16 clients play on over HTTP, on the
project's own primary and standby (``tests/replica_cluster.py``; the shared server is
never touched). One test runs the three outages in turn on one pair (making a pair
takes some 20 s; the failover, which consumes it, comes last), each on a fresh schema
and a fresh ``kartludo serve``:

1. the server restarted by a fast shutdown (sessions cut, a clean stop);
2. the server restarted by an immediate shutdown (no shutdown checkpoint: crash
   recovery on the next start);
3. the primary stopped at once and its synchronous standby promoted
   (``synchronous_standby_names``, ``synchronous_commit = on``: the setting under which
   the README promises that a failover loses nothing acknowledged), the service's
   database address moved to it (as DNS or a virtual IP is).

Each time (``faultlib.through_outage``): every command the service acknowledged is in
the log afterwards, none twice (the clients retry with the same ``command_id``); while
the database is away every answer is a 503 with ``Retry-After`` (no 500, no traceback
in the service's output); the service recovers by itself (no 5xx for a request sent
5 s after the database is back); live streams reconnect with ``Last-Event-ID`` and
miss nothing; ``verify`` passes.
"""

from __future__ import annotations

import time

import pytest
from faultlib import Forwarder, Server, through_outage, wait_for
from replica_cluster import fresh_schema

pytestmark = [pytest.mark.faults, pytest.mark.postgres]


def _restart(cluster, mode: str):
    def outage() -> tuple[float, float, float]:
        cluster.stop_primary(mode)
        down = time.monotonic()
        time.sleep(1.0)  # the clients meet a server that is down
        up = time.monotonic()
        cluster.start_primary()
        return down, up, time.monotonic()

    return outage


def _failover(cluster, forwarder: Forwarder):
    def outage() -> tuple[float, float, float]:
        cluster.stop_primary("immediate")
        forwarder.cut()
        down = time.monotonic()
        cluster.promote_standby()
        up = time.monotonic()
        forwarder.point(cluster.standby_port)
        return down, up, time.monotonic()

    return outage


def test_restarts_and_a_failover_under_16_clients(pg_pair, tmp_path, td_token, counts):
    cluster = pg_pair
    for mode in ("fast", "immediate"):
        with fresh_schema(cluster) as schema:
            url = cluster.primary_url(schema)
            with Server(url, tmp_path) as server:
                through_outage(server, url, td_token(url), counts, _restart(cluster, mode), name=f"{mode} restart")

    cluster.primary_sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    cluster.primary_sql("SELECT pg_reload_conf()")
    wait_for(lambda: cluster.primary_sql("SELECT sync_state FROM pg_stat_replication") == [("sync",)],
             "the standby to be synchronous", cap=30)
    with fresh_schema(cluster) as schema:
        forwarder = Forwarder(cluster.primary_port)
        try:
            td = td_token(cluster.primary_url(schema))
            with Server(cluster.url(forwarder.port, schema), tmp_path) as server:
                # the log is read where it now lives: the promoted standby
                through_outage(server, cluster.standby_url(schema), td, counts, _failover(cluster, forwarder),
                               name="failover")
        finally:
            forwarder.close()
