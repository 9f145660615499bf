"""Hypotheticals, rollouts and adjusted decisions (issue 21), for every game and on both
backends: a hypothetical's moment is the replay's state at that step; it plays to the
deal's settlement without touching the match; rollouts are reproducible with a seed and
resampling never moves a card any seat had seen; an adjusted decision moves the match's
totals exactly by the weighted difference, reaches standings and survives a rebuild."""

from __future__ import annotations

import json
import random

import every_game
import pytest
from every_game import games, short_options

from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import rollouts as ro
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.app.reading.replay import build
from kartludo.engine.base import ALL
from kartludo.events.match import Ruling

NAMES = ["ann", "bob", "cy", "dan"]


def one_deal(store, game: str, seed: int = 3) -> str:
    """A match of ``game`` whose first deal bots played to its settlement."""
    svc = MatchService(store)
    mid, _, _ = play_match(svc, game, every_game.players(game), pick_bots(game, ["heuristic"]), random.Random(seed),
                           options=short_options(game), max_deals=1)
    return mid


def play_out(store, hypo_id: str, seed: int, bots: str = "random") -> dict[str, int]:
    """Play a hypothetical to its settlement through the command path (``hy.execute``)."""
    rng = random.Random(seed)
    bot = pick_bots(hy.load(store, hypo_id).game.name, [bots])[0]
    for _ in range(3000):
        h = hy.load(store, hypo_id)
        if h.settled:
            return h.deal_scores()
        state = hy.pending(h.game, h.match.state)[1]
        seat = h.game.to_act(state)[0]
        legal = h.game.legal_commands(state, seat)
        command = bot.choose(h.game, state, seat, legal, rng)
        hy.execute(store, hypo_id, hy.play(lambda _h, c=command: c), actor=h.match.players[seat])
    raise AssertionError("the hypothetical did not settle")


@pytest.mark.parametrize("game", games())
def test_a_hypothetical_starts_from_the_replay_state_and_plays_otherwise_to_settlement(k, store, game):
    mid = one_deal(store, game)
    steps = build(mid, MatchService(store).records(mid), 1).steps
    mid_step = len(steps) // 2
    hid = k("hypo", "new", mid[:6], "--deal", "1", "--step", str(mid_step), "--label", "otherwise").strip()
    h = hy.load(store, hid[:5])
    assert h.match.state == steps[mid_step - 1].state
    shown = json.loads(k("hypo", "state", hid, "--all", "--json"))
    match_view = MatchService(store).state_json(MatchService(store).load(mid), ALL)
    for field in ("game", "players", "options", "ruleset"):
        assert shown[field] == match_view[field]
    assert shown["hands"] == h.game.view(steps[mid_step - 1].state, ALL)["hands"]
    assert shown["phase"] == h.game.phase(steps[mid_step - 1].state) and "seed" not in shown
    assert shown["origin"] == {"match": mid, "deal": 1, "step": mid_step, "version": steps[mid_step - 1].record.version,
                               "hash": steps[mid_step - 1].record.hash.hex()}
    # a seat's view of the hypothetical hides the other hands, as a match's does
    seat_view = json.loads(k("hypo", "state", hid, "--as", NAMES[0], "--json"))
    assert set(seat_view["hands"]) <= {NAMES[0]}
    match_version = store.stream_version(stream_of(mid))
    # the first move through the command line (the last legal command), the rest by a bot through the library
    seat = h.game.to_act(hy.pending(h.game, h.match.state)[1])[0]
    player = h.match.players[seat]
    legal = k("hypo", "legal", hid, "--as", player, "--all").split("\n")
    assert legal[0] and sorted(legal[:-1]) == sorted(c.text() for c in hy.legal(h, player)) and legal[-1] == ""
    k("hypo", "act", hid, "--as", player, *legal[-2].split())
    scores = play_out(store, hid, 1, bots="heuristic")
    assert scores is not None and set(scores) == set(h.match.players)
    assert store.stream_version(stream_of(mid)) == match_version  # the match never moved
    listed = json.loads(k("hypo", "list", mid, "--json"))
    assert [(r["hypothetical"], r["settled"], r["deal_scores"]) for r in listed] == [(hid, True, scores)]
    assert "settled" in k("hypo", "replay", hid)
    assert "takes no more commands" in k("hypo", "act", hid, "--as", player, *legal[-2].split(), code=1)
    assert "hypotheticals cite their origin" in k("verify")


