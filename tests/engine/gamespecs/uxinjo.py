"""Uxinjo in the cross-game suites: three players, the Jx deck, markers between pairs."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec

from kartludo.engine.base import ALL, Command
from kartludo.engine.bots import RandomBot
from kartludo.engine.jx import JX_DECK
from kartludo.engine.uxinjo import UXINJO, Discard, Draw, Eltiri, Levu, Munt, Pass, Take
from kartludo.engine.uxinjo.bots import HeuristicBot
from kartludo.events.match import DealStarted, MatchCreated
from kartludo.events.uxinjo import Drew, Exposed

from . import DRAWN, BotMatch, Coverage, GameSpec, Mode, Played, Step

CODES = sorted(set(JX_DECK))


def created(n: int, seed: int, options: dict[str, Any]) -> MatchCreated:
    from uxinjo_helpers import Table

    return msgspec.structs.replace(Table(options).created, seed=seed)


def cards(state: Any) -> Counter[str] | None:
    if not state.deal:
        return None
    found = Counter(c for h in state.hands for c in h)
    found.update(state.stock)
    found.update(state.discards)
    found.update(c for e in state.exposed for c in e)
    return found


def candidates(state: Any, seat: int, rng: random.Random) -> list[Command]:
    out: list[Command] = [Draw(seat=seat), Take(seat=seat), Munt(seat=seat), Pass(seat=seat), Levu(seat=seat)]
    out += [Discard(seat=seat, card=c) for c in CODES] + [Eltiri(seat=seat, card=c) for c in CODES]
    return out


def check_step(step: Step) -> None:
    state, names = step.state, step.names
    assert all(-6 <= m <= 6 for m in state.markers)
    v = step.views[ALL]
    for a in names:
        for b in names:
            if a != b:
                assert v["markers"][a][b] == -v["markers"][b][a]
    assert sum(v["totals"].values()) == 0
    for seat in range(3):
        assert "stock" not in step.views[seat]
        for e in step.events:
            r = step.redact(e, seat)
            if isinstance(e, DealStarted):
                own = [c for i, c in enumerate(r.deck) if i < 15 and (e.dealer + 1 + i) % 3 == seat]
                assert "??" not in own and r.deck.count("??") == 38 - 6  # five own cards and the revealed one
            if isinstance(e, Drew) and e.seat != seat:
                assert r.card == "??"
            if isinstance(e, Exposed) and e.seat != seat:
                assert r.replacement == "??"


def never_fouls(played: Played) -> None:
    assert UXINJO.view(played.state, ALL)["fouls"] == {p: 0 for p in played.names}


def check_reference(played: Played, coverage: Coverage) -> None:
    assert coverage.derived > 0


def check_finished(played: Played) -> None:
    r = UXINJO.result(played.state)
    assert set(r.scores) == set(played.names) and r.match_points == r.scores
    assert any(abs(m) == 6 for m in played.state.markers)


SPEC = GameSpec(
    game=UXINJO,
    player_counts=(3,),
    created=created,
    cards=cards,
    candidates=candidates,
    check_step=check_step,
    modes={
        "drawn": Mode(lambda n: [DRAWN] * 3, examples=30, deals=3, exhaustive=0.1),
        "heuristic": Mode(lambda n: [HeuristicBot()] * 3, examples=15, deals=8, exhaustive=0.05,
                          check_end=never_fouls),
        "mixed": Mode(lambda n: [HeuristicBot(foul_rate=0.05), DRAWN, HeuristicBot(levu=True)], examples=20,
                      deals=6, exhaustive=0.1),
    },
    reference=BotMatch(3, lambda: [HeuristicBot(foul_rate=0.1), RandomBot(), HeuristicBot()], seeds=[3], deals=20),
    check_reference=check_reference,
    deterministic=BotMatch(3, lambda: [HeuristicBot(foul_rate=0.05), RandomBot(), HeuristicBot()], seeds=[7],
                           deals=5),
    finishing=[BotMatch(3, lambda: [HeuristicBot()] * 3, seeds=range(15), deals=60)],
    check_finished=check_finished,
    min_finished=10,
)
