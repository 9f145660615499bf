"""Laugavatnsmanni through the CLI (CliRunner), on SQLite and PostgreSQL."""

from __future__ import annotations

import json

from kartludo.engine.french import DECK_52

DECK = " ".join(DECK_52)  # canonical order: bob gets cards 1-4, 13-16, …; the Manni is 5C 4C 3C 2C
BOB_HAND = ["AS", "KS", "QS", "JS", "2S", "AH", "KH", "QH", "3H", "2H", "AD", "KD", "4D", "3D", "2D", "AC"]


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, v in value.items():
            yield key
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def test_a_deal_through_contract_exchange_and_play(k):
    m = k("match", "new", "laugavatnsmanni", "--players", "ann,bob,cy", "--seed", "7").strip()
    assert "deal 1: ann deals; bob chooses the contract" in k("match", "deal", m[:5], "--deck", DECK)
    state = json.loads(k("state", m, "--as", "bob", "--json"))
    assert state["game"] == "laugavatnsmanni" and state["status"] == "in_progress" and state["deal"] == 1
    assert state["phase"] == "contract" and state["to_act"] == ["bob"] and state["players"] == ["ann", "bob", "cy"]
    assert state["hands"] == {"bob": BOB_HAND}
    assert state["contract"] is None and state["declarer"] is None
    assert state["used_contracts"] == {"ann": [], "bob": [], "cy": []}
    assert state["totals"] == {"ann": 0, "bob": 0, "cy": 0} and state["manni_count"] == 4
    assert state["options"] == {"target_points": 10, "max_deals": 18}
    assert k("legal", m, "--as", "bob") == "contract: nullo | grand | spades | hearts | diamonds | clubs\n"
    assert json.loads(k("legal", m, "--as", "bob", "--json")) == [
        "contract clubs", "contract diamonds", "contract grand", "contract hearts", "contract nullo", "contract spades",
    ]
    assert k("act", m, "--as", "bob", "contract", "Hearts").strip() == "bob chooses hearts"
    assert k("legal", m, "--as", "cy").splitlines() == ["great: grand | hearts", "pass"]
    assert k("legal", m, "--as", "cy", "--all").splitlines() == ["great grand", "great hearts", "pass"]
    assert k("legal", m, "--as", "ann") == "ann cannot act now: waiting for cy (great)\n"
    k("act", m, "--as", "cy", "pass")
    assert k("act", m, "--as", "ann", "pass").strip() == "ann passes; bob declares hearts"
    out = k("act", m, "--as", "bob", "exchange", "2d", "3D").strip()
    assert out == "bob exchanges 2 cards with the Manni: discards 3D 2D, takes 5C 4C"
    state = json.loads(k("state", m, "--as", "bob", "--json"))
    assert "5C" in state["hands"]["bob"] and "2D" not in state["hands"]["bob"]
    assert state["contract"] == "hearts" and state["declarer"] == "bob" and state["discards"] == ["3D", "2D"]
    # another seat, and the public, see neither bob's hand nor the Manni nor the discards
    for who in (["--as", "ann"], []):
        seen = json.loads(k("state", m, *who, "--json"))
        assert "bob" not in seen["hands"] and seen["manni_count"] == 2 and seen["exchanged"] == 2
        assert not {"5C", "4C", "3C", "2C", "3D", "2D", "AS"} & set(strings(seen))
    assert json.loads(k("state", m, "--json"))["hands"] == {}
    everyone = json.loads(k("state", m, "--all", "--json"))
    assert sorted(everyone["hands"]) == ["ann", "bob", "cy"] and everyone["manni"] == ["3C", "2C"]
    assert k("act", m, "--as", "bob", "play", "AS").strip() == "bob leads AS"
    assert "Laugavatnsmanni — deal 1/18, tricks" in k("state", m, "--as", "cy")


def test_refusals_exit_1_name_the_rule_and_write_nothing(k):
    m = k("match", "new", "laugavatnsmanni", "--players", "ann,bob,cy", "--seed", "3").strip()
    k("match", "deal", m, "--deck", DECK)
    k("act", m, "--as", "bob", "contract", "nullo")
    before = k("events", "export", f"match-{m}")
    out = k("act", m, "--as", "cy", "great", "grand", code=1)
    assert out.startswith("error: ") and "no great call over Nullo" in out and "laugavatnsmanni §3" in out
    out = k("act", m, "--as", "bob", "exchange", "AS", "KS", "QS", "JS", "2S", code=1)
    assert "at most 4 cards" in out and "laugavatnsmanni §4" in out
    assert "do not hold TS" in k("act", m, "--as", "bob", "exchange", "TS", code=1)
    assert "unknown Laugavatnsmanni verb" in k("act", m, "--as", "bob", "bid", "7", code=1)
    assert "still in progress" in k("match", "deal", m, code=1)
    assert k("events", "export", f"match-{m}") == before
    fresh = k("match", "new", "laugavatnsmanni", "--players", "ann,bob,cy").strip()
    assert "the deck is not the game's 52-card deck" in k("match", "deal", fresh, "--deck", "AS KS", code=1)
    assert "option max_deals=19" in k("match", "new", "laugavatnsmanni", "--players", "a,b,c",
                                      "--option", "max_deals=19", code=1)


def test_simulate_then_verify(k):
    out = k("simulate", "laugavatnsmanni", "--matches", "2", "--seed", "5", "--bots", "heuristic,random")
    assert out.startswith("2 matches (2 finished)")
    assert k("verify").startswith("ok: ")
    listed = json.loads(k("match", "list", "--game", "laugavatnsmanni", "--json"))
    assert len(listed) == 2 and all(r["status"] == "finished" for r in listed)