@pytest.mark.parametrize("game", games())
def test_hypo_legal_takes_every_option_of_legal(k, store, game):
    """Issue 38: `hypo legal` had no --all. It shares `legal`'s options and printer, so
    from the match's own moment both print the same for every option, for the seat to
    act and for the seats that cannot act (nothing; JSON [])."""
    svc = MatchService(store)
    players = every_game.players(game)
    mid = svc.create(game, players, seed=5, options=short_options(game))
    svc.deal(mid)
    hid = k("hypo", "new", mid, "--deal", "1", "--step", str(len(build(mid, svc.records(mid), 1).steps))).strip()
    printed = {}
    for player in players:
        for options in ([], ["--all"], ["--json"], ["--format", "json"], ["--format", "text", "--all"]):
            printed[player, *options] = k("hypo", "legal", hid, "--as", player, *options)
            assert printed[player, *options] == k("legal", mid, "--as", player, *options), (player, options)
    acting = [p for p in players if "cannot act now" not in printed[(p,)]]
    assert len(acting) == 1
    assert sorted(printed[(acting[0], "--all")].splitlines()) == sorted(json.loads(printed[(acting[0], "--json")]))
    idle = next(p for p in players if p not in acting)
    # a seat that cannot act is told so (the JSON stays the contract's empty list)
    assert "cannot act now" in printed[(idle,)] and "cannot act now" in printed[(idle, "--all")]
    assert json.loads(printed[(idle, "--json")]) == []


