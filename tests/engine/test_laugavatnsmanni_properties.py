"""Bot-played Laugavatnsmanni matches: invariants that must hold in every state."""

from __future__ import annotations

import json
import random
from collections import Counter

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, fold
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import DECK_52, sort_cards
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI as G
from kartludo.engine.laugavatnsmanni import (
    Contract,
    Exchange,
    Great,
    Hold,
    Pass,
    Play,
    Yield,
)
from kartludo.engine.laugavatnsmanni.bots import HeuristicBot
from kartludo.engine.laugavatnsmanni.state import CONTRACTS
from kartludo.events.base import decode, encode, from_builtins, to_json
from kartludo.events.laugavatnsmanni import (
    ContractChosen,
    DealScored,
    Exchanged,
    TrickWon,
)
from kartludo.events.match import DealStarted
from laugavatnsmanni_helpers import PLAYERS, play_match

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def accepted(state, cmd):
    try:
        G.decide(state, cmd)
    except IllegalCommand:
        return False
    return True


def every_command(seat, rng, hand):
    """Every verb with every argument, and a sample of exchanges (held or not)."""
    out = [Pass(seat=seat), Yield(seat=seat)]
    for c in CONTRACTS:
        out += [Contract(seat=seat, contract=c), Great(seat=seat, contract=c), Hold(seat=seat, contract=c)]
    out += [Play(seat=seat, card=c) for c in DECK_52]
    out.append(Exchange(seat=seat, cards=()))
    pool = list(hand) or list(DECK_52)
    for k in (1, 2, 3, 4, 5):
        for _ in range(3):
            cards = rng.sample(pool, min(k, len(pool)))
            out.append(Exchange(seat=seat, cards=sort_cards(cards)))
            out.append(Exchange(seat=seat, cards=sort_cards(cards[:-1] + [rng.choice(DECK_52)])))
    return out


