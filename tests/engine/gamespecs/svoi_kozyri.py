"""Svoi Kozyri in the cross-game suites: two to four players, 36 cards, a trump suit each.

Deal length: the rules set no limit, so a deal could in principle go on for ever
(two players handing the same cards back and forth). Random play does finish, but
slowly (a few thousand commands per deal is typical, tens of thousands happen); the
heuristic bot takes tens to hundreds. The bounds below are generous; a deal passing
one fails its test with ``DealTooLong`` naming the seed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from kartludo.engine.base import ALL, PUBLIC, Command
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import DECK_36
from kartludo.engine.svoi_kozyri import SVOI_KOZYRI as G
from kartludo.engine.svoi_kozyri import Pickup, Play
from kartludo.engine.svoi_kozyri.bots import HeuristicBot
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded

from . import DRAWN, BotMatch, Coverage, GameSpec, Mode, Played, Step

#: player commands one deal may take before a test reports it (random bots)
RANDOM_DEAL_BOUND = 200_000
#: the same for the heuristic bot
HEURISTIC_DEAL_BOUND = 3_000


def created(n: int, seed: int, options: dict[str, Any]) -> MatchCreated:
    from svoi_kozyri_helpers import Table

    return Table(n, seed=seed, deals=options.get("deals", 8), trumps=options.get("trumps")).created


def cards(state: Any) -> Counter[str] | None:
    if not state.deal:
        return None
    found = Counter(c for h in state.hands for c in h)
    found.update(state.pile)
    return found


def candidates(state: Any, seat: int, rng: random.Random) -> list[Command]:
    return [Pickup(seat=seat)] + [Play(seat=seat, card=c) for c in DECK_36]


def check_step(step: Step) -> None:
    state, n = step.state, step.n
    names = step.names
    assert state.completed == len(state.results) and state.deal - state.completed in (0, 1)
    assert sum(state.losses) == sum(1 for r in state.results if r >= 0)
    v = step.views[ALL]
    assert v["totals"] == v["losses"] == {names[i]: state.losses[i] for i in range(n)}
    assert v["pile"] == list(state.pile) and set(v["trumps"]) == set(names)
    assert sum(v["hand_sizes"].values()) + len(v["pile"]) == (36 if state.deal else 0)
    if state.phase.value in ("lead", "beat", "extra", "free"):
        assert v["due"] == state.phase.value and G.to_act(state) == [state.turn]
        assert state.hands[state.turn] and state.turn not in state.out
        assert (state.phase.value == "lead") == (not state.pile)
        assert len([h for h in state.hands if h]) >= 2
    for seat in range(n):
        text = json.dumps(step.views[seat])
        for other in range(n):
            if other != seat:
                for card in state.hands[other]:
                    assert f'"{card}"' not in text, (seat, card)
        for e in step.events:
            r = step.redact(e, seat)
            if isinstance(e, DealStarted):
                mine = [c for i, c in enumerate(r.deck) if (e.dealer + 1 + i) % n == seat]
                assert "??" not in mine and r.deck.count("??") == 36 - 36 // n
                assert step.redact(e, PUBLIC).deck == ["??"] * 36
            if isinstance(e, DealEnded) and seat != e.last and len(e.hand) > 1:
                assert set(r.hand) == {"??"}
    for e in step.events:
        if isinstance(e, DealEnded):
            # exactly one loser or a draw: everybody else has emptied the hand
            assert e.outcome in ("loss", "draw") and state.hands[e.last]
            assert all(not state.hands[s] for s in range(n) if s != e.last)
            assert (e.outcome == "draw") == (len(e.hand) == 1 and e.beats)
            assert sorted(e.out + [e.last]) == list(range(n))


def two_deals_ended(played: Played) -> None:
    assert len(played.lengths) == 2


def check_reference(played: Played, coverage: Coverage) -> None:
    assert coverage.derived == 8 + 8 + 1  # sixes and an end per deal, the match end


def check_finished(played: Played) -> None:
    events = played.events
    assert len(played.lengths) == 8
    ended = [e for e in events if isinstance(e, DealEnded)]
    assert [e.deal for e in ended] == sorted({e.deal for e in ended})
    assert len(ended) == 8
    final = events[-1]
    assert isinstance(final, MatchEnded) and final.deals == 8
    r = G.result(played.state)
    assert r.higher_is_better is False and sum(r.scores.values()) == 8 - final.draws
    assert r.scores == final.losses and r.ranks == final.ranks
    best = min(r.scores.values())
    assert {p for p, rank in r.ranks.items() if rank == 1} == {p for p, s in r.scores.items() if s == best}
    # the loser deals next; after a draw the same dealer deals again
    starts = [e for e in events if isinstance(e, DealStarted)]
    for prev, nxt, end in zip(starts, starts[1:], ended):
        assert nxt.dealer == (end.last if end.outcome == "loss" else prev.dealer)


SPEC = GameSpec(
    game=G,
    player_counts=(2, 3, 4),
    created=created,
    cards=cards,
    candidates=candidates,
    check_step=check_step,
    modes={
        # random play, checked command by command over the first 250 commands
        "drawn": Mode(lambda n: [DRAWN] * n, examples=8, deals=1, max_commands=250, exhaustive=0.2),
        "heuristic": Mode(lambda n: [HeuristicBot()] * n, examples=8, deals=2, per_deal=HEURISTIC_DEAL_BOUND,
                          exhaustive=0.1, check_end=two_deals_ended),
        "mixed": Mode(lambda n: [HeuristicBot(vary=0.0), DRAWN, HeuristicBot(), DRAWN][:n], examples=4, deals=2,
                      per_deal=RANDOM_DEAL_BOUND, max_commands=400, exhaustive=0.1),
    },
    reference=BotMatch(4, lambda: [HeuristicBot()] * 4, seeds=[3], deals=8, per_deal=HEURISTIC_DEAL_BOUND),
    check_reference=check_reference,
    deterministic=BotMatch(3, lambda: [HeuristicBot(), RandomBot(), HeuristicBot()], seeds=[7], deals=2,
                           per_deal=RANDOM_DEAL_BOUND, max_commands=3000),
    finishing=[BotMatch(n, lambda: [HeuristicBot()] * 4, seeds=range(12), deals=8, per_deal=HEURISTIC_DEAL_BOUND)
               for n in (2, 3, 4)],
    check_finished=check_finished,
    legal_sample=None,
    one_to_act=True,
)
