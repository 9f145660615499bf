"""Bot-played Hakamo matches: invariants that must hold in every state."""

from __future__ import annotations

import json
import random
from collections import Counter

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kartludo.engine.base import ALL, PUBLIC, IllegalCommand, fold
from kartludo.engine.bots import RandomBot
from kartludo.engine.hakamo import HAKAMO, Bid, Declare, Exchange, Keep, Lay, Pass, Play, Recruit, Resign, Solo
from kartludo.engine.hakamo.bots import HeuristicBot
from kartludo.engine.hakamo.state import Phase
from kartludo.engine.jx import JX_DECK
from kartludo.events.base import decode, encode, from_builtins, to_json
from kartludo.events.hakamo import DealScored, KasxetojLaid, KasxetojTaken, PassedOut
from kartludo.events.match import DealStarted

from hakamo_helpers import PLAYERS, play_match

CODES = sorted(set(JX_DECK))
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_command(state, seat):
    """Every verb with a spread of arguments, legal or not."""
    out = [Pass(seat=seat), Keep(seat=seat), Exchange(seat=seat), Solo(seat=seat), Recruit(seat=seat),
           Resign(seat=seat)]
    out += [Bid(seat=seat, amount=n) for n in range(-1, 60)]
    out += [Declare(seat=seat, target=t) for t in (0, 1, 2, 3, None)]
    out += [Play(seat=seat, card=c) for c in CODES]
    hand = sorted(set(state.hands[seat])) + ["C", "PJ"]
    out += [Lay(seat=seat, upper=u, upper_up=uu, lower=lo, lower_up=lu)
            for u in hand for lo in hand for uu in (True, False) for lu in (True, False)]
    return out


def accepted(state, cmd):
    try:
        HAKAMO.decide(state, cmd)
    except IllegalCommand:
        return False
    return True


def all_cards(state) -> Counter:
    cards = Counter(c for h in state.hands for c in h)
    cards.update(c for t in state.taken for c in t)
    cards.update(state.cancelled)
    cards.update(state.mati_cards)
    cards.update(state.kasxetoj)
    cards.update(c for _, c in state.trick)
    return cards


class Checker:
    """Runs after every command of a bot match."""

    def __init__(self, seed: int, exhaustive: float) -> None:
        self.rng = random.Random(seed)
        self.exhaustive = exhaustive

    def __call__(self, table, before, state, events) -> None:
        if state.deal:
            assert all_cards(state) == Counter(JX_DECK)
        for e in events:
            if isinstance(e, DealScored):
                scorers = {a.seat for a in e.awards}
                assert scorers <= {e.deklaristo, e.kunulo}  # only the Deklaristo and the Kunulo score
                assert e.deklaristo in scorers
                if not e.resigned:
                    assert sum(a.points for a in e.awards) == (e.contract if e.won else -e.contract)
                    assert e.gv == e.gv_base + sum(e.bonuses.values())
                    assert not (e.bonuses and e.bonuses_void)
                    if e.gv_base == 0:
                        assert not e.bonuses and e.gv == 0
                row = state.history[e.counted - 1]
                assert all(row[o] == 0 for o in range(4) if o not in scorers)
        if any(isinstance(e, (DealScored, PassedOut)) for e in events):  # refold at every deal's end
            assert fold(HAKAMO, table.created, table.events) == state
        v = HAKAMO.view(state, ALL)
        assert sum(v["totals"].values()) == sum(sum(row.values()) for row in v["history"])
        assert [sum(row[p] for row in v["history"]) for p in PLAYERS] == list(v["totals"].values())
        json.dumps(v)
        public = HAKAMO.view(state, PUBLIC)
        assert public["hands"] == {}
        self.hidden_kasxetoj(state, public, None)
        for seat in range(4):
            sv = HAKAMO.view(state, seat)
            assert set(sv["hands"]) <= {PLAYERS[seat]}
            json.dumps(sv)
            self.hidden_kasxetoj(state, sv, seat)
            self.check_legal(state, seat)
            for e in events:
                self.check_redaction(e, seat)
                HAKAMO.describe(before, e, seat)
            HAKAMO.render(state, seat)
        for e in events:
            data = msgspec.json.decode(to_json(e))
            assert to_json(from_builtins(e.type_tag(), e.schema, data)) == to_json(e)
            assert decode(e.type_tag(), e.schema, encode(e)) == e

    @staticmethod
    def hidden_kasxetoj(state, v, seat) -> None:
        k = v["kasxetoj"]
        if not k or k["upper"] is None:
            return
        knows = seat is not None and seat == state.deklaristo and state.kept is False
        for part in ("upper", "lower"):
            if not k[f"{part}_up"] and not knows:
                assert k[part] == "??"

    @staticmethod
    def check_redaction(e, seat) -> None:
        r = HAKAMO.redact(e, seat)
        if isinstance(e, DealStarted):
            own = [c for i, c in enumerate(r.deck) if i < 36 and (e.dealer + 1 + i) % 4 == seat]
            assert "??" not in own and r.deck.count("??") == 38 - 9
        if isinstance(e, KasxetojTaken) and e.seat != seat:
            assert r.cards == ["??", "??"]
        if isinstance(e, KasxetojLaid) and e.seat != seat:
            assert (r.upper == "??") == (not e.upper_up) and (r.lower == "??") == (not e.lower_up)

    def check_legal(self, state, seat) -> None:
        legal = HAKAMO.legal_commands(state, seat)
        assert legal == sorted(legal)
        assert all(c.seat == seat for c in legal)
        if seat in HAKAMO.to_act(state):
            assert legal, "a seat to act always has a legal command"
        else:
            assert not legal
        for cmd in legal:
            assert accepted(state, cmd), cmd.text()
            verb, *args = cmd.text().split()
            assert HAKAMO.parse_command(seat, verb, args) == cmd
        if self.rng.random() < self.exhaustive:
            for cmd in every_command(state, seat):
                assert accepted(state, cmd) == (cmd in legal), cmd.text()