def strings(value):
    """Every string in a JSON-able value (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


class Checker:
    """Runs after every command of a bot match."""

    def __init__(self, seed: int, exhaustive: float) -> None:
        self.rng = random.Random(seed)
        self.exhaustive = exhaustive

    def __call__(self, table, before, state, events) -> None:
        if state.deal:
            cards = Counter(c for h in state.hands for c in h)
            cards.update(state.manni)
            cards.update(state.discards)
            cards.update(state.trick)
            cards.update(c for w in state.won for c in w)
            assert cards == Counter(DECK_52)
            assert sum(len(w) for w in state.won) == 3 * state.tricks_played
            sizes = [len(h) for h in state.hands]
            assert max(sizes) - min(sizes) <= 1 and max(sizes) == 16 - state.tricks_played
            assert sum(sizes) == 48 - 3 * state.tricks_played - len(state.trick)
            assert len(state.manni) + len(state.discards) == 4
        for s in range(3):
            assert len(set(state.used[s])) == len(state.used[s])
        assert sum(state.totals) == 0  # every deal's scores add up to zero
        v = G.view(state, ALL)
        json.dumps(v)
        assert G.view(state, PUBLIC)["hands"] == {}
        for seat in range(3):
            sv = G.view(state, seat)
            assert set(sv["hands"]) <= {PLAYERS[seat]}
            hidden = set(state.manni)
            for other in range(3):
                if other != seat:
                    hidden.update(state.hands[other])
            if state.declarer != seat:
                hidden.update(state.discards)
            assert not hidden & set(strings(sv)), hidden & set(strings(sv))
            self.check_legal(state, seat)
            for e in events:
                r = G.redact(e, seat)
                if isinstance(e, DealStarted):
                    own = [i for i in range(48) if (e.dealer + 1 + i // 4) % 3 == seat]
                    assert [r.deck[i] for i in own] == [e.deck[i] for i in own]
                    assert r.deck.count("??") == 52 - 16 and sorted(r.deck[i] for i in own) == sorted(state.hands[seat])
                if isinstance(e, Exchanged) and e.seat != seat:
                    assert set(r.discards) <= {"??"} and set(r.taken) <= {"??"}
                G.describe(before, e, seat)
            G.render(state, seat)
        for e in events:
            data = msgspec.json.decode(to_json(e))
            assert to_json(from_builtins(e.type_tag(), e.schema, data)) == to_json(e)
            assert decode(e.type_tag(), e.schema, encode(e)) == e

    def check_legal(self, state, seat) -> None:
        legal = G.legal_commands(state, seat)
        assert legal == sorted(legal)
        assert all(c.seat == seat for c in legal)
        if legal:
            assert G.to_act(state) == [seat]
        elif G.to_act(state) == [seat]:
            raise AssertionError("the seat to act has no legal command")
        sample = legal if len(legal) < 40 else self.rng.sample(legal, 40)
        for cmd in sample:
            assert accepted(state, cmd), cmd.text()
            assert G.parse_command(seat, cmd.text().split()[0], cmd.args()) == cmd
        if self.rng.random() < self.exhaustive:
            legal_set = set(legal)
            for cmd in every_command(seat, self.rng, state.hands[seat]):
                assert accepted(state, cmd) == (cmd in legal_set), cmd.text()


def check_match(table) -> None:
    events = table.events
    assert fold(G, table.created, events) == table.state
    deals = [e for e in events if isinstance(e, DealStarted)]
    scored = [e for e in events if isinstance(e, DealScored)]
    tricks = Counter(e.deal for e in events if isinstance(e, TrickWon))
    assert all(n == 16 for n in tricks.values()) and len(tricks) == len(scored)
    for s in scored:
        assert sum(p.tricks for p in s.parts) == 16
        assert sum(p.score for p in s.parts) == 0
    totals = [0, 0, 0]
    for s in scored:
        totals = [t + p.score for t, p in zip(totals, s.parts)]
        assert s.totals == totals
    assert list(table.state.totals) == totals
    chosen = [[], [], []]
    for e in events:
        if isinstance(e, ContractChosen):
            chosen[e.seat].append(e.contract)
    assert [list(u) for u in table.state.used] == chosen
    if G.is_finished(table.state):
        assert len(scored) == len(deals)
        assert max(totals) >= table.state.target_points or len(deals) == table.state.max_deals
        assert all(max(s.totals) < table.state.target_points for s in scored[:-1])


def run(seed, bots, options=None, exhaustive=0.05):
    table = play_match(seed, bots, options=options, check=Checker(seed, exhaustive))
    check_match(table)
    return table


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_random_bots_keep_every_invariant(seed):
    run(seed, [RandomBot()] * 3, options={"max_deals": 2})


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_heuristic_bots_keep_every_invariant(seed):
    run(seed, [HeuristicBot()] * 3, options={"max_deals": 2})


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_mixed_bots_keep_every_invariant(seed):
    run(seed, [HeuristicBot(), RandomBot(), HeuristicBot()], options={"max_deals": 2, "target_points": 4})


def test_whole_matches_finish_with_consistent_scores():
    for seed in range(12):
        bots = [HeuristicBot()] * 3 if seed % 2 else [RandomBot(), HeuristicBot(), RandomBot()]
        table = play_match(seed, bots)
        assert G.is_finished(table.state)
        check_match(table)
        r = G.result(table.state)
        assert r.scores == dict(zip(PLAYERS, table.state.totals))
        assert set(r.ranks.values()) <= {1, 2, 3} and min(r.ranks.values()) == 1
        for s in range(3):  # at most the six contracts, each once
            assert set(table.state.used[s]) <= set(CONTRACTS)


def test_deterministic_same_seed_same_events():
    bots = [HeuristicBot(), RandomBot(), HeuristicBot()]
    a = play_match(7, bots, options={"max_deals": 3}).events
    b = play_match(7, bots, options={"max_deals": 3}).events
    assert [encode(e) for e in a] == [encode(e) for e in b]


def test_derived_events_recompute_from_state():
    """What ``audit recheck`` relies on: each derived event is what ``automatic``
    gives for the state before it."""
    table = play_match(3, [HeuristicBot(), RandomBot(), HeuristicBot()], options={"max_deals": 2})
    state = G.start(table.created)
    derived = 0
    for e in table.events:
        if type(e).derived:
            assert G.automatic(state) == [e]
            derived += 1
        state = G.evolve(state, e)
    scored = sum(isinstance(e, DealScored) for e in table.events)
    assert state == table.state and scored and derived == 17 * scored + 1


def test_heuristic_bot_ducks_in_nullo_and_wins_cheaply_otherwise():
    bot = HeuristicBot()
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "JS", "4S"], ["KS", "JS", "4S"], v) == "JS"  # the highest card under QS
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}]}
    assert bot._play(["AH", "2C"], ["AH", "2C"], v) == "AH"  # void: discard the most dangerous card
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "AS", "4S"], ["KS", "AS", "4S"], v) == "KS"  # last to play: the cheapest winner
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["3H", "KH", "2C"], ["3H", "KH", "2C"], v) == "3H"  # void: ruff low
