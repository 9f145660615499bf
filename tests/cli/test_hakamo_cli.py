"""Hakamo through the CLI (CliRunner), on SQLite and PostgreSQL."""

from __future__ import annotations

import json

#: Or (dealer) holds RX R9 R8 R7 R6 R4 R3 R2 PJ; Su G9…G1 AJ; Ok B9…B1 AJ;
#: No GX BX RV GV BV R5 G5 B5 PJ; the Kasxetoj are R1 (upper) and C (lower)
DECK = (
    "G9 B9 GX RX G8 B8 BX R9 G7 B7 RV R8 G6 B6 GV R7 G4 B4 BV R6 G3 B3 R5 R4 G2 B2 G5 R3 G1 B1 B5 R2 "
    "AJ AJ PJ PJ R1 C"
)


def test_a_hakamo_deal_through_the_cli(k):
    m = k("match", "new", "hakamo", "--players", "ann,bob,cy,dan", "--seed", "5").strip()
    assert k("match", "deal", m, "--deck", DECK).startswith("deal 1: ann (Or) deals")
    assert k("legal", m, "--as", "ann").splitlines() == ["bid: 13-57", "pass"]
    assert k("legal", m, "--as", "ann", "--all").split("\n")[:2] == ["bid 13", "bid 14"]
    assert k("act", m, "--as", "ann", "bid", "13") == "ann (Or) bids 13\n"
    k("act", m, "--as", "bob", "pass")
    assert "auction: ann (Or) 13, bob (Su) pass\n" in k("state", m, "--as", "cy")
    k("act", m, "--as", "cy", "pass")
    assert k("act", m, "--as", "dan", "pass") == "dan (No) passes; ann (Or) is Deklaristo at 13\n"
    assert k("act", m, "--as", "ann", "exchange") == "ann (Or) exchanges: takes R1 C into the hand\n"
    assert "trump R" in k("act", m, "--as", "ann", "lay", "R1:up", "C:down")
    k("act", m, "--as", "ann", "solo")
    # the shape names each player first, the word the command takes beside it
    assert k("legal", m, "--as", "ann") == "declare: ann (Or) | bob (Su) | cy (Ok) | dan (No) | malhakama\n"
    assert k("legal", m, "--as", "ann", "--all").splitlines() == [  # in seat order, not alphabetical
        "declare Or", "declare Su", "declare Ok", "declare No", "declare malhakama"]
    shown = k("state", m, "--as", "bob")
    assert "dealer ann (Or)" in shown and "Deklaristo ann (Or) at 13, solo" in shown
    assert "Or (ann)" not in shown
    assert k("act", m, "--as", "ann", "declare", "or") == "ann (Or) declares ann (Or)\n"
    assert "declared ann (Or)" in k("state", m, "--as", "bob")
    assert k("legal", m, "--as", "ann") == "play: one of R2 R3 R4 R6 R7 R8 R9 RX\n"
    assert k("legal", m, "--as", "ann", "--all").split() == ["play", "R2", "play", "R3", "play", "R4", "play", "R6",
                                                             "play", "R7", "play", "R8", "play", "R9", "play", "RX"]
    k("act", m, "--as", "ann", "play", "RX")
    k("act", m, "--as", "bob", "play", "G1")
    k("act", m, "--as", "cy", "play", "B2")
    out = k("act", m, "--as", "dan", "play", "R5")
    assert out == "dan (No) plays R5\nann (Or) wins trick 1 with RX (+4)\n"
    assert "last trick 1: ann (Or) RX, bob (Su) G1, cy (Ok) B2, dan (No) R5" in k("state", m, "--as", "bob")

    public = json.loads(k("state", m, "--json"))
    for field in ("match", "game", "status", "deal", "phase", "to_act", "players", "hands", "totals",
                  "contract", "deklaristo", "kunulo"):
        assert field in public
    assert (public["game"], public["contract"], public["deklaristo"], public["kunulo"]) == ("hakamo", 13, "ann", None)
    assert public["hands"] == {} and public["to_act"] == ["ann"]
    assert public["kasxetoj"] == {"kept": False, "upper": "R1", "upper_up": True, "lower": "??", "lower_up": False}
    bob = json.loads(k("state", m, "--as", "bob", "--json"))
    assert list(bob["hands"]) == ["bob"] and len(bob["hands"]["bob"]) == 8
    assert bob["kasxetoj"]["lower"] == "??" and "C" not in json.dumps(bob["hands"])
    ann = json.loads(k("state", m, "--as", "ann", "--json"))
    assert ann["kasxetoj"]["lower"] == "C"  # the Deklaristo laid it
    everyone = json.loads(k("state", m, "--all", "--json"))
    assert sorted(everyone["hands"]) == ["ann", "bob", "cy", "dan"]
    assert everyone["totals"] == {"ann": 0, "bob": 0, "cy": 0, "dan": 0}
    assert "Hakamo" in k("state", m, "--as", "bob")


def test_refused_commands_exit_1_with_the_rule_and_write_nothing(k):
    m = k("match", "new", "hakamo", "--players", "ann,bob,cy,dan").strip()
    k("match", "deal", m)
    before = k("events", "export", f"match-{m}")
    out = k("act", m, "--as", "bob", "bid", "13", code=1)
    assert out.startswith("error: ") and "ann (Or)'s turn" in out and "hakamo §1" in out
    out = k("act", m, "--as", "ann", "bid", "12", code=1)
    assert "at least 13" in out and "[hakamo §1 auction" in out
    assert "unknown Hakamo verb" in k("act", m, "--as", "ann", "draw", code=1)
    # a command the game cannot read cites the commands section, as a rule's refusal cites the rule
    assert k("act", m, "--as", "ann", "bid", "x", code=1) == "error: bid: 'x' is not a number [hakamo §Commands]\n"
    assert k("act", m, "--as", "ann", "declare", "Xy", code=1) == (
        "error: declare: 'Xy' is not a seat (Or, Su, Ok, No) or malhakama [hakamo §Commands]\n")
    assert k("act", m, "--as", "ann", "play", "ZZ", code=1).endswith(" [hakamo §Commands]\n")
    assert k("events", "export", f"match-{m}") == before
    h = k("hypo", "new", m, "--deal", "1", "--step", "1").strip()
    assert k("hypo", "act", h, "--as", "ann", "bid", "x", code=1) == (
        "error: bid: 'x' is not a number [hakamo §Commands]\n")
    assert "needs 4 players" in k("match", "new", "hakamo", "--players", "a,b,c", code=1)


def test_simulate_then_verify(k):
    out = k("simulate", "hakamo", "--matches", "2", "--seed", "3")
    assert out.startswith("2 matches (2 finished)")
    listed = json.loads(k("match", "list", "--json"))
    assert len(listed) == 2 and all(r["status"] == "finished" and r["game"] == "hakamo" for r in listed)
    assert k("verify").startswith("ok: ")
