"""Laugavatnsmanni in the cross-game suites: three players, 52 cards, sixteen tricks a deal."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec

from kartludo.engine.base import Command
from kartludo.engine.bots import RandomBot
from kartludo.engine.french import DECK_52, sort_cards
from kartludo.engine.laugavatnsmanni import LAUGAVATNSMANNI as G
from kartludo.engine.laugavatnsmanni import Contract, Exchange, Great, Hold, Pass, Play, Yield
from kartludo.engine.laugavatnsmanni.bots import HeuristicBot
from kartludo.engine.laugavatnsmanni.state import CONTRACTS
from kartludo.events.laugavatnsmanni import ContractChosen, DealScored, Exchanged, TrickWon
from kartludo.events.match import DealStarted, MatchCreated

from . import DRAWN, BotMatch, Coverage, GameSpec, Mode, Played, Step


def created(n: int, seed: int, options: dict[str, Any]) -> MatchCreated:
    from laugavatnsmanni_helpers import Table

    return msgspec.structs.replace(Table(options).created, seed=seed)


def cards(state: Any) -> Counter[str] | None:
    if not state.deal:
        return None
    found = Counter(c for h in state.hands for c in h)
    found.update(state.manni)
    found.update(state.discards)
    found.update(state.trick)
    found.update(c for w in state.won for c in w)
    return found


def candidates(state: Any, seat: int, rng: random.Random) -> list[Command]:
    """Every verb with every argument, and a sample of exchanges (held or not)."""
    out: list[Command] = [Pass(seat=seat), Yield(seat=seat)]
    for c in CONTRACTS:
        out += [Contract(seat=seat, contract=c), Great(seat=seat, contract=c), Hold(seat=seat, contract=c)]
    out += [Play(seat=seat, card=c) for c in DECK_52]
    out.append(Exchange(seat=seat, cards=()))
    pool = list(state.hands[seat]) or list(DECK_52)
    for k in (1, 2, 3, 4, 5):
        for _ in range(3):
            chosen = rng.sample(pool, min(k, len(pool)))
            out.append(Exchange(seat=seat, cards=sort_cards(chosen)))
            out.append(Exchange(seat=seat, cards=sort_cards(chosen[:-1] + [rng.choice(DECK_52)])))
    return out


def strings(value: Any):
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


def check_step(step: Step) -> None:
    state = step.state
    if state.deal:
        assert sum(len(w) for w in state.won) == 3 * state.tricks_played
        sizes = [len(h) for h in state.hands]
        assert max(sizes) - min(sizes) <= 1 and max(sizes) == 16 - state.tricks_played
        assert sum(sizes) == 48 - 3 * state.tricks_played - len(state.trick)
        assert len(state.manni) + len(state.discards) == 4
    for s in range(3):
        assert len(set(state.used[s])) == len(state.used[s])
    assert sum(state.totals) == 0  # every deal's scores add up to zero
    for seat in range(3):
        sv = step.views[seat]
        hidden = set(state.manni)
        for other in range(3):
            if other != seat:
                hidden.update(state.hands[other])
        if state.declarer != seat:
            hidden.update(state.discards)
        assert not hidden & set(strings(sv)), hidden & set(strings(sv))
        for e in step.events:
            r = step.redact(e, seat)
            if isinstance(e, DealStarted):
                own = [i for i in range(48) if (e.dealer + 1 + i // 4) % 3 == seat]
                assert [r.deck[i] for i in own] == [e.deck[i] for i in own]
                assert r.deck.count("??") == 52 - 16 and sorted(r.deck[i] for i in own) == sorted(state.hands[seat])
            if isinstance(e, Exchanged) and e.seat != seat:
                assert set(r.discards) <= {"??"} and set(r.taken) <= {"??"}


def check_match(played: Played) -> None:
    """Sixteen tricks a deal, zero-sum deals, running totals, each contract chosen once."""
    events, state = played.events, played.state
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
    assert list(state.totals) == totals
    chosen: list[list[str]] = [[], [], []]
    for e in events:
        if isinstance(e, ContractChosen):
            chosen[e.seat].append(e.contract)
    assert [list(u) for u in state.used] == chosen
    if G.is_finished(state):
        assert len(scored) == len(deals)
        assert max(totals) >= state.target_points or len(deals) == state.max_deals
        assert all(max(s.totals) < state.target_points for s in scored[:-1])


def check_reference(played: Played, coverage: Coverage) -> None:
    scored = sum(isinstance(e, DealScored) for e in played.events)
    assert scored and coverage.derived == 17 * scored + 1  # sixteen tricks and a score a deal, the match end


def check_finished(played: Played) -> None:
    state = played.state
    r = G.result(state)
    assert r.scores == dict(zip(played.names, state.totals))
    assert set(r.ranks.values()) <= {1, 2, 3} and min(r.ranks.values()) == 1
    for s in range(3):  # at most the six contracts, each once
        assert set(state.used[s]) <= set(CONTRACTS)


SPEC = GameSpec(
    game=G,
    player_counts=(3,),
    created=created,
    cards=cards,
    candidates=candidates,
    check_step=check_step,
    modes={
        "drawn": Mode(lambda n: [DRAWN] * 3, examples=8, options={"max_deals": 2}),
        "heuristic": Mode(lambda n: [HeuristicBot()] * 3, examples=6, options={"max_deals": 2}),
        "mixed": Mode(lambda n: [HeuristicBot(), DRAWN, HeuristicBot()], examples=8,
                      options={"max_deals": 2, "target_points": 4}),
    },
    reference=BotMatch(3, lambda: [HeuristicBot(), RandomBot(), HeuristicBot()], seeds=[3], options={"max_deals": 2}),
    check_reference=check_reference,
    deterministic=BotMatch(3, lambda: [HeuristicBot(), RandomBot(), HeuristicBot()], seeds=[7],
                           options={"max_deals": 3}),
    finishing=[BotMatch(3, lambda: [RandomBot(), HeuristicBot(), RandomBot()], seeds=range(0, 12, 2)),
               BotMatch(3, lambda: [HeuristicBot()] * 3, seeds=range(1, 12, 2))],
    check_finished=check_finished,
    check_match=check_match,
    legal_sample=40,
    one_to_act=True,
)