@pytest.mark.parametrize("game", games())
def test_seeded_rollouts_repeat_and_resampling_keeps_every_seen_card(k, store, game):
    mid = one_deal(store, game, seed=4)
    steps = build(mid, MatchService(store).records(mid), 1).steps
    hid = hy.create(store, mid, 1, max(2, len(steps) // 3))
    h = hy.load(store, hid)
    for hidden in ("actual", "resample"):
        first = json.loads(k("hypo", "rollout", hid, "--n", "12", "--seed", "9", "--hidden", hidden,
                             "--format", "json"))
        again = ro.result_json(ro.rollout(h, 12, seed=9, hidden=hidden))
        assert first == {**again, "at_version": first["at_version"]}
        assert first["n"] == 12 and sum(o["count"] for o in first["outcomes"]) == 12
        assert set(first["players"]) == set(h.match.players)
        for stats in first["players"].values():
            assert stats["p10"] <= stats["p50"] <= stats["p90"]
    assert len(hy.load(store, hid).rollouts) == 2  # each summary is one recorded event
    # resampling: every seat's view of the moment is unchanged, every seen card stays where it was
    for moment in (h, hy.load(store, hy.create(store, mid, 1, 1)), hy.load(store, hy.create(store, mid, 1, 0))):
        seen = ro.seen_cards(moment)
        views = [moment.game.view(moment.match.state, seat) for seat in range(len(moment.match.players))]
        deck = moment.moment.history[0].deck
        moved = 0
        for i in range(20):
            state = ro.resampled(moment, seen, random.Random(i))
            assert [moment.game.view(state, seat) for seat in range(len(views))] == views or not seen
            moved += state != moment.match.state
        if moment.started.step == 0:
            assert moved and not seen  # nobody had seen a card: the whole deal is dealt afresh
        else:  # (a card in any seat's hand is seen: Svoi Kozyri deals every card, so nothing moves there)
            assert all(c in deck for c in seen) and seen


def test_rollout_bounds_and_refusals_write_nothing(k, store):
    mid = one_deal(store, "uxinjo")
    hid = hy.create(store, mid, 1, 2)
    version = store.stream_version(hy.hypo_stream(hid))
    assert "1 to 10,000" in k("hypo", "rollout", hid, "--n", "10001", code=1)
    assert "1 to 10,000" in k("hypo", "rollout", hid, "--n", "0", code=1)
    assert "out of range" in k("hypo", "rollout", hid, "--seed", "-1", code=1)
    assert "no step 999" in k("hypo", "new", mid, "--deal", "1", "--step", "999", code=1)
    assert "no deal 5" in k("hypo", "new", mid, "--deal", "5", "--step", "1", code=1)
    assert "negative" in k("hypo", "new", mid, "--deal", "1", "--step", "-1", code=1)
    assert "no hypothetical" in k("hypo", "state", "ffffff", code=1)
    for args in (("act", hid, "--as", "zed", "draw"), ("legal", hid, "--as", "zed"), ("state", hid, "--as", "zed")):
        assert f"'zed' does not play in hypothetical {hid} of match {mid}" in k("hypo", *args, code=1)
    assert store.stream_version(hy.hypo_stream(hid)) == version
    assert len(hy.list_hypotheticals(store)) == 1
    # random bots, seeded, repeat too (and are recorded as random)
    runs = [json.loads(k("hypo", "rollout", hid, "--n", "8", "--bots", "random", "--seed", "2", "--format", "json"))
            for _ in range(2)]
    assert runs[0]["bots"] == "random" and (runs[0]["players"], runs[0]["outcomes"]) == \
        (runs[1]["players"], runs[1]["outcomes"])
    assert [r.bots for r in hy.load(store, hid).rollouts] == ["random", "random"]


@pytest.mark.parametrize("game", games())
def test_hypotheticals_never_reach_standings_or_the_match_list(k, store, game):
    svc = MatchService(store)
    mid, _, _ = play_match(svc, game, every_game.players(game), pick_bots(game, ["heuristic"]), random.Random(2),
                           options=short_options(game))
    assert svc.load(mid).status == "finished"
    standings, matches = k("standings", "--format", "json"), k("match", "list", "--json")
    hid = hy.create(store, mid, 1, 1)
    play_out(store, hid, 5, bots="heuristic")
    ro.record(store, ro.rollout(hy.load(store, hid), 3, seed=1))
    assert k("standings", "--format", "json") == standings and k("match", "list", "--json") == matches
    k("projections", "rebuild")
    assert k("standings", "--format", "json") == standings and k("match", "list", "--json") == matches
    assert k("audit", "list", "--json") == "[]\n"


def fouled_finished_match(store) -> tuple[str, Ruling]:
    """A finished Uxinjo match: ann fouls in deal 1 (tests/scenarios.py), then heuristic
    bots play on to the end."""
    from scenarios import foul_deal

    svc = MatchService(store)
    mid = svc.create("uxinjo", ["ann", "bob", "cy"], seed=1)
    foul_deal(svc, mid, 0)
    game, rng = svc.load(mid).game, random.Random(1)
    bot = pick_bots("uxinjo", ["heuristic"])[0]
    for _ in range(20_000):
        state = svc.load(mid).state
        if game.is_finished(state):
            break
        if game.can_deal(state):
            svc.deal(mid)
            continue
        seat = game.to_act(state)[0]
        svc.execute(mid, svc.play(bot.choose(game, state, seat, game.legal_commands(state, seat), rng)),
                    actor=svc.load(mid).players[seat])
    assert svc.load(mid).status == "finished"
    [ruling] = [r.event for r in svc.records(mid) if isinstance(r.event, Ruling)][:1]
    return mid, ruling


def test_an_adjusted_decision_moves_totals_by_the_weighted_difference_and_reaches_standings(k, store):
    from fractions import Fraction

    from kartludo.app.hypotheticals.adjust import largest_remainder, recorded_deal_score
    from kartludo.engine.uxinjo.state import match_points

    mid, ruling = fouled_finished_match(store)
    audit_id = f"{mid}/{ruling.ruling_id}"
    svc = MatchService(store)
    before = svc.state_json(svc.load(mid), ALL)
    k("audit", "appeal", audit_id, "--by", "ann", "--reason", "the foul was unfair")
    recorded = recorded_deal_score(store, mid, ruling.deal)
    h1 = k("hypo", "new", mid, "--deal", str(ruling.deal), "--step", "1").strip()
    s1 = play_out(store, h1, 11)
    for seed in range(12, 60):  # a second result whose weighted mean awards other whole points than played
        h2 = k("hypo", "new", mid, "--deal", str(ruling.deal), "--step", "1").strip()
        s2 = play_out(store, h2, seed)
        exact = {p: Fraction(3, 5) * s1[p] + Fraction(2, 5) * s2[p] for p in recorded}
        awarded = largest_remainder(exact, list(recorded))  # whole points keeping the exact mean's sum
        if awarded != recorded:
            break
    assert awarded != recorded, "no hypothetical played otherwise than the deal"
    other = mid if ruling.deal > 1 else None
    unsettled = hy.create(store, mid, ruling.deal, 1)
    k("token", "new", "--role", "td", "--label", "td-mia")  # a decider is a TD with a live token
    head = store.head_position()
    # refusals: weights not summing to 1, an unfinished hypothetical, an unknown player, a bad sum
    assert "sum to 0.9" in k("audit", "decide", audit_id, "--by", "td-mia", "--adjust", f"{h1}:0.5,{h2}:0.4",
                             "--reason", "x", code=1)
    assert "not played to its settlement" in k("audit", "decide", audit_id, "--by", "td-mia", "--adjust",
                                               f"{h1}:0.5,{unsettled}:0.5", "--reason", "x", code=1)
    assert "does not play" in k("audit", "decide", audit_id, "--by", "td-mia", "--adjust-scores",
                                "ann=1,bob=-1,zed=0", "--reason", "x", code=1)
    assert "sum to 0" in k("audit", "decide", audit_id, "--by", "td-mia", "--adjust-scores", "ann=1,bob=1,cy=0",
                           "--reason", "x", code=1)
    if other:
        wrong = hy.create(store, mid, ruling.deal - 1, 1)
        play_out(store, wrong, 3)
        assert "not the ruled deal" in k("audit", "decide", audit_id, "--by", "td-mia", "--adjust",
                                         f"{h1}:0.5,{wrong}:0.5", "--reason", "x", code=1)
    assert not [r for r in store.read_all(head) if r.stream_id == stream_of(mid)]
    out = k("audit", "decide", audit_id, "--by", "td-mia", "--adjust", f"{h1}:0.6,{h2}:0.4", "--reason", "12C1(c)")
    assert "adjusted by td-mia" in out
    assert all(abs(awarded[p] - exact[p]) < 1 for p in recorded)
    after = svc.state_json(svc.load(mid), ALL)
    # each total moves by exactly the awarded score less the deal's score as played
    assert {p: after["totals"][p] - before["totals"][p] for p in recorded} == \
        {p: awarded[p] - recorded[p] for p in recorded}
    assert sum(after["totals"].values()) == sum(before["totals"].values())
    shown = k("audit", "show", audit_id)
    assert "as played" in shown and h1 in shown and h2 in shown
    assert "-> awarded " + ", ".join(f"{p} {awarded[p]:+d}" for p in recorded) in shown  # whole points
    if any(v.denominator != 1 for v in exact.values()):
        assert "weighted mean " + ", ".join(f"{p} {float(exact[p]):+g}" for p in recorded) in shown
    record = json.loads(k("audit", "show", audit_id, "--json"))
    [adj] = record["adjustments"]
    assert adj["recorded"] == recorded and adj["weights"] == {h1: 0.6, h2: 0.4}
    assert adj["adjustment"] == {p: awarded[p] - recorded[p] for p in recorded}
    assert adj["adjusted"] == {p: float(exact[p]) for p in recorded}
    assert record["record"]["status"] == "adjusted"
    # standings are the match's result as adjusted (Uxinjo: MP from the adjusted markers), and rebuild the same
    standings = json.loads(k("standings", "--game", "uxinjo", "--format", "json"))
    mp = after["mp"]
    assert {row["player"]: row["score"] for row in standings} == mp
    assert mp == dict(zip(["ann", "bob", "cy"], match_points(svc.load(mid).state.markers)))
    text = k("standings", "--format", "json")
    k("projections", "rebuild")
    assert k("standings", "--format", "json") == text


@pytest.mark.parametrize("game", games())
def test_adjusting_scores_changes_standings_by_exactly_the_difference(store, game):
    """The adjustment's fold for every game: the game's totals (its standing scores) move
    by exactly the adjustment (Uxinjo's markers move so that each total does)."""
    from kartludo.events.match import RulingDecided

    mid = one_deal(store, game, seed=6)
    svc = MatchService(store)
    match = svc.load(mid)
    players = match.players
    delta = {p: d for p, d in zip(players, [2, -1, -1, 0])}
    decided = RulingDecided(ruling_id="x", by="td", decision="adjust", reason="r", deal=1, adjustment=delta)
    state = match.game.evolve(match.state, decided)
    a, b = hy.totals(match.game, match.state, players), hy.totals(match.game, state, players)
    assert {p: b[p] - a[p] for p in players} == delta


def test_a_rollout_shows_its_progress_on_the_terminal_and_keeps_stdout_clean(db_url, store):
    """On a terminal the progress bar goes to stderr, so ``--format json > file`` (stdout
    redirected, stderr still the terminal) shows the bar and writes clean JSON."""
    import os
    import pty
    import subprocess
    import sys

    mid = one_deal(store, "uxinjo")
    hid = hy.create(store, mid, 1, 1)
    leader, follower = pty.openpty()
    cli = [sys.executable, "-m", "kartludo.cli.main"]
    proc = subprocess.Popen([*cli, "--db", db_url, "hypo", "rollout", hid, "--n", "300", "--seed", "1",
                             "--format", "json"], stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL,
                            env={**os.environ, "COLUMNS": "100", "TERM": "xterm"})
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    out, _ = proc.communicate(timeout=120)
    os.close(leader)
    assert proc.returncode == 0, shown
    assert b"300 rollouts" in shown and "━".encode() in shown  # the bar, drawn on the terminal (stderr)
    assert json.loads(out)["n"] == 300  # stdout: the JSON alone


def test_verify_refuses_a_hypothetical_whose_citation_is_wrong(k, store):
    """``verify`` checks each hypothetical's citation: a wrong origin hash, a version the
    match does not have, or a step that is not the cited version is reported, exit 1."""
    import msgspec

    from kartludo.events.hypo import HypoStarted

    mid = one_deal(store, "uxinjo")
    good = hy.load(store, hy.create(store, mid, 1, 2)).started
    assert "1 hypotheticals cite their origin" in k("verify")
    bad = {"badhash": msgspec.structs.replace(good, origin_hash="00" * 32),
           "nosuchv": msgspec.structs.replace(good, origin_version=10_000),
           "badstep": msgspec.structs.replace(good, step=3)}
    for name, started in bad.items():
        assert isinstance(started, HypoStarted)
        store.append(hy.hypo_stream(name), [started], 0, actor="forger")
    out = k("verify", "--all-problems", code=1)
    assert "hypothetical badhash: cites origin hash 0000000000000000" in out
    assert "hypothetical nosuchv: cites match" in out and "which does not exist" in out
    assert "hypothetical badstep: does not re-fold" in out and "not the cited" in out
    assert f"hypothetical {good.origin_hash}" not in out and "BAD hypothetical" in out


# --- rollout jobs (issue 41): their record on the hypothetical's stream ----------------------

def _job_started(store, hid: str, runner: str, n: int = 50) -> str:
    """A job's start as another server process would record it (its runner named)."""
    from kartludo.app.hypotheticals import jobs
    from kartludo.events.hypo import RolloutJobStarted

    job = jobs.new_job_id()
    version = store.stream_version(hy.hypo_stream(hid))
    store.append(hy.hypo_stream(hid), [RolloutJobStarted(job=job, n=n, bots="heuristic", hidden="actual", seed=1,
                                                         at_version=version, runner=runner)], version)
    return job


def test_a_job_whose_server_is_gone_reads_interrupted_with_no_result(k, store, monkeypatch):
    """The next process to read a job never ended, whose process is gone (killed on this
    machine: no process has its pid), records it interrupted; a job of a process
    elsewhere stays running until its heartbeat is older than the lease."""
    import subprocess
    import sys

    from kartludo.app.hypotheticals import jobs

    hid = hy.create(store, one_deal(store, "laugavatnsmanni"), 1, 0)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host, boot, _ = jobs.runner_id().split("/")
    dead = _job_started(store, hid, f"{host}/{boot}/{gone.pid}")
    runner = jobs.JobRunner(store)
    read = runner.get(hid, dead)
    assert read.status == "interrupted" and read.result is None and str(gone.pid) in read.reason
    assert jobs.job_json(read)["result"] is None and not hy.load(store, hid).rollouts
    version = store.stream_version(hy.hypo_stream(hid))
    assert runner.get(hid, dead).status == "interrupted"
    assert store.stream_version(hy.hypo_stream(hid)) == version  # recorded once
    rebooted = _job_started(store, hid, f"{host}/another/{jobs.runner_id().split('/')[2]}")
    assert runner.get(hid, rebooted).status == "interrupted"  # the machine restarted since it began

    far = _job_started(store, hid, "elsewhere.example/abcd1234/1")
    assert runner.get(hid, far).status == "running"  # within its lease
    monkeypatch.setattr(jobs, "LEASE_SECONDS", 0.0)
    silent = runner.get(hid, far)
    assert silent.status == "interrupted" and "no word from the server process" in silent.reason
    assert "hypotheticals cite their origin" in k("verify")  # the job events fold and verify as any


def test_a_running_job_beats_and_another_process_reads_its_progress(store, monkeypatch):
    """A running job appends a heartbeat with its count every few seconds: a process not
    running it reads the count there, and takes the job for alive."""
    import threading
    import time

    from kartludo.app.hypotheticals import jobs
    from kartludo.events.hypo import RolloutJobProgress

    monkeypatch.setattr(jobs, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setattr(jobs, "CHECK_SECONDS", 0.01)
    real, go = ro.play_out, threading.Event()

    def play_out(*args, **kwargs):
        time.sleep(0.002)
        if not go.is_set():
            go.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(ro, "play_out", play_out)
    hid = hy.create(store, one_deal(store, "laugavatnsmanni"), 1, 0)
    runner, other = jobs.JobRunner(store), jobs.JobRunner(store)
    job = runner.submit(hid, 400, seed=3)
    go.set()
    deadline = time.monotonic() + 60
    while not [r for r in store.read_stream(hy.hypo_stream(hid)) if isinstance(r.event, RolloutJobProgress)]:
        assert time.monotonic() < deadline, "no heartbeat"
        time.sleep(0.01)
    seen = jobs.fold_jobs(hid, store.read_stream(hy.hypo_stream(hid)))[job.id]
    assert seen.status == "running" and 0 < seen.done <= 400 and seen.seen_at_us > seen.started_at_us
    assert other.get(hid, job.id).status in ("running", "done")  # its runner is alive: never taken for lost
    while runner.mine():
        assert time.monotonic() < deadline, "the job did not end"
        time.sleep(0.01)
    done = other.get(hid, job.id)
    assert done.status == "done" and jobs.result_of(done) is not None
    assert jobs.job_json(done)["result"] == ro.result_json(ro.rollout(
        hy.fold(store, hid, store.read_stream(hy.hypo_stream(hid), 1, job.at_version)), 400, seed=3))