def run(seed, bots, max_deals=12, exhaustive=0.02):
    table, events = play_match(seed, bots, max_deals=max_deals, check=Checker(seed, exhaustive))
    assert fold(HAKAMO, table.created, events) == table.state
    return table, events


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_random_bots_keep_every_invariant(seed):
    run(seed, [RandomBot()] * 4, max_deals=3)


@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_heuristic_and_mixed_bots_keep_every_invariant(seed):
    run(seed, [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], max_deals=4)


def test_bot_matches_finish_after_eight_counted_deals():
    for seed in range(6):
        for bots in ([HeuristicBot()] * 4, [RandomBot()] * 4):
            table, events = play_match(seed, bots, max_deals=200)
            assert HAKAMO.is_finished(table.state)
            scored = [e for e in events if isinstance(e, DealScored)]
            assert len(scored) == 8 and table.state.counted == 8
            started = [e for e in events if isinstance(e, DealStarted)]
            assert len(started) == 8 + sum(1 for e in events if e.type_tag() == "hakamo.passed-out")
            r = HAKAMO.result(table.state)
            assert r.scores == HAKAMO.view(table.state, None)["totals"]
            assert fold(HAKAMO, table.created, events) == table.state


def test_heuristic_deklaristo_wins_more_than_random():
    def wins(bots):
        won = total = 0
        for seed in range(8):
            _, events = play_match(seed, bots, max_deals=200)
            for e in events:
                if isinstance(e, DealScored) and not e.resigned:
                    total += 1
                    won += bool(e.won)
        return won / max(total, 1)

    assert wins([HeuristicBot()] * 4) > wins([RandomBot()] * 4) + 0.3


def test_deterministic_same_seed_same_events():
    bots = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()]
    _, a = play_match(7, bots, max_deals=6)
    _, b = play_match(7, bots, max_deals=6)
    assert [encode(e) for e in a] == [encode(e) for e in b]


def test_derived_events_recompute_from_state():
    """What ``audit recheck`` relies on: each derived event is what ``automatic``
    gives for the state before it."""
    table, events = play_match(3, [RandomBot()] * 4, max_deals=200)
    state = HAKAMO.start(table.created)
    derived = 0
    for e in events:
        if type(e).derived:
            assert HAKAMO.automatic(state) == [e]
            derived += 1
        else:
            assert HAKAMO.automatic(state) == []
        state = HAKAMO.evolve(state, e)
    assert state == table.state and derived > 8 and state.phase is Phase.FINISHED
