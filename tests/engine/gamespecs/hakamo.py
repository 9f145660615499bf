"""Hakamo in the cross-game suites: four players, the Jx deck, the Kasxetoj, eight counted deals."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec

from kartludo.engine.base import ALL, PUBLIC, Command
from kartludo.engine.bots import RandomBot
from kartludo.engine.hakamo import HAKAMO, Bid, Declare, Exchange, Keep, Lay, Pass, Play, Recruit, Resign, Solo
from kartludo.engine.hakamo.bots import HeuristicBot
from kartludo.engine.hakamo.state import Phase
from kartludo.engine.jx import JX_DECK
from kartludo.events.hakamo import DealScored, KasxetojLaid, KasxetojTaken, PassedOut
from kartludo.events.match import DealStarted, MatchCreated

from . import DRAWN, BotMatch, Coverage, GameSpec, Mode, Played, Step

CODES = sorted(set(JX_DECK))


def created(n: int, seed: int, options: dict[str, Any]) -> MatchCreated:
    from hakamo_helpers import Table

    return msgspec.structs.replace(Table().created, seed=seed, options=dict(options))


def cards(state: Any) -> Counter[str] | None:
    if not state.deal:
        return None
    found = Counter(c for h in state.hands for c in h)
    found.update(c for t in state.taken for c in t)
    found.update(state.cancelled)
    found.update(state.mati_cards)
    found.update(state.kasxetoj)
    found.update(c for _, c in state.trick)
    return found


def candidates(state: Any, seat: int, rng: random.Random) -> list[Command]:
    """Every verb with a spread of arguments, legal or not."""
    out: list[Command] = [Pass(seat=seat), Keep(seat=seat), Exchange(seat=seat), Solo(seat=seat),
                          Recruit(seat=seat), Resign(seat=seat)]
    out += [Bid(seat=seat, amount=n) for n in range(-1, 60)]
    out += [Declare(seat=seat, target=t) for t in (0, 1, 2, 3, None)]
    out += [Play(seat=seat, card=c) for c in CODES]
    hand = sorted(set(state.hands[seat])) + ["C", "PJ"]
    out += [Lay(seat=seat, upper=u, upper_up=uu, lower=lo, lower_up=lu)
            for u in hand for lo in hand for uu in (True, False) for lu in (True, False)]
    return out


def hidden_kasxetoj(state: Any, view: dict[str, Any], seat: int | None) -> None:
    """A face-down Kasxeto shows only to the Deklaristo who took them (never after a keep)."""
    k = view["kasxetoj"]
    if not k or k["upper"] is None:
        return
    knows = seat is not None and seat == state.deklaristo and state.kept is False
    for part in ("upper", "lower"):
        if not k[f"{part}_up"] and not knows:
            assert k[part] == "??"


def check_step(step: Step) -> None:
    state, names = step.state, step.names
    for e in step.events:
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
    v = step.views[ALL]
    assert sum(v["totals"].values()) == sum(sum(row.values()) for row in v["history"])
    assert [sum(row[p] for row in v["history"]) for p in names] == list(v["totals"].values())
    hidden_kasxetoj(state, step.views[PUBLIC], None)
    for seat in range(4):
        hidden_kasxetoj(state, step.views[seat], seat)
        for e in step.events:
            r = step.redact(e, seat)
            if isinstance(e, DealStarted):
                own = [c for i, c in enumerate(r.deck) if i < 36 and (e.dealer + 1 + i) % 4 == seat]
                assert "??" not in own and r.deck.count("??") == 38 - 9
            if isinstance(e, KasxetojTaken) and e.seat != seat:
                assert r.cards == ["??", "??"]
            if isinstance(e, KasxetojLaid) and e.seat != seat:
                assert (r.upper == "??") == (not e.upper_up) and (r.lower == "??") == (not e.lower_up)


def check_reference(played: Played, coverage: Coverage) -> None:
    assert coverage.derived > 8 and played.state.phase is Phase.FINISHED


def check_finished(played: Played) -> None:
    """A match is eight counted deals; a passed-out deal is dealt again and does not count."""
    events, state = played.events, played.state
    scored = [e for e in events if isinstance(e, DealScored)]
    assert len(scored) == 8 and state.counted == 8
    started = [e for e in events if isinstance(e, DealStarted)]
    assert len(started) == 8 + sum(1 for e in events if isinstance(e, PassedOut))
    assert HAKAMO.result(state).scores == HAKAMO.view(state, None)["totals"]


SPEC = GameSpec(
    game=HAKAMO,
    player_counts=(4,),
    created=created,
    cards=cards,
    candidates=candidates,
    check_step=check_step,
    modes={
        "drawn": Mode(lambda n: [DRAWN] * 4, examples=8, deals=3, exhaustive=0.02),
        "heuristic": Mode(lambda n: [HeuristicBot()] * 4, examples=6, deals=4, exhaustive=0.02),
        "mixed": Mode(lambda n: [HeuristicBot(), DRAWN, HeuristicBot(), DRAWN], examples=8, deals=4,
                      exhaustive=0.02),
    },
    reference=BotMatch(4, lambda: [RandomBot()] * 4, seeds=[3], deals=200),
    check_reference=check_reference,
    deterministic=BotMatch(4, lambda: [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], seeds=[7], deals=6),
    finishing=[BotMatch(4, lambda: [HeuristicBot()] * 4, seeds=range(6), deals=200),
               BotMatch(4, lambda: [RandomBot()] * 4, seeds=range(6), deals=200)],
    check_finished=check_finished,
)
