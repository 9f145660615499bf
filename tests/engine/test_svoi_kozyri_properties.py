"""Bot-played Svoi Kozyri matches: invariants that must hold in every state.

Deal length: the rules set no limit, so a deal could in principle go on for ever
(two players handing the same cards back and forth). Random bots do finish, but
slowly (a few thousand commands per deal is typical, tens of thousands happen);
the heuristic bot takes tens to hundreds. The bounds below are generous; a deal
passing one fails its test with ``DealTooLong`` naming the seed.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, fold
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import DECK_36
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI as G, Pickup, Play
from kartludo.engine.svoi_kozyri.bots import HeuristicBot
from kartludo.events.base import decode, encode, from_builtins, to_json
from kartludo.events.match import DealStarted
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded

from svoi_kozyri_helpers import NAMES, play_match

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: player commands one deal may take before a test reports it (random bots)
RANDOM_DEAL_BOUND = 200_000
#: the same for the heuristic bot
HEURISTIC_DEAL_BOUND = 3_000


def every_command(seat):
    return [Pickup(seat=seat)] + [Play(seat=seat, card=c) for c in DECK_36]


def accepted(state, cmd):
    try:
        G.decide(state, cmd)
    except IllegalCommand:
        return False
    return True


class Checker:
    """Runs after every command of a bot match."""

    def __init__(self, seed: int, exhaustive: float) -> None:
        self.rng = random.Random(seed)
        self.exhaustive = exhaustive

    def __call__(self, table, before, state, events) -> None:
        n = state.n
        names = NAMES[:n]
        if state.deal:
            cards = Counter(c for h in state.hands for c in h)
            cards.update(state.pile)
            assert cards == Counter(DECK_36)
        assert state.completed == len(state.results) and state.deal - state.completed in (0, 1)
        assert sum(state.losses) == sum(1 for r in state.results if r >= 0)
        v = G.view(state, ALL)
        json.dumps(v)
        assert v["totals"] == v["losses"] == {names[i]: state.losses[i] for i in range(n)}
        assert v["pile"] == list(state.pile) and set(v["trumps"]) == set(names)
        assert sum(v["hand_sizes"].values()) + len(v["pile"]) == (36 if state.deal else 0)
        assert G.view(state, PUBLIC)["hands"] == {}
        if state.phase.value in ("lead", "beat", "extra", "free"):
            assert v["due"] == state.phase.value and G.to_act(state) == [state.turn]
            assert state.hands[state.turn] and state.turn not in state.out
            assert (state.phase.value == "lead") == (not state.pile)
            assert len([h for h in state.hands if h]) >= 2
        for seat in range(n):
            sv = G.view(state, seat)
            assert set(sv["hands"]) <= {names[seat]}
            text = json.dumps(sv)
            for other in range(n):
                if other != seat:
                    for card in state.hands[other]:
                        assert f'"{card}"' not in text, (seat, card)
            self.check_legal(state, seat)
            for e in events:
                r = G.redact(e, seat, n)
                if isinstance(e, DealStarted):
                    mine = [c for i, c in enumerate(r.deck) if (e.dealer + 1 + i) % n == seat]
                    assert "??" not in mine and r.deck.count("??") == 36 - 36 // n
                    assert G.redact(e, PUBLIC).deck == ["??"] * 36
                if isinstance(e, DealEnded) and seat != e.last and len(e.hand) > 1:
                    assert set(r.hand) == {"??"}
                G.describe(before, e, seat)
            G.render(state, seat)
        G.render(state, PUBLIC)
        for e in events:
            data = msgspec.json.decode(to_json(e))
            assert to_json(from_builtins(e.type_tag(), e.schema, data)) == to_json(e)
            assert decode(e.type_tag(), e.schema, encode(e)) == e
            if isinstance(e, DealEnded):
                # exactly one loser or a draw: everybody else has emptied the hand
                assert e.outcome in ("loss", "draw") and state.hands[e.last]
                assert all(not state.hands[s] for s in range(n) if s != e.last)
                assert (e.outcome == "draw") == (len(e.hand) == 1 and e.beats)
                assert sorted(e.out + [e.last]) == list(range(n))

    def check_legal(self, state, seat) -> None:
        legal = G.legal_commands(state, seat)
        assert legal == sorted(legal)
        assert all(c.seat == seat for c in legal)
        if legal:
            assert G.to_act(state) == [seat]
        elif G.to_act(state) == [seat]:
            raise AssertionError("the seat to act has no legal command")
        for cmd in legal:
            assert accepted(state, cmd), cmd.text()
            assert G.parse_command(seat, cmd.text().split()[0], cmd.args()) == cmd
        if self.rng.random() < self.exhaustive:
            for cmd in every_command(seat):
                assert accepted(state, cmd) == (cmd in legal), cmd.text()


def run(seed, bots, n, max_deals=2, exhaustive=0.1, **kw):
    table, lengths = play_match(seed, bots, n=n, max_deals=max_deals, check=Checker(seed, exhaustive), **kw)
    assert fold(G, table.created, table.events) == table.state
    return table, lengths


@SETTINGS
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_heuristic_bots_keep_every_invariant(seed, n):
    _, lengths = run(seed, [HeuristicBot()] * n, n, max_deals=2, per_deal=HEURISTIC_DEAL_BOUND)
    assert len(lengths) == 2


@SETTINGS
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_random_bots_keep_every_invariant(seed, n):
    """Random play, checked command by command over the first 250 commands."""
    run(seed, [RandomBot()] * n, n, max_deals=1, per_deal=RANDOM_DEAL_BOUND, max_commands=250, exhaustive=0.2)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_mixed_bots_keep_every_invariant(seed, n):
    bots = [HeuristicBot(vary=0.0), RandomBot(), HeuristicBot(), RandomBot()][:n]
    run(seed, bots, n, max_deals=2, per_deal=RANDOM_DEAL_BOUND, max_commands=400)


def test_random_bots_finish_every_deal():
    """Every deal ends, one loser or a draw (checked at each deal's end)."""
    for n in (2, 3, 4):
        for seed in range(2):
            table, lengths = play_match(seed, [RandomBot()] * n, n=n, max_deals=1, per_deal=RANDOM_DEAL_BOUND)
            assert len(lengths) == 1 and table.state.completed == 1
            ended = [e for e in table.events if isinstance(e, DealEnded)]
            assert len(ended) == 1 and ended[0].outcome in ("loss", "draw")


def test_heuristic_matches_finish_and_score():
    for n in (2, 3, 4):
        for seed in range(12):
            table, lengths = play_match(seed, [HeuristicBot()] * n, n=n, max_deals=8, per_deal=HEURISTIC_DEAL_BOUND)
            assert G.is_finished(table.state) and len(lengths) == 8
            ended = [e for e in table.events if isinstance(e, DealEnded)]
            assert [e.deal for e in ended] == sorted({e.deal for e in table.events if isinstance(e, DealEnded)})
            assert len(ended) == 8
            final = table.events[-1]
            assert isinstance(final, MatchEnded) and final.deals == 8
            r = G.result(table.state)
            assert r.higher_is_better is False and sum(r.scores.values()) == 8 - final.draws
            assert r.scores == final.losses and r.ranks == final.ranks
            best = min(r.scores.values())
            assert {p for p, rank in r.ranks.items() if rank == 1} == {p for p, s in r.scores.items() if s == best}
            # the loser deals next; after a draw the same dealer deals again
            starts = [e for e in table.events if isinstance(e, DealStarted)]
            for prev, nxt, end in zip(starts, starts[1:], ended):
                assert nxt.dealer == (end.last if end.outcome == "loss" else prev.dealer)


def test_deterministic_same_seed_same_events():
    bots = [HeuristicBot(), RandomBot(), HeuristicBot()]
    a, _ = play_match(7, bots, n=3, max_deals=2, per_deal=RANDOM_DEAL_BOUND, max_commands=3000)
    b, _ = play_match(7, bots, n=3, max_deals=2, per_deal=RANDOM_DEAL_BOUND, max_commands=3000)
    assert [encode(e) for e in a.events] == [encode(e) for e in b.events]


def test_derived_events_recompute_from_state():
    """What ``audit recheck`` relies on: each derived event is what ``automatic``
    gives for the state before it."""
    table, _ = play_match(3, [HeuristicBot()] * 4, n=4, max_deals=8, per_deal=HEURISTIC_DEAL_BOUND)
    state = G.start(table.created)
    derived = 0
    for e in table.events:
        if type(e).derived:
            assert G.automatic(state) == [e]
            derived += 1
        state = G.evolve(state, e)
    assert state == table.state and derived == 8 + 8 + 1  # sixes and an end per deal, the match end
