"""Who may appeal and decide a ruling on the command line, and command keys on the
command line (the CLI is one caller: a retry returns the first result, a reused key
with another request is refused)."""

from __future__ import annotations

import pytest
from scenarios import foul_deal

from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import issue

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def ruling(store):
    svc = MatchService(store)
    mid = svc.create("uxinjo", PLAYERS, seed=1)
    foul_deal(svc, mid, 0)
    return f"{mid}/uxinjo-d1-Or"


def _unchanged(store, k, args, message, code=1):
    before = store.head_position()
    out = k(*args, code=code)
    assert message in out, out
    assert store.head_position() == before
    return out


def test_decide_refuses_uphold_with_overturn(k, store, ruling):
    issue(store, "td", label="td-mia")
    k("audit", "appeal", ruling, "--by", "ann", "--reason", "two sets")
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "td-mia", "--uphold", "--overturn", "--reason", "x"],
               "choose --uphold or --overturn, not both", code=2)
    assert "overturned by td-mia" in k("audit", "decide", ruling, "--by", "td-mia", "--overturn", "--reason", "x")


def test_a_player_of_the_match_or_the_appellant_may_not_decide(k, store, ruling):
    issue(store, "td", label="mia")
    issue(store, "td", label="noa")
    k("audit", "appeal", ruling, "--by", "mia", "--reason", "the TD saw a miscount")  # a TD may appeal
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "bob", "--uphold", "--reason", "x"],
               "bob plays in match")
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "ANN", "--uphold", "--reason", "x"],
               "ANN plays in match")
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "mia", "--uphold", "--reason", "x"],
               "mia made this appeal: another TD decides it")
    assert "upheld by noa" in k("audit", "decide", ruling, "--by", "noa", "--uphold", "--reason", "stands")


@pytest.mark.parametrize("by", [" bob", "bob ", "\tBOB", "\uff42\uff4f\uff42", " td-mia ", "TD-MIA"])
def test_a_name_spelt_another_way_is_still_a_player_or_the_appellant(k, store, ruling, by):
    """Spaces around a name, another case or the full-width letters name the same
    person: `--by " bob"` must not let a player decide their own match's ruling."""
    issue(store, "td", label="td-mia")
    k("audit", "appeal", ruling, "--by", "td-mia", "--reason", "the TD saw a miscount")
    before = store.head_position()
    out = k("audit", "decide", ruling, "--by", by, "--uphold", "--reason", "x", code=1)
    assert "plays in match" in out or "made this appeal" in out, out
    assert store.head_position() == before


def test_only_a_td_may_decide_on_the_command_line(k, store, ruling):
    """Issue 44: `audit decide --by zed` was accepted for a name that is no TD. On the
    command line `--by` names a TD by the label of a live TD token (over HTTP the TD
    token itself speaks); anyone else is refused, naming the TDs, and nothing is written."""
    from kartludo.app.tokens import revoke

    k("audit", "appeal", ruling, "--by", "ann", "--reason", "two sets")
    out = _unchanged(store, k, ["audit", "decide", ruling, "--by", "zed", "--uphold", "--reason", "x"],
                     "'zed' is no TD: no live TD token is labelled 'zed' (there is none)")
    assert "kartludo token new --role td --label NAME" in out
    mia = issue(store, "td", label="mia")
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "zed", "--overturn", "--reason", "x"],
               "'zed' is no TD: no live TD token is labelled 'zed' (live TD tokens: mia)")
    revoke(store, mia)  # a revoked TD decides nothing either
    _unchanged(store, k, ["audit", "decide", ruling, "--by", "mia", "--uphold", "--reason", "x"],
               "'mia' is no TD")
    issue(store, "td", label="zed")  # now zed is a TD
    assert "upheld by zed" in k("audit", "decide", ruling, "--by", "zed", "--uphold", "--reason", "stands")


def test_only_a_player_or_a_td_may_appeal(k, store, ruling):
    _unchanged(store, k, ["audit", "appeal", ruling, "--by", "zed", "--reason", "x"],
               "'zed' does not play in match")
    issue(store, "td", label="zed")  # now zed is a TD
    k("audit", "appeal", ruling, "--by", "zed", "--reason", "x")


@pytest.mark.parametrize("args, message", [
    (["--by", "ann", "--reason", "x" * 2001], "the reason is 2001 characters long: at most 2000"),
    (["--by", "ann", "--reason", "a\x01b"], "control character"),
    (["--by", "ann", "--reason", "   "], "the reason is empty"),
    (["--by", "a" * 101, "--reason", "x"], "at most 100"),
])
def test_appeal_text_is_bounded(k, store, ruling, args, message):
    _unchanged(store, k, ["audit", "appeal", ruling, *args], message)


def test_a_cli_retry_returns_the_first_match_and_another_request_is_refused(k, store):
    first = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "4", "--command-id", "t1").strip()
    assert k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "4", "--command-id", "t1").strip() == first
    out = _unchanged(store, k, ["match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "5", "--command-id",
                                "t1"], f"command_id 't1' already created match {first} with a different request "
                                       "(a different seed)")
    assert "Traceback" not in out
