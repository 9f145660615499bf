"""A closed pipe is not an error (issue 44): `kartludo replay … | head` exits 0, with
nothing on stderr, through the real console script and a real pipe."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kartludo.app.matches.pipeline import MatchService
from kartludo.store import EventStore
from kartludo.store.database import create_engine, upgrade

KARTLUDO = str(Path(sys.executable).with_name("kartludo"))


@pytest.fixture
def played(sqlite_url):
    """A match with one whole deal played by the bots, and its URL."""
    upgrade(create_engine(sqlite_url))
    with EventStore.open(sqlite_url) as store:
        svc = MatchService(store)
        mid = svc.create("svoi-kozyri", ["ann", "bob"], seed=7)
        svc.deal(mid)
        import random

        rng = random.Random(1)
        while svc.load(mid).game.deal_number(svc.load(mid).state) == 1 and not svc.load(mid).over:
            m = svc.load(mid)
            game, state = m.game, m.state
            if game.can_deal(state):
                break
            seat = game.to_act(state)[0]
            command = game.bots()["random"].choose(game, state, seat, game.legal_commands(state, seat), rng)
            svc.execute(mid, svc.play(command), actor=m.players[seat])
    return sqlite_url, mid


def test_replay_into_a_pipe_closed_early_exits_0(played):
    url, mid = played
    whole = subprocess.run([KARTLUDO, "--db", url, "replay", mid, "--deal", "1"], capture_output=True, text=True,
                           check=True).stdout
    assert len(whole.encode()) > 64 * 1024, "the replay must overflow the pipe, else the test could not fail"
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe: the writer blocks long before the end
    with subprocess.Popen([KARTLUDO, "--db", url, "replay", mid, "--deal", "1"], stdout=write,
                          stderr=subprocess.PIPE) as proc:
        os.close(write)
        with os.fdopen(read, "rb") as reader:  # `| head -1`: one line, then the pipe is closed
            first = reader.readline()
        err = proc.stderr.read().decode() if proc.stderr else ""
        code = proc.wait(timeout=120)
    assert first.decode().startswith("Svoi Kozyri · match"), first
    assert code == 0, (code, err)
    assert err == "", err


@pytest.mark.parametrize("args", [["--help"], ["audit", "--help"], ["match", "list"]])
def test_a_reader_gone_before_the_first_line_is_no_error(played, args):
    """`kartludo --help | true`: the pipe is closed before anything is written (the
    top-level help is printed while click parses the arguments, outside any command)."""
    url, _ = played
    read, write = os.pipe()
    os.close(read)
    with subprocess.Popen([KARTLUDO, "--db", url, *args], stdout=write, stderr=subprocess.PIPE) as proc:
        os.close(write)
        err = proc.stderr.read().decode() if proc.stderr else ""
        code = proc.wait(timeout=120)
    assert (code, err) == (0, ""), (args, code, err)
