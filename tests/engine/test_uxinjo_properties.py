"""Bot-played Uxinjo matches: invariants that must hold in every state."""

from __future__ import annotations

import json
import random
from collections import Counter

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, fold
from kartludo.engine.bots import RandomBot
from kartludo.engine.jx import JX_DECK
from kartludo.engine.uxinjo import UXINJO, Discard, Draw, Eltiri, Levu, Munt, Pass, Take
from kartludo.engine.uxinjo.bots import HeuristicBot
from kartludo.events.base import decode, encode, from_builtins, to_json
from kartludo.events.match import DealStarted
from kartludo.events.uxinjo import Drew, Exposed

from uxinjo_helpers import PLAYERS, play_match

CODES = sorted(set(JX_DECK))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_command(seat):
    out = [Draw(seat=seat), Take(seat=seat), Munt(seat=seat), Pass(seat=seat), Levu(seat=seat)]
    out += [Discard(seat=seat, card=c) for c in CODES] + [Eltiri(seat=seat, card=c) for c in CODES]
    return out


def accepted(state, cmd):
    try:
        UXINJO.decide(state, cmd)
    except IllegalCommand:
        return False
    return True


class Checker:
    """Runs after every command of a bot match."""

    def __init__(self, seed: int, exhaustive: float) -> None:
        self.rng = random.Random(seed)
        self.exhaustive = exhaustive

    def __call__(self, table, before, state, events) -> None:
        if state.deal:
            cards = Counter(c for h in state.hands for c in h)
            cards.update(state.stock)
            cards.update(state.discards)
            cards.update(c for e in state.exposed for c in e)
            assert cards == Counter(JX_DECK)
        assert all(-6 <= m <= 6 for m in state.markers)
        v = UXINJO.view(state, ALL)
        for a in PLAYERS:
            for b in PLAYERS:
                if a != b:
                    assert v["markers"][a][b] == -v["markers"][b][a]
        assert sum(v["totals"].values()) == 0
        json.dumps(v)
        assert UXINJO.view(state, PUBLIC)["hands"] == {}
        for seat in range(3):
            sv = UXINJO.view(state, seat)
            assert set(sv["hands"]) <= {PLAYERS[seat]}
            assert "stock" not in sv
            self.check_legal(state, seat)
            for e in events:
                r = UXINJO.redact(e, seat)
                if isinstance(e, DealStarted):
                    own = [c for i, c in enumerate(r.deck) if i < 15 and (e.dealer + 1 + i) % 3 == seat]
                    assert "??" not in own and r.deck.count("??") == 38 - 6
                if isinstance(e, Drew) and e.seat != seat:
                    assert r.card == "??"
                if isinstance(e, Exposed) and e.seat != seat:
                    assert r.replacement == "??"
                UXINJO.describe(before, e, seat)
            UXINJO.render(state, seat)
        for e in events:
            data = msgspec.json.decode(to_json(e))
            assert to_json(from_builtins(e.type_tag(), e.schema, data)) == to_json(e)
            assert decode(e.type_tag(), e.schema, encode(e)) == e

    def check_legal(self, state, seat) -> None:
        legal = UXINJO.legal_commands(state, seat)
        assert legal == sorted(legal)
        assert all(c.seat == seat for c in legal)
        if legal:
            assert seat in UXINJO.to_act(state)
        for cmd in legal:
            assert accepted(state, cmd), cmd.text()
            assert UXINJO.parse_command(seat, cmd.text().split()[0], cmd.args()) == cmd
        if self.rng.random() < self.exhaustive:
            for cmd in every_command(seat):
                assert accepted(state, cmd) == (cmd in legal), cmd.text()


def run(seed, bots, max_deals=4, exhaustive=0.1):
    table, events = play_match(seed, bots, max_deals=max_deals, check=Checker(seed, exhaustive))
    assert fold(UXINJO, table.created, events) == table.state
    return table, events


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_random_bots_keep_every_invariant(seed):
    run(seed, [RandomBot()] * 3, max_deals=3)


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_heuristic_bots_keep_every_invariant(seed):
    table, events = run(seed, [HeuristicBot()] * 3, max_deals=8, exhaustive=0.05)
    assert UXINJO.view(table.state, ALL)["fouls"] == {p: 0 for p in PLAYERS}  # it never fouls


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_mixed_bots_with_fouls_keep_every_invariant(seed):
    run(seed, [HeuristicBot(foul_rate=0.05), RandomBot(), HeuristicBot(levu=True)], max_deals=6)


def test_heuristic_matches_finish_and_score():
    finished = 0
    for seed in range(15):
        table, _ = play_match(seed, [HeuristicBot()] * 3, max_deals=60)
        if UXINJO.is_finished(table.state):
            finished += 1
            r = UXINJO.result(table.state)
            assert set(r.scores) == set(PLAYERS) and r.match_points == r.scores
            assert any(abs(m) == 6 for m in table.state.markers)
    assert finished >= 10


def test_deterministic_same_seed_same_events():
    bots = [HeuristicBot(foul_rate=0.05), RandomBot(), HeuristicBot()]
    _, a = play_match(7, bots, max_deals=5)
    _, b = play_match(7, bots, max_deals=5)
    assert [encode(e) for e in a] == [encode(e) for e in b]


def test_derived_events_recompute_from_state():
    """What ``audit recheck`` relies on: each derived event is what ``automatic``
    gives for the state before it."""
    table, events = play_match(3, [HeuristicBot(foul_rate=0.1), RandomBot(), HeuristicBot()], max_deals=6)
    state = UXINJO.start(table.created)
    for e in events:
        if type(e).derived:
            assert UXINJO.automatic(state) == [e]
        state = UXINJO.evolve(state, e)
    assert state == table.state
