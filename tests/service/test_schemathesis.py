"""Property-based API tests: schemathesis against the served OpenAPI document (no
500s, every response matches the document: status, content type, schema), and
hypothesis's hostile bodies, paths and parameters (never a 5xx, nothing written)."""

from __future__ import annotations

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from serving import bearer

from kartludo.app.matches.pipeline import MatchService

CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, status_code_conformance]
#: the live stream never ends by itself: it has its own tests
SKIP = {"/matches/{match_id}/stream"}
#: how long one request may take (s): what a hung request is, not how fast a busy machine
#: answers (schemathesis' default, 10 s, failed a run on a loaded 2-core machine)
REQUEST_TIMEOUT = 600


def call(case, headers) -> None:
    """One generated request, checked, waited for as long as it takes (``REQUEST_TIMEOUT``)."""
    case.call_and_validate(headers=headers, checks=CHECKS, timeout=REQUEST_TIMEOUT)


def ready(client, *paths: str) -> None:
    """Readiness, not a clock: the app answers these (its read models brought up to
    date, the match folded) before any generated request is timed."""
    for path in ("/games", "/matches", "/standings", "/audit", *paths):
        assert client.get(path).status_code == 200, path


def test_api_conforms_to_its_openapi_document(client, store, td_token):
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    svc.deal(mid)
    ready(client, f"/matches/{mid}/state")
    schema = schemathesis.openapi.from_asgi("/schema/openapi.json", client.app)
    operations = [r.ok() for r in schema.get_all_operations()]
    tested = 0
    for operation in operations:
        if operation.path in SKIP:
            continue
        strategies = [operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)]
        if "{match_id}" in operation.path:  # the real match too, not only made-up ids
            strategies.append(operation.as_strategy(path_parameters={"match_id": mid}))
        for strategy in strategies:

            @given(case=strategy)
            @settings(max_examples=10, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            def run(case) -> None:
                for headers in ({}, bearer(td_token)):
                    call(case, headers)

            run()
        tested += 1
    assert tested == len(operations) - len(SKIP) >= 14


def test_a_slow_answer_is_waited_for_not_timed_out(client, monkeypatch):
    """A busy machine answers slowly: a request slower than schemathesis' own read
    timeout (here shrunk to 50 ms, the request made to take 300 ms) is still checked."""
    import time

    import schemathesis.transport.requests as transport

    from kartludo.projections import queries

    monkeypatch.setattr(transport, "DEFAULT_RESPONSE_TIMEOUT", 0.05)
    listed = queries.list_matches

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return listed(*args, **kwargs)

    monkeypatch.setattr(queries, "list_matches", slow)
    schema = schemathesis.openapi.from_asgi("/schema/openapi.json", client.app)
    call(schema["/matches"]["GET"].Case(), {})


# --- hostile bodies -------------------------------------------------------------------
JSON_LEAVES = (st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
               | st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30])
               | st.floats(allow_nan=False) | st.text(max_size=50) | st.sampled_from(["\x00", "a\x00b", "x" * 5000]))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=20)
FIELDS = ["game", "players", "seed", "options", "series", "command_id", "deck", "verb", "args", "reason",
          "decision"]
SHAPED = st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=6)
RAW = st.one_of(
    st.integers(min_value=1, max_value=3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=3000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.binary(max_size=200),
    st.sampled_from([b"", b"\x00", b'{"game": "uxinjo\x00"}', b"\xff\xfe{}", b'{"seed": 1e999}',
                     b'{"seed": 99999999999999999999999999999}', b"null", b'"x"', b"[]", b"{" * 100_000]),
)
CONTENT_TYPES = st.sampled_from([None, "application/json", "application/json; charset=utf-8", "text/plain",
                                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                 "application/json\x7f", "", "*/*"])


def test_hostile_bodies_are_refused_with_a_4xx_and_write_nothing(client, store, td_token):
    """Deep nesting, huge numbers, NULs, wrong types and wrong content types, on every
    endpoint that takes a body: never a 5xx, and a refused request writes nothing."""
    from scenarios import foul_deal

    svc = MatchService(store)
    created = client.post("/matches", json={"game": "uxinjo", "players": ["ann", "bob", "cy"], "seed": 1,
                                            "auto_deal": False},
                          headers=bearer(td_token)).json()
    mid = created["match"]
    foul_deal(svc, mid, 0)
    seat = created["tokens"]["bob"]
    urls = ["/matches", f"/matches/{mid}/deals", f"/matches/{mid}/commands", f"/audit/{mid}/uxinjo-d1-Or/appeal",
            f"/audit/{mid}/uxinjo-d1-Or/decide", "/matches/no%00such/commands", f"/matches/{mid}/nosuch"]

    @given(url=st.sampled_from(urls), token=st.sampled_from([td_token, td_token, seat, seat, None, "kt_\x00"]),
           body=st.one_of(SHAPED.map(lambda d: json.dumps(d).encode()), JSON_VALUES.map(lambda v: json.dumps(v)
                                                                                         .encode()), RAW),
           content_type=st.one_of(st.just("application/json"), st.just("application/json"), CONTENT_TYPES))
    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def run(url, token, body, content_type) -> None:
        headers = {**bearer(token)} if token and "\x00" not in token else {}
        if content_type is not None:
            headers["Content-Type"] = content_type
        before = store.head_position()
        r = client.post(url, content=body, headers=headers)
        assert r.status_code < 500, (url, body[:200], content_type, r.status_code, r.text[:300])
        if r.status_code >= 400:
            assert r.json()["error"], r.text
            assert store.head_position() == before, (url, body[:200])

    run()


@pytest.mark.parametrize("path", [
    "/matches/%00/state", "/matches/a%00b/events", "/matches/x/events?after=99999999999999999999999",
    "/matches/x/events?after=-1", "/matches/x/replay?deal=99999999999999999999", "/matches/x/stream?after=1e400",
    "/static/%00", "/static/css/%00kartludo.css", "/ui/replay/%00", "/audit/%00/%00", "/series/%00",
    "/standings?game=%00", "/matches?game=" + "x" * 5000,
])
def test_hostile_paths_and_parameters_are_4xx(client, path):
    r = client.get(path)
    assert 400 <= r.status_code < 500, (path, r.status_code, r.text[:200])
    assert r.json()["error"]


def test_a_server_error_is_logged_with_its_traceback_and_answered_without_internals(client, td_token, monkeypatch,
                                                                                     caplog):
    import logging

    from kartludo.projections import queries

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals: the hand is R5 G7")

    monkeypatch.setattr(queries, "list_matches", broken)
    with caplog.at_level(logging.ERROR, logger="kartludo.service.errors"):
        r = client.get("/matches")
    assert r.status_code == 500 and r.json() == {
        "type": "/schema#problem-server-error", "title": "Internal server error", "status": 500,
        "detail": "internal server error (logged on the server)",
        "error": "internal server error (logged on the server)", "rule": None,
    }
    assert r.headers["content-type"] == "application/problem+json"
    assert "R5" not in r.text
    logged = [rec for rec in caplog.records if rec.name == "kartludo.service.errors"]
    assert logged and "GET /matches failed" in logged[0].getMessage()
    assert logged[0].exc_info and "secret internals" in str(logged[0].exc_info[1])
