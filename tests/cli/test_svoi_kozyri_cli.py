"""Svoi Kozyri through the CLI (CliRunner), on SQLite and PostgreSQL."""

from __future__ import annotations

import json

from kartludo.engine.french import DECK_36
from kartludo.engine.svoi_kozyri.rules import first_dealer

SEED = 3  # cy deals first at a three-player table
ANN_HAND = ["AS", "JS", "8S", "AH", "JH", "8H", "6H", "AD", "JD", "8D", "AC", "JC", "8C"]
BOB_HAND = ["KS", "TS", "7S", "6S", "KH", "TH", "7H", "KD", "TD", "7D", "KC", "TC", "7C"]


def new_match(k):
    assert first_dealer(SEED, 3) == 2
    m = k("match", "new", "svoi-kozyri", "--players", "ann,bob,cy", "--seed", str(SEED),
          "--option", "trumps=H,S,D", "--option", "deals=2").strip()
    # the canonical deck order, dealt by cy: ann gets cards 1, 4, 7, …
    out = k("match", "deal", m[:5], "--deck", " ".join(DECK_36))
    assert out.splitlines() == [
        "deal 1: cy deals; trumps ann ♥H, bob ♠S, cy ♦D; ann leads",
        "sixes passed to their suits' owners: 6S cy→bob, 6H cy→ann",
    ]
    return m


def test_a_deal_by_hand_and_a_few_commands(k):
    m = new_match(k)
    state = json.loads(k("state", m, "--as", "ann", "--json"))
    assert state["game"] == "svoi-kozyri" and state["deal"] == 1 and state["status"] == "in_progress"
    assert state["options"] == {"trumps": ["H", "S", "D"], "deals": 2}
    assert state["hands"] == {"ann": ANN_HAND}  # 6H came from cy; 6C (clubs: nobody's) stayed with cy
    assert state["hand_sizes"] == {"ann": 13, "bob": 13, "cy": 10}
    assert state["trumps"] == {"ann": "H", "bob": "S", "cy": "D"}
    assert state["to_act"] == ["ann"] and state["due"] == "lead" and state["pile"] == []
    assert "play 8C" in k("legal", m, "--as", "ann", "--all").splitlines()
    assert k("act", m, "--as", "ann", "play", "8C") == "ann leads 8C\n"
    assert k("act", m, "--as", "bob", "play", "tc") == "bob beats 8C with TC\n"
    assert k("act", m, "--as", "bob", "play", "7D") == "bob adds 7D\n"
    assert k("legal", m, "--as", "cy").splitlines() == ["play: one of QD 9D", "pickup"]
    assert json.loads(k("legal", m, "--as", "cy", "--json")) == ["pickup", "play 9D", "play QD"]
    assert k("legal", m, "--as", "ann") == "ann cannot act now: waiting for cy (beat)\n"
    public = json.loads(k("state", m, "--json"))
    for key in ("match", "game", "status", "deal", "phase", "to_act", "players", "hands", "totals",
                "pile", "losses", "trumps", "hand_sizes", "out", "due"):
        assert key in public, key
    assert public["hands"] == {} and public["pile"] == ["8C", "TC", "7D"] and public["phase"] == "beat"
    assert public["losses"] == public["totals"] == {"ann": 0, "bob": 0, "cy": 0}
    # 7D is cy's trump: 5 asked, 3 there
    assert public["to_act"] == ["cy"] and public["pickup"] == {"rule": "5", "count": 3}
    # ann's view never shows another hand's cards
    mine = k("state", m, "--as", "ann", "--json")
    for card in BOB_HAND:
        if card not in ("TC", "7D"):  # bob played those onto the pile
            assert f'"{card}"' not in mine
    everyone = json.loads(k("state", m, "--all", "--json"))
    assert sorted(everyone["hands"]) == ["ann", "bob", "cy"]
    text = k("state", m, "--as", "cy")
    assert "Svoi Kozyri" in text and "cy to act: beat 7D or pick up 3" in text
    assert k("act", m, "--as", "cy", "pickup") == "cy picks up 3 cards (7D is their trump): 8C TC 7D\n"
    assert json.loads(k("state", m, "--json"))["due"] == "lead"


def test_a_refused_command_exits_1_names_the_rule_and_writes_nothing(k):
    m = new_match(k)
    k("act", m, "--as", "ann", "play", "8C")
    k("act", m, "--as", "bob", "play", "TC")
    k("act", m, "--as", "bob", "play", "7D")
    before = k("events", "export", f"match-{m}")
    out = k("act", m, "--as", "cy", "play", "6D", code=1)
    assert out.startswith("error: 6D does not beat 7D") and "[svoi-kozyri §Play beat" in out
    out = k("act", m, "--as", "ann", "pickup", code=1)
    assert out.startswith("error: it is cy's turn") and "[svoi-kozyri §Play" in out
    assert "not a card of the 36-card pack" in k("act", m, "--as", "cy", "play", "5D", code=1)
    assert "unknown Svoi Kozyri verb" in k("act", m, "--as", "cy", "draw", code=1)
    assert "still in progress" in k("match", "deal", m, code=1)
    assert k("events", "export", f"match-{m}") == before
    assert "different trump suit" in k("match", "new", "svoi-kozyri", "--players", "a,b",
                                       "--option", "trumps=S,S", code=1)


def test_simulate_then_verify(k):
    out = k("simulate", "svoi-kozyri", "--matches", "2", "--seed", "5")
    assert out.startswith("2 matches (2 finished)")
    listed = json.loads(k("match", "list", "--json"))
    assert len(listed) == 2 and {r["status"] for r in listed} == {"finished"}
    assert {r["deal"] >= 8 for r in listed} == {True}
    assert k("verify").startswith("ok: ")
    finished = json.loads(k("state", listed[0]["match"], "--json"))
    assert finished["status"] == "finished" and finished["ranks"] and sum(finished["losses"].values()) <= 8
