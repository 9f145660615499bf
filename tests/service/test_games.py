"""``GET /games``: the pages and clients learn from it which games exist and how their
commands read, so no list of games is written outside a game's own files."""

from __future__ import annotations

from kartludo.engine.registry import game_names, get_game


def test_games_lists_every_installed_game_with_its_verbs(client):
    r = client.get("/games")
    assert r.status_code == 200, r.text
    games = {g["name"]: g for g in r.json()}
    assert sorted(games) == sorted(game_names())
    assert {"uxinjo", "hakamo", "laugavatnsmanni", "svoi-kozyri"} <= set(games)
    ux = games["uxinjo"]
    assert ux["title"] == "Uxinjo" and ux["player_counts"] == [3] and ux["seats"] == ["Or", "Su", "Ok"]
    assert ux["options"]["needed_base"]["default"] == 2 and "levu" in ux["options"]["needed_base"]["help"]
    assert ux["rules_page"] == "/ui/rules/uxinjo" and ux["table_module"] == "/static/js/tables/uxinjo.js"
    verbs = {v["verb"]: v for v in ux["verbs"]}
    assert list(verbs) == ["draw", "take", "discard", "munt", "pass", "levu", "eltiri"]  # "deal" is the table's
    assert verbs["discard"]["usage"] == "discard CARD" and verbs["discard"]["example"] == "discard R5"
    assert verbs["discard"]["args"][0]["kind"] == "card" and verbs["draw"]["args"] == []
    lay = {v["verb"]: v for v in games["hakamo"]["verbs"]}["lay"]
    assert lay["usage"] == "lay CARD:up|down CARD:up|down" and lay["example"] == "lay RX:up G3:down"
    declare = {v["verb"]: v for v in games["hakamo"]["verbs"]}["declare"]
    assert declare["args"][0]["names"] == ["Or", "Su", "Ok", "No", "malhakama"]
    exchange = {v["verb"]: v for v in games["laugavatnsmanni"]["verbs"]}["exchange"]
    assert exchange["args"][0]["many"] is True and exchange["usage"] == "exchange CARD…"
    sk = games["svoi-kozyri"]
    assert sk["player_counts"] == [2, 3, 4] and sk["seats"] == ["P1", "P2", "P3", "P4"]
    assert sk["options"]["trumps"]["default"] == ["S", "H", "D", "C"]


def test_every_verb_listed_parses_its_own_example(client):
    """The example each verb shows is a command its game reads (and prints back)."""
    for g in client.get("/games").json():
        game = get_game(g["name"])
        for verb in g["verbs"]:
            name, *words = verb["example"].split()
            assert game.parse_command(0, name, words).text() == verb["example"]


def test_every_listed_table_module_and_rules_page_is_served(client):
    for g in client.get("/games").json():
        assert client.get(g["table_module"]).status_code == 200, g["table_module"]
        assert client.get(g["rules_page"]).status_code == 200, g["rules_page"]
