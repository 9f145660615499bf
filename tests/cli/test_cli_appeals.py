"""Appeals on the command line (issue 44, the RULING on appeals): each person appeals a
ruling once; another player's earlier appeal does not block the penalised player's own,
every appeal is recorded beside the others (`audit show`), one decision answers them all,
and a TD who appealed may not decide."""

from __future__ import annotations

import json

from scenarios import foul_deal

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import issue

PLAYERS = ["ann", "bob", "cy"]


def test_each_person_appeals_once_and_one_decision_answers_all(k, store):
    svc = MatchService(store)
    mid = svc.create("uxinjo", PLAYERS, seed=1)
    foul_deal(svc, mid, 0)  # ann's munt is a foul
    ruling = f"{mid}/uxinjo-d1-Or"
    issue(store, "td", label="mia")
    issue(store, "td", label="noa")
    assert "appealed by bob" in k("audit", "appeal", ruling, "--by", "bob", "--reason", "ann had two sets")
    # the penalised player's own appeal is not blocked by bob's
    assert "appealed by ann" in k("audit", "appeal", ruling, "--by", "ann", "--reason", "I had R1 R2 R3")
    assert "appealed by mia" in k("audit", "appeal", ruling, "--by", "mia", "--reason", "a TD's second look")
    before = store.head_position()
    out = k("audit", "appeal", ruling, "--by", "ann", "--reason", "again", code=1)
    assert "ann already appealed ruling" in out and "each person appeals once" in out, out
    assert "(appealed by bob, ann, mia)" in out, out
    assert store.head_position() == before, "a refused appeal writes nothing"
    shown = json.loads(k("audit", "show", ruling, "--format", "json"))["record"]
    assert [(h["kind"], h["by"]) for h in shown["history"]] == [
        ("ruled", "engine"), ("appealed", "bob"), ("appealed", "ann"), ("appealed", "mia")]
    assert shown["status"] == "appealed"
    # a TD who appealed may not decide; another TD's one decision answers every appeal
    out = k("audit", "decide", ruling, "--by", "mia", "--uphold", "--reason", "x", code=1)
    assert "mia made this appeal: another TD decides it" in out
    assert "upheld by noa" in k("audit", "decide", ruling, "--by", "noa", "--uphold", "--reason", "one set only")
    out = k("audit", "appeal", ruling, "--by", "cy", "--reason", "late", code=1)
    assert "already decided (uphold) by noa" in out
