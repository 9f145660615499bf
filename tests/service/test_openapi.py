"""The API as an integrator reads it (issue 44): the OpenAPI document describes every
operation (its handler's docstring), names each one once (two were "Asynccallable"),
and types every success body; `/matches` and `/audit` filter as `match list` and
`audit list` do; and a query parameter a route does not take is a 400 naming it,
never ignored (`/matches?plyer=ann` listed everyone's matches)."""

from __future__ import annotations

import re

import pytest
from scenarios import foul_deal, win_match
from serving import bearer

from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService

#: the operations whose success body is one of service/schemas.py's or the library's
#: Structs (a component), not an untyped object
TYPED = {("get", "/matches"), ("post", "/matches"), ("get", "/audit"), ("get", "/audit/{match_id}/{ruling_id}"),
         ("post", "/audit/{match_id}/{ruling_id}/appeal"), ("post", "/audit/{match_id}/{ruling_id}/decide"),
         ("get", "/series"), ("get", "/series/{series_id}"), ("get", "/games"), ("get", "/me"),
         ("get", "/matches/{match_id}/moves"), ("get", "/matches/{match_id}/table"),
         ("get", "/matches/{match_id}/events"), ("get", "/matches/{match_id}/replay"),
         ("post", "/matches/{match_id}/deals"), ("post", "/matches/{match_id}/commands")}
METHODS = ("get", "post", "put", "patch", "delete")


def _operations(doc):
    return [(method, path, op) for path, item in doc["paths"].items() for method, op in item.items()
            if method in METHODS]


def _component(schema) -> str | None:
    ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
    return ref.rsplit("/", 1)[-1] if ref else None


def test_every_operation_is_described_named_once_and_typed(client):
    doc = client.get("/schema/openapi.json").json()
    operations = _operations(doc)
    assert len(operations) >= 30
    ids = [op["operationId"] for _, _, op in operations]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for method, path, op in operations:
        where = f"{method.upper()} {path}"
        assert "callable" not in op["operationId"].lower(), (where, op["operationId"])
        assert op.get("description", "").strip(), f"{where} has no description"
        ok = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        assert ok, f"{where} documents no success"
        for code, response in ok.items():
            content = response.get("content", {})
            assert content, (where, code)
            for media, body in content.items():
                assert body.get("schema"), f"{where} {code} {media}: an empty schema"
                if media == "text/event-stream":
                    assert body["schema"] == {"type": "string"}
        if (method, path) in TYPED:
            [schema] = [b["schema"] for r in ok.values() for b in r["content"].values()]
            name = _component(schema)
            assert name and doc["components"]["schemas"][name].get("properties"), (where, schema)
        assert "400" in op["responses"], f"{where} does not document the unknown-parameter 400"


def test_a_twice_registered_handler_runs_once_wrapped(client, td_token):
    """The first of two handlers of a path was wrapped twice in Litestar's thread runner
    (its OpenAPI name "Asynccallable", a Response it returned lost): each runs once."""
    from litestar.utils.sync import AsyncCallable

    for route in client.app.routes:
        for handler, _ in getattr(route, "route_handler_map", {}).values():
            fn = handler.fn
            assert not (isinstance(fn, AsyncCallable) and isinstance(fn.func, AsyncCallable)), handler


