"""Match commands through CliRunner: the CLI contract of DESIGN.md."""

from __future__ import annotations

import json
import re
import shlex

from kartludo.engine.jx import JX_DECK


def test_match_new_prints_only_the_id(k):
    out = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "7")
    assert len(out.strip().split()) == 1 and len(out.strip()) == 12
    listed = json.loads(k("match", "list", "--json"))
    assert len(listed) == 1 and listed[0].pop("created_at").startswith("20")
    assert listed == [{"match": out.strip(), "game": "uxinjo", "status": "in_progress", "deal": 0,
                       "players": ["ann", "bob", "cy"], "series": None}]


def test_a_deal_and_a_turn(k):
    m = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "7").strip()
    deck = " ".join(JX_DECK)
    assert "deal 1" in k("match", "deal", m[:4], "--deck", deck)
    state = json.loads(k("state", m, "--as", "ann", "--json"))
    assert state["to_act"] == ["ann"] and state["deal"] == 1 and state["phase"]
    assert state["hands"]["ann"] == ["R3", "R6", "R9", "G3", "G6"]  # cards 3, 6, 9, 12, 15 of the deck
    legal = k("legal", m, "--as", "ann").split("\n")
    assert "draw" in legal and "take" not in legal
    assert k("act", m, "--as", "ann", "draw").startswith("ann (Or) draws ")
    public = json.loads(k("state", m, "--json"))
    assert public["hands"] == {} and public["totals"] == {"ann": 0, "bob": 0, "cy": 0}
    everyone = json.loads(k("state", m, "--all", "--json"))
    assert sorted(everyone["hands"]) == ["ann", "bob", "cy"] and len(everyone["hands"]["ann"]) == 6
    assert "Uxinjo" in k("state", m, "--as", "bob")


def test_refusals_exit_1_name_the_rule_and_write_nothing(k):
    m = k("match", "new", "uxinjo", "--players", "ann,bob,cy").strip()
    k("match", "deal", m)
    before = k("events", "export", f"match-{m}")
    out = k("act", m, "--as", "bob", "draw", code=1)
    assert out.startswith("error: ") and "uxinjo" in out.lower() and "[" in out
    assert k("act", m, "--as", "ann", "discard", "PJ", code=1).startswith("error: ")
    assert "does not play" in k("act", m, "--as", "zed", "draw", code=1)
    assert "still in progress" in k("match", "deal", m, code=1)
    fresh = k("match", "new", "uxinjo", "--players", "ann,bob,cy").strip()
    assert "the deck is not the game's 38-card deck" in k("match", "deal", fresh, "--deck", "R1 R2", code=1)
    assert "no match" in k("state", "ffffffff", code=1)
    assert "unknown game" in k("match", "new", "chess", "--players", "a,b", code=1)
    assert k("events", "export", f"match-{m}") == before


def test_idempotent_act_with_command_id(k):
    m = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "3").strip()
    k("match", "deal", m)
    k("act", m, "--as", "ann", "--command-id", "c-1", "draw")
    again = k("act", m, "--as", "ann", "--command-id", "c-1", "draw")
    assert "already applied" in again
    assert k("events", "export", f"match-{m}").count("\n") == 3


def test_match_new_with_a_command_id_creates_one_match(k):
    first = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--command-id", "night-1").strip()
    again = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--command-id", "night-1").strip()
    assert again == first
    other = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--command-id", "night-2").strip()
    assert other != first
    assert len(json.loads(k("match", "list", "--json"))) == 2


def test_simulate_prints_one_summary_line(k):
    out = k("simulate", "uxinjo", "--matches", "2", "--seed", "4", "--bots", "heuristic,random")
    assert out.count("\n") == 1 and out.startswith("2 matches (") and "events/s" in out
    assert len(json.loads(k("match", "list", "--json"))) == 2
    assert k("verify").startswith("ok: ")
    assert "no bot 'genius'" in k("simulate", "uxinjo", "--bots", "genius", code=1)


def test_demo_on_a_fresh_folder(k):
    out = k("demo", "--matches", "2")
    from kartludo.engine.registry import game_names, get_game

    for game in game_names():
        assert f"standings · {get_game(game).title}" in out
    assert "replay · match" in out and "deal 1" in out and "step " in out
    assert re.search(r"http://127\.0\.0\.1:8000/ui/replay/[0-9a-f]{12}\?deal=1", out)
    # the audit trail: a foul, its appeal and a TD's decision
    assert "foul (uxinjo-d1-" in out and "audit trail · ruling" in out
    [ruling] = json.loads(k("audit", "list", "--json"))
    assert ruling["status"] == "upheld" and ruling["type"] == "uxinjo.foul"
    assert [h["kind"] for h in ruling["history"]][:3] == ["ruled", "appealed", "upheld"]
    assert "losses: deals lost" in out and "lower is better" in out
    # every closing hint runs as printed (here with the test's --db)
    hints = out.split("next (each runs as printed):\n")[1].split("in a browser:")[0].strip().splitlines()
    assert len(hints) >= 5
    for hint in hints:
        words = shlex.split(hint)
        assert words[0] == "kartludo" and words[1] == "--db"
        k(*words[3:])
    # a second run refuses, naming the ways out, and adds nothing
    before = k("events", "export").count("\n")
    again = k("demo", "--matches", "2", code=1)
    assert "already holds" in again and "--fresh" in again and "--db" in again
    assert k("events", "export").count("\n") == before


def test_legal_for_a_seat_that_cannot_act_says_whom_the_game_waits_for(k, store):
    """Issue 44: `legal` for a seat the game is not waiting for printed nothing; it says
    so in one line, naming whom the game waits for and why (between deals, the deal;
    at the end, the match). `--json` keeps the contract's empty list."""
    from scenarios import win_match

    from kartludo.app.matches.pipeline import MatchService

    svc = MatchService(store)
    m = svc.create("uxinjo", ["ann", "bob", "cy"], seed=7)
    assert k("legal", m, "--as", "bob") == "bob cannot act now: waiting for the next deal to be dealt\n"
    svc.deal(m)
    state = json.loads(k("state", m, "--json"))
    (actor,) = state["to_act"]
    idle = next(p for p in ["ann", "bob", "cy"] if p != actor)
    said = f"{idle} cannot act now: waiting for {actor} ({state['phase']})\n"
    assert k("legal", m, "--as", idle) == said
    assert k("legal", m, "--as", idle, "--all") == said
    assert json.loads(k("legal", m, "--as", idle, "--json")) == []
    assert "cannot act" not in k("legal", m, "--as", actor)
    k("act", m, "--as", actor, "draw")
    k("act", m, "--as", actor, "discard", json.loads(k("state", m, "--as", actor, "--json"))["hands"][actor][0])
    a, b = json.loads(k("state", m, "--json"))["to_act"]  # the two others may claim the discard
    assert k("legal", m, "--as", actor) == f"{actor} cannot act now: waiting for {a} and {b} (claim)\n"
    over = svc.create("uxinjo", ["ann", "bob", "cy"], seed=7)
    win_match(svc, over, 0)
    assert k("legal", over, "--as", "ann") == "ann cannot act now: the match is over\n"
    assert json.loads(k("legal", over, "--as", "ann", "--format", "json")) == []
