"""Hostile options on every command line: never a traceback, exit code 0, 1 or 2
only, and a refused command writes nothing.

Hypothesis fills each command's options and arguments with huge and negative
numbers, long, empty and odd text (control characters, other scripts, undecodable
bytes), and real
ids and names, so accepted commands run too. A command line cannot carry a NUL
byte (the operating system ends an argument there), so none is generated.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenarios import foul_deal

from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService
from kartludo.app.tokens import issue
from kartludo.cli.main import cli
from kartludo.engine.registry import game_names

PLAYERS = ["ann", "bob", "cy"]

NUMBERS = st.one_of(
    st.sampled_from([0, 1, -1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 2**64 + 1, 10**12, 525_600, 525_601,
                     -(2**63), 10**40]),
    st.integers(min_value=-(2**70), max_value=2**70),
).map(str)
#: lone surrogates too: bytes the terminal's encoding cannot decode reach Python as such
ODD_TEXT = st.text(st.characters(blacklist_characters="\x00"), max_size=300)
LONG_TEXT = st.sampled_from(["x" * 201, "y" * 2001, "z" * 100_000, " ", "", "-", "--", "a\x01b", "é" * 150,
                             "ann\udcff"])


@pytest.fixture
def world(store, db_url):
    """A database with a dealt match, a ruling under appeal, a series and a TD token."""
    svc = MatchService(store)
    played = svc.create("uxinjo", PLAYERS, seed=1)
    foul_deal(svc, played, 0)
    dealt = svc.create("uxinjo", PLAYERS, seed=2)
    svc.deal(dealt)
    series = create_series(store, "uxinjo", PLAYERS, 90)
    td = issue(store, "td", label="mia")
    CliRunner().invoke(cli, ["--db", db_url, "db", "upgrade"])
    return {"played": played, "dealt": dealt, "series": series, "td": td, "ruling": f"{played}/uxinjo-d1-Or"}


def _values(world: dict[str, str]) -> st.SearchStrategy[str]:
    known = st.sampled_from([world["played"], world["dealt"], world["dealt"][:4], world["series"], world["ruling"],
                             *PLAYERS, *game_names(), "all", "ann,bob,cy", "draw", "discard", "R5",
                             "needed_base=3", "2026-12-01T18:00Z", "9999-12-31T23:59Z", "0001-01-01", "mia"])
    return st.one_of(known, NUMBERS, ODD_TEXT, LONG_TEXT)


#: command lines; "{name}" is a hole, filled with hostile values or, mostly, with a good
#: value (its world's entry, or the text after "=" or "#") so the command gets deep enough
#: to matter; "{#n}" is a count, never a large one the command would accept
COMMANDS = [
    ["match", "new", "{=uxinjo}", "--players", "{=ann,bob,cy}", "--seed", "{=7}", "--option", "{=needed_base=2}",
     "--command-id", "{=c1}"],
    ["match", "new", "{=uxinjo}", "--series", "{series}", "--seed", "{=3}"],
    ["match", "deal", "{played}", "--deck", "{=R1 R2}", "--by", "{=table}", "--command-id", "{=d1}"],
    ["match", "list", "--game", "{=uxinjo}"],
    ["act", "{dealt}", "--as", "{=ann}", "--command-id", "{=a1}", "{=draw}", "{=R5}"],
    ["state", "{dealt}", "--as", "{=bob}", "--json"],
    ["legal", "{dealt}", "--as", "{=cy}"],
    ["replay", "{played}", "--deal", "{=1}", "--to", "{=3}", "--json"],
    ["replay", "{played}", "--as", "{=ann}", "--no-interactive"],
    ["standings", "--game", "{=uxinjo}", "--format", "json"],
    ["standings", "--series", "{series}"],
    ["series", "new", "--game", "{=uxinjo}", "--players", "{=ann,bob,cy}", "--minutes", "{=90}", "--starts-at",
     "{=2026-12-01T18:00Z}"],
    ["series", "show", "{series}", "--format", "json"],
    ["audit", "list", "--match", "{played}", "--player", "{=ann}"],
    ["audit", "show", "{ruling}"],
    ["audit", "appeal", "{ruling}", "--by", "{=ann}", "--reason", "{=a reason}"],
    ["audit", "decide", "{ruling}", "--by", "{=noa}", "--overturn", "--reason", "{=a reason}"],
    ["audit", "recheck", "{played}"],
    ["token", "new", "--role", "{=seat}", "--match", "{dealt}", "--seat", "{=bob}", "--label", "{=x}"],
    ["token", "new", "--label", "{=mia}"],
    ["token", "revoke", "{td}", "--by", "{=cli}", "--reason", "{=left}"],
    ["projections", "rebuild", "{=matches}"],
    ["events", "export", "{dealt}"],
    ["simulate", "{=uxinjo}", "--matches", "{#1}", "--seed", "{=5}", "--max-deals", "{#1}", "--bots",
     "{=random}"],
    ["demo", "--matches", "{#1}", "--seed", "{=5}"],  # refused on a database that holds events: after the options
    ["hypo", "new", "{played}", "--deal", "{=1}", "--step", "{=2}"],
    ["match", "check", "{played}", "--deal", "{=1}"],
]


#: the most a count hole ("{#…}") may ask for when its hostile value is a count the
#: command accepts: simulate --matches 37778 --max-deals 533 is good input, and it ran
#: for hours in one run (the refusals at the edges, 0 and 100,001, are still sent)
MOST_WORK = 2


def _runs_long(value: str) -> bool:
    """``value`` is a count the command would accept and work through: more than
    ``MOST_WORK``, within the largest count any bounded option takes."""
    try:
        n = int(value)  # as click reads an INT (" 7 ", "+7", "7_000" too)
    except ValueError:
        return False
    return MOST_WORK < n <= 100_000


def _hole(part: str, world: dict[str, str], hostile: st.SearchStrategy[str]) -> st.SearchStrategy[str] | None:
    if not (part.startswith("{") and part.endswith("}")):
        return None
    name = part[1:-1]
    if name.startswith("#"):  # a count: hostile values, but none that means hours of good work
        good, hostile = name[1:], hostile.filter(lambda v: not _runs_long(v))
    else:
        good = name[1:] if name.startswith("=") else world[name]
    return st.one_of(st.just(good), st.just(good), hostile)  # mostly good: the rest of the line then matters


def test_no_command_line_gives_a_traceback_or_writes_when_refused(world, store, db_url):
    runner = CliRunner()
    hostile = _values(world)
    ran = 0
    for template in COMMANDS:
        parts = [st.just(part) if (hole := _hole(part, world, hostile)) is None else hole for part in template]

        @given(args=st.tuples(*parts))
        @settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def run(args: tuple[str, ...]) -> None:
            before = store.count_events()
            result = runner.invoke(cli, ["--db", db_url, *args])
            shown = (args, result.exit_code, result.output[-500:])
            assert result.exception is None or isinstance(result.exception, SystemExit), (shown, result.exc_info)
            assert result.exit_code in (0, 1, 2), shown
            assert "Traceback" not in result.output, shown
            if result.exit_code != 0:
                assert store.count_events() == before, shown

        run()
        ran += 1
    assert ran == len(COMMANDS)


@pytest.mark.parametrize("args, message", [
    (["series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "1000000000000"],
     "1000000000000 is not in the range 1<=x<=525600"),
    (["series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", str(2**64)], "not in the range"),
    (["series", "new", "--game", "uxinjo", "--players", "ann,bob,cy", "--minutes", "9", "--starts-at",
      "9999-12-31T23:00Z"], "is out of range: a series starts between"),
    (["match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", str(2**64)], "use 0 <= seed < 2^63"),
    (["match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "-1"], "use 0 <= seed < 2^63"),
    (["simulate", "uxinjo", "--matches", str(10**20)], "not in the range 1<=x<=100000"),
    (["simulate", "uxinjo", "--seed", str(2**64)], "not in the range 0<=x<=9223372036854775807"),
    (["simulate", "uxinjo", "--seed", "-1"], "not in the range 0<=x<=9223372036854775807"),
    (["simulate", "uxinjo", "--max-deals", str(2**63)], "not in the range 1<=x<=10000"),
    (["demo", "--seed", str(2**64)], "not in the range 0<=x<=9223372036854775807"),
    (["demo", "--matches", "1000001"], "not in the range 1<=x<=100000"),
    (["token", "new", "--label", "x" * 101], "at most 100"),
    (["match", "deal", "DEALT", "--by", "x" * 201], "at most 100"),
    (["act", "DEALT", "--as", "ann", "--command-id", "a\udcff", "draw"],
     "command-id is not valid UTF-8 text: b'a\\xff'"),
])
def test_out_of_range_numbers_and_texts_are_refused_at_the_edge(k, world, store, args, message):
    before = store.count_events()
    out = k(*[a.replace("DEALT", world["played"]) for a in args], code=2 if "range 1<=x" in message
            or "not in the range" in message else 1)
    assert message in out
    assert store.count_events() == before
    # every projection read still works
    k("standings", "--format", "json")
    k("match", "list")