@pytest.fixture
def league(client, store, td_token):
    """ann, bob, cy in two Uxinjo matches (one finished, one with two rulings, one of
    them appealed), dan and eve in a Svoi Kozyri match of a series."""
    svc = MatchService(store)
    won = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    win_match(svc, won, 0)
    fouled = svc.create("uxinjo", ["cy", "bob", "ann"], seed=2)
    foul_deal(svc, fouled, 0)
    foul_deal(svc, fouled, 1)
    series = create_series(store, "svoi-kozyri", ["dan", "eve"], 90)
    other = svc.create("svoi-kozyri", None, seed=3, series=series)
    rulings = client.get("/audit").json()
    assert [r["player"] for r in rulings] == ["cy", "bob"]
    r = client.post(f"/audit/{rulings[1]['id']}/appeal", json={"reason": "one set was there"},
                    headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return {"won": won, "fouled": fouled, "other": other, "series": series, "rulings": [r["id"] for r in rulings]}


def _listed(client, path, **params):
    r = client.get(path, params=params)
    assert r.status_code == 200, (path, params, r.text)
    return [row["match"] if path == "/matches" else row["id"] for row in r.json()]


def test_matches_filter_as_match_list_does(client, league):
    won, fouled, other = league["won"], league["fouled"], league["other"]
    assert _listed(client, "/matches") == [won, fouled, other]
    assert _listed(client, "/matches", player="ann") == [won, fouled]
    assert _listed(client, "/matches", player="dan") == [other]
    assert _listed(client, "/matches", player="zed") == []
    assert _listed(client, "/matches", game="uxinjo") == [won, fouled]
    assert _listed(client, "/matches", status="finished") == [won]
    assert _listed(client, "/matches", status="in_progress", player="bob") == [fouled]
    assert _listed(client, "/matches", series=league["series"][:6]) == [other]  # any unique prefix
    assert _listed(client, "/matches", player="ann", limit=1) == [won]  # filters and pages together
    assert client.get("/matches", params={"series": "nosuch"}).status_code == 404
    assert client.get("/matches", params={"status": "done"}).status_code == 422


def test_audit_filters_as_audit_list_does(client, league):
    cy_s, bob_s = league["rulings"]
    assert _listed(client, "/audit", player="bob") == [bob_s]
    assert _listed(client, "/audit", status="appealed") == [bob_s]
    assert _listed(client, "/audit", status="standing") == [cy_s]
    assert _listed(client, "/audit", game="uxinjo") == [cy_s, bob_s]
    assert _listed(client, "/audit", game="svoi-kozyri") == []
    assert _listed(client, "/audit", match=league["fouled"][:5]) == [cy_s, bob_s]
    assert _listed(client, "/audit", match=league["won"]) == []
    assert _listed(client, "/audit", player="cy", status="appealed") == []
    assert client.get("/audit", params={"status": "lost"}).status_code == 422
    assert client.get("/audit", params={"game": "chess"}).status_code == 422


def test_an_unknown_query_parameter_is_a_400_naming_it(client, league, store, td_token):
    r = client.get("/matches", params={"plyer": "ann"})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["detail"].startswith("unknown query parameter 'plyer': GET /matches takes ")
    assert "player" in body["detail"] and body["type"] == "/schema#problem-unknown-parameter"
    assert r.headers["content-type"] == "application/problem+json"
    two = client.get("/audit?matchh=x&statuss=y&matchh=z").json()["detail"]
    assert two.startswith("unknown query parameters 'matchh', 'statuss'"), two
    # every operation, with or without a token: refused before it runs, nothing written
    doc = client.get("/schema/openapi.json").json()
    mid, ruling = league["fouled"], league["rulings"][0].split("/")[1]
    for method, path, _ in _operations(doc):
        url = re.sub(r"\{match_id\}", mid, path).replace("{ruling_id}", ruling)
        url = re.sub(r"\{[a-z_]+\}", "x", url)
        for headers in ({}, bearer(td_token)):
            before = store.head_position()
            r = client.request(method.upper(), url, params={"nosuch": "1"}, headers=headers)
            assert r.status_code == 400, (method, url, r.status_code, r.text[:200])
            assert "unknown query parameter 'nosuch'" in r.json()["detail"], (method, url)
            assert store.head_position() == before
    # what a route declares still passes, a dependency's as well as its own
    assert client.get(f"/matches/{mid}/state", params={"legal": "shapes"}, headers=bearer(td_token)).status_code \
        == 200
    assert client.get(f"/matches/{mid}/events", params={"after": 0, "limit": 2}).status_code == 200
    # the pages read their own URLs in the browser: not checked
    assert client.get("/ui/audit", params={"match": mid, "status": "appealed"}).status_code == 200
