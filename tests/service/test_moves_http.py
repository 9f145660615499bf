"""`GET /matches/{id}/moves` sends a seat's moves as shapes (issue 44): it still sent
every command of an exchange (2,517 in a Laugavatnsmanni exchange of up to four cards)
beside the shapes that describe them. The shapes alone are exactly the seat's legal
commands (`GET .../legal` lists them); a seat the game is not waiting for has none."""

from __future__ import annotations

from serving import bearer

from kartludo.engine.french import DECK_52
from kartludo.engine.registry import get_game
from kartludo.engine.shapes import Shape, expand

PLAYERS = ["ann", "bob", "cy"]


def _act(client, mid, token, verb, *args):
    r = client.post(f"/matches/{mid}/commands", json={"verb": verb, "args": list(args)}, headers=bearer(token))
    assert r.status_code == 201, r.text


def test_an_exchange_is_sent_as_its_shape_not_its_thousands_of_commands(client, td_token):
    created = client.post("/matches", json={"game": "laugavatnsmanni", "players": PLAYERS, "seed": 7,
                                            "auto_deal": False}, headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    r = client.post(f"/matches/{mid}/deals", json={"deck": list(DECK_52)}, headers=bearer(td_token))
    assert r.status_code == 201, r.text
    _act(client, mid, tokens["bob"], "contract", "hearts")  # (as tests/cli/test_laugavatnsmanni_cli.py)
    _act(client, mid, tokens["cy"], "pass")
    _act(client, mid, tokens["ann"], "pass")
    state = client.get(f"/matches/{mid}/state", headers=bearer(td_token)).json()
    assert state["to_act"] == ["bob"] and state["phase"] == "exchange", state["phase"]

    legal = client.get(f"/matches/{mid}/legal", headers=bearer(tokens["bob"])).json()
    assert len(legal) > 1000  # the exchange's every subset
    moves = client.get(f"/matches/{mid}/moves", headers=bearer(tokens["bob"]))
    assert moves.status_code == 200
    body = moves.json()
    assert set(body) == {"shapes", "cautions"}, "no expanded list beside the shapes"
    assert len(moves.content) < len(str(legal)) / 10
    game = get_game("laugavatnsmanni")
    seat = PLAYERS.index("bob")
    expanded = [c.text() for shape in body["shapes"]
                for c in expand(Shape(**shape), seat, game.parse_command)]
    assert sorted(expanded) == sorted(legal), "the shapes stand for exactly the legal commands"
    exchange = next(s for s in body["shapes"] if s["verb"] == "exchange")
    assert exchange["kind"] == "cards" and "commands" not in exchange
    # a seat the game is not waiting for: nothing to offer, nothing to confirm
    idle = client.get(f"/matches/{mid}/moves", headers=bearer(tokens["ann"])).json()
    assert idle == {"shapes": [], "cautions": {}}
