"""The API's conventions (issue 19): RFC 9457 problem details, 201 + Location on
creation, limit/after pagination with a `Link: rel="next"` header, API docs that work
offline; and the presenters (issue 16): the CLI and the service show a replay step alike."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner
from scenarios import foul_deal, foul_then_void_win
from serving import bearer

from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.main import cli

PLAYERS = ["ann", "bob", "cy"]
PROBLEM = {"type", "title", "status", "detail", "error", "rule"}


def _next(response) -> str | None:
    """The target of the response's `Link: <…>; rel="next"`, or None."""
    link = response.headers.get("link")
    if link is None:
        return None
    found = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert found, link
    return found.group(1)


def walk(client, url: str, headers: dict[str, str] | None = None) -> tuple[list, int]:
    """Every item of a paginated list, following `Link: rel="next"`; and how many pages."""
    items, pages = [], 0
    while url is not None:
        r = client.get(url, headers=headers or {})
        assert r.status_code == 200, r.text
        items += r.json()
        pages += 1
        url = _next(r)
        assert pages < 100, "the next links never end"
    return items, pages


@pytest.fixture
def created(client, td_token):
    r = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": 7, "auto_deal": False},
                    headers=bearer(td_token))
    assert r.status_code == 201, r.text
    return r


# --- problem details ----------------------------------------------------------------------
def test_a_rule_refusal_is_a_problem_naming_the_rule(client, store, td_token, created):
    mid, tokens = created.json()["match"], created.json()["tokens"]
    client.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token))
    state = client.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()
    idle = next(p for p in PLAYERS if p not in state["to_act"])
    before = store.head_position()
    r = client.post(f"/matches/{mid}/commands", json={"verb": "draw"}, headers=bearer(tokens[idle]))
    assert r.status_code == 409 and r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert set(body) == PROBLEM
    assert body["type"] == "/schema#problem-rule" and body["status"] == 409 and body["title"]
    assert body["rule"] and body["detail"] == body["error"] and body["detail"]
    assert store.head_position() == before


@pytest.mark.parametrize("method,url,token,status,kind", [
    ("GET", "/me", None, 401, "unauthorized"),
    ("GET", "/me", "kt_nope", 401, "unauthorized"),
    ("GET", "/matches/nosuch/state", None, 404, "not-found"),
    ("GET", "/nosuch/path", None, 404, "not-found"),
    ("GET", "/matches?limit=0", None, 422, "invalid"),
    ("DELETE", "/matches", None, 405, "method-not-allowed"),
])
def test_every_refusal_is_a_problem(client, method, url, token, status, kind):
    r = client.request(method, url, headers=bearer(token))
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert PROBLEM <= set(body) and body["status"] == status and body["type"] == f"/schema#problem-{kind}"
    assert body["detail"] == body["error"] and body["detail"]
    if status == 401:
        assert r.headers["www-authenticate"] == "Bearer"


def test_a_malformed_body_names_each_bad_field_in_words(client, td_token):
    r = client.post("/matches", json={"game": "uxinjo", "players": PLAYERS, "seed": "x"}, headers=bearer(td_token))
    assert r.status_code == 422
    body = r.json()
    assert "seed" in body["detail"] and "{'" not in body["detail"] and "[{" not in body["detail"]
    assert body["errors"] and all({"key", "message"} <= set(e) for e in body["errors"])


# --- creation ----------------------------------------------------------------------------------
def test_creation_answers_201_with_the_new_resources_location(client, td_token, created):
    mid = created.json()["match"]
    assert created.headers["location"] == f"/matches/{mid}"
    assert client.get(created.headers["location"]).json()["match"] == mid
    client.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token))
    r = client.post("/hypotheticals", json={"match": mid, "deal": 1, "step": 1}, headers=bearer(td_token))
    assert r.status_code == 201 and r.headers["location"] == f"/hypotheticals/{r.json()['hypothetical']}"
    assert client.get(r.headers["location"], headers=bearer(td_token)).json()["hypothetical"] == \
        r.json()["hypothetical"]


# --- pagination -----------------------------------------------------------------------------------
def test_the_next_links_walk_every_match_exactly_once(client, td_token):
    for _ in range(7):
        assert client.post("/matches", json={"game": "uxinjo", "players": PLAYERS},
                           headers=bearer(td_token)).status_code == 201
    whole = client.get("/matches")
    assert "link" not in whole.headers  # without `limit` the list comes whole, as before
    for limit in (1, 2, 3, 7, 50):
        items, pages = walk(client, f"/matches?limit={limit}")
        assert items == whole.json() and pages == max(1, -(-7 // limit))
    # the other query parameters travel with the cursor
    items, _ = walk(client, "/matches?game=uxinjo&limit=3")
    assert items == whole.json()
    r = client.get("/matches?game=uxinjo&limit=3")
    assert parse_qs(urlsplit(_next(r)).query)["game"] == ["uxinjo"]
    assert client.get("/matches?after=nosuch").status_code == 422


def test_the_next_links_walk_every_event_and_ruling_exactly_once(client, store, td_token):
    svc = MatchService(store)
    fouled = foul_then_void_win(svc)
    other = svc.create("uxinjo", PLAYERS, seed=3)
    foul_deal(svc, other, 1)
    whole = client.get(f"/matches/{fouled}/events", headers=bearer(td_token)).json()
    assert len(whole) > 10
    for limit in (1, 4, len(whole), len(whole) + 1):
        items, pages = walk(client, f"/matches/{fouled}/events?limit={limit}", bearer(td_token))
        assert items == whole and pages == max(1, -(-len(whole) // limit))
    # a page starts after the cursor, wherever the caller starts
    after = whole[3]["position"]
    items, _ = walk(client, f"/matches/{fouled}/events?after={after}&limit=5", bearer(td_token))
    assert items == whole[4:]
    rulings = client.get("/audit").json()
    assert len(rulings) >= 2
    for limit in (1, 2):
        assert walk(client, f"/audit?limit={limit}")[0] == rulings
    standings = client.get("/standings").json()
    assert walk(client, "/standings?limit=2")[0] == standings


# --- docs -----------------------------------------------------------------------------------------
def test_the_api_docs_work_offline_and_list_every_operation(client):
    doc = client.get("/schema/openapi.json").json()
    r = client.get("/schema")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    # nothing loads from elsewhere: no script at all, no external URL
    assert "<script" not in page.lower()
    assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page, re.IGNORECASE), \
        re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page, re.IGNORECASE)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            assert f'<span class="method">{method}</span> <span class="path">{path}</span>' in page, (method, path)
            for param in op.get("parameters", []):
                assert f"<code>{param['name']}</code>" in page
    # every problem type a response can name has its section
    assert all(f'id="problem-{slug}"' in page for slug in
               ("rule", "conflict", "invalid", "unauthorized", "forbidden", "not-found", "server-error"))
    assert client.get("/schema/docs").text == page
    # the home page leads there
    assert 'href="/schema"' in client.get("/ui/").text


# --- presenters -----------------------------------------------------------------------------------
def test_the_cli_and_the_service_show_a_replay_step_alike(client, store, db_url, td_token):
    mid = foul_then_void_win(MatchService(store))
    runner = CliRunner()
    for to in (1, 3):
        out = runner.invoke(cli, ["--db", db_url, "replay", mid, "--deal", "1", "--to", str(to), "--json"])
        assert out.exit_code == 0, out.output
        from_cli = json.loads(out.output)
        over_http = client.get(f"/matches/{mid}/replay", params={"deal": 1, "to": to},
                               headers=bearer(td_token)).json()["steps"][0]
        assert from_cli == over_http
