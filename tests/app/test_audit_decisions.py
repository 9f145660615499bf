"""Decisions that void an act without a penalty, in `audit list/show` and the text replay
(issue 15: they showed only in `replay --json`)."""

from __future__ import annotations

import json

from engine.uxinjo_helpers import build_deck

from kartludo.app.matches.pipeline import MatchService

OR, SU, OK = 0, 1, 2
VOID_CLAIM = "RULING §2.3: an invalid claim beside a valid one in the same window is void, no foul"
ALL_LEVU = "§4.2: all three declared levu, so every levu is void"


def void_claim_match(store) -> str:
    """Deal 1: Or discards G9; bob (Su) claims it with no two sets, cy (Ok) with a valid hand."""
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    deck = build_deck(OR, {SU: ["G7", "R1", "R2", "R3", "B5"], OK: ["R9", "B9", "R4", "R5", "R6"]}, stock=["G9"])
    svc.deal(mid, deck)
    svc.act(mid, "ann", "draw")
    svc.act(mid, "ann", "discard", ["G9"])
    svc.act(mid, "bob", "munt")
    svc.act(mid, "cy", "munt")
    return mid


def all_levu_match(store) -> str:
    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    svc.deal(mid, build_deck(OR, {OR: ["G7", "G8", "R1", "R2", "R3"]}, stock=["B5", "B6", "G9"]))
    for player, *words in (("ann", "levu"), ("ann", "draw"), ("ann", "discard", "B5"), ("cy", "pass"),
                           ("bob", "draw"), ("bob", "levu"), ("bob", "discard", "B6"), ("ann", "pass"),
                           ("cy", "pass"), ("cy", "levu"), ("cy", "draw"), ("cy", "discard", "G9"),
                           ("ann", "munt"), ("bob", "pass")):
        svc.act(mid, player, words[0], words[1:])
    return mid


def test_a_void_claim_is_listed_and_shown_by_the_audit_trail(k, store):
    mid = void_claim_match(store)
    out = k("audit", "list")  # 80 columns wide: each rule on the line under its ruling
    lines = out.splitlines()
    [at] = [i for i, line in enumerate(lines) if "void-claim" in line]
    line = lines[at]
    assert line.startswith(f"{mid}/uxinjo-d1-Su-void-claim") and " decision " in line and "bob" in line
    assert VOID_CLAIM[:40] in lines[at + 1]
    [record] = json.loads(k("audit", "list", "--json"))
    assert record["status"] == "decision" and record["player"] == "bob" and record["rule"] == VOID_CLAIM
    assert record["type"] == "uxinjo.settled" and record["deal"] == 1
    assert record["facts"] == {"claim_on": "G9", "discarder": "ann", "valid_claim_by": "cy", "points_needed": 2}
    assert record["effect"] == {"claim": "void", "foul": False, "penalties": "unchanged"}
    assert json.loads(k("audit", "list", "--player", "cy", "--json")) == []
    assert len(json.loads(k("audit", "list", "--player", "bob", "--match", mid[:5], "--json"))) == 1
    shown = k("audit", "show", mid[:6] + "/uxinjo-d1-Su-void")
    assert f"ruling {mid}/uxinjo-d1-Su-void-claim  (decision)" in shown
    assert f"rule: {VOID_CLAIM}" in shown and "claim on: G9" in shown and "foul: no" in shown
    assert "bob (Su)'s invalid claim is void, no foul (RULING §2.3)" in shown  # the settlement, among the events
    assert "not appealable" in shown
    # a decision is not a penalty ruling: nothing to appeal
    before = store.head_position()
    assert "no ruling" in k("audit", "appeal", mid + "/uxinjo-d1-Su-void-claim", "--by", "bob", "--reason", "x",
                            code=1)
    assert store.head_position() == before


def test_a_void_claim_shows_in_the_text_replay(k, store):
    mid = void_claim_match(store)
    text = k("replay", mid, "--deal", "1")
    assert "cy (Ok) wins on ann (Or)'s G9" in text and "bob (Su)'s invalid claim is void, no foul (RULING §2.3)" in text
    assert f"rule applied: {VOID_CLAIM}" in text


def test_all_three_levu_void_is_listed_and_replayed(k, store):
    mid = all_levu_match(store)
    records = json.loads(k("audit", "list", "--json"))
    assert [(r["ruling_id"], r["player"], r["rule"]) for r in records] == [
        ("uxinjo-d1-Or-levu-void", "ann", ALL_LEVU),
        ("uxinjo-d1-Su-levu-void", "bob", ALL_LEVU),
        ("uxinjo-d1-Ok-levu-void", "cy", ALL_LEVU),
    ]
    text = k("replay", mid, "--deal", "1")
    assert "every levu is void: all three declared levu (§4.2)" in text and f"rule applied: {ALL_LEVU}" in text
