"""Weighted adjusted scores (bridge Law 12C1(c)): a TD replaces a ruled deal's score.

Either by weights over hypotheticals (``H1:0.6,H2:0.4``: each made from the ruled
deal and played to its settlement; the awarded score is the weighted mean of their
deal scores) or directly (``ann=+2,bob=-1,cy=-1``). Game scores are whole points, so
the weighted mean is rounded by largest remainder (each player's share floored, the
points left over going to the largest fractions, ties in seat order): the awarded
scores keep the exact mean's sum. The decision event records the deal's score as
played, the exact awarded mean and the adjustment, so the original result stays
readable beside the adjusted one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import msgspec

from kartludo.app.errors import AppError, UnknownPlayer
from kartludo.app.matches.pipeline import stream_of
from kartludo.engine.base import Game
from kartludo.store import EventStore


class Adjustment(msgspec.Struct):
    deal: int
    recorded: dict[str, int]
    adjusted: dict[str, float]
    adjustment: dict[str, int]
    weights: dict[str, float] = {}


_WEIGHT = re.compile(r"^\s*([^:\s]+)\s*:\s*([0-9]*\.?[0-9]+)\s*$")
_SCORE = re.compile(r"^\s*([^=\s]+)\s*=\s*([+-]?[0-9]+)\s*$")


def parse_weights(text: str) -> list[tuple[str, Fraction]]:
    """``H1:0.6,H2:0.4`` -> [(H1, 3/5), (H2, 2/5)]; the weights must sum to exactly 1."""
    out = []
    for part in text.split(","):
        m = _WEIGHT.match(part)
        if not m:
            raise AppError(f"--adjust {part.strip()!r} is not HYPOTHETICAL:WEIGHT (e.g. 5e1d:0.6)")
        weight = Fraction(m.group(2))
        if weight <= 0:
            raise AppError(f"--adjust {part.strip()!r}: a weight is greater than 0")
        out.append((m.group(1), weight))
    total = sum((w for _, w in out), Fraction(0))
    if total != 1:
        raise AppError(f"--adjust weights sum to {float(total):g}, not 1")
    return out


def parse_scores(text: str) -> dict[str, int]:
    """``ann=+2,bob=-1,cy=-1`` -> {"ann": 2, "bob": -1, "cy": -1}."""
    out: dict[str, int] = {}
    for part in text.split(","):
        m = _SCORE.match(part)
        if not m:
            raise AppError(f"--adjust-scores {part.strip()!r} is not PLAYER=SCORE (e.g. ann=+2)")
        if m.group(1) in out:
            raise AppError(f"--adjust-scores names {m.group(1)} twice")
        out[m.group(1)] = int(m.group(2))
    return out


def largest_remainder(exact: dict[str, Fraction], players: Sequence[str]) -> dict[str, int]:
    """Whole points keeping the exact values' (rounded) sum."""
    floors = {p: math.floor(exact[p]) for p in players}
    target = round(sum(exact.values(), Fraction(0)))
    left = target - sum(floors.values())
    order = sorted(players, key=lambda p: (-(exact[p] - floors[p]), players.index(p)))
    for p in order[:max(0, left)]:
        floors[p] += 1
    return floors


def recorded_deal_score(store: EventStore, match_id: str, deal: int) -> dict[str, int]:
    """The ruled deal's score as played (totals at its settlement minus at its start)."""
    from kartludo.app.hypotheticals.hypothetical import deal_settled, score_change
    from kartludo.app.reading.replay import build

    replay = build(match_id, store.read_stream(stream_of(match_id)), deal)
    game, players = replay.game, replay.match.players
    for st in replay.steps:
        if deal_settled(game, st.state):
            return score_change(game, replay.steps[0].before, st.state, players)
    raise AppError(f"deal {deal} of match {match_id} has not been settled yet: adjust its score once it has")


def compute(store: EventStore, match_id: str, deal: int, game: Game[Any], players: Sequence[str], *,
            weights: str | None = None, scores: str | None = None) -> Adjustment:
    """The adjustment of ``deal`` by hypothetical weights or by scores set directly."""
    from kartludo.app.hypotheticals import hypothetical as hy

    if (weights is None) == (scores is None):
        raise AppError("adjust with either --adjust H1:W1,… or --adjust-scores PLAYER=SCORE,…")
    recorded = recorded_deal_score(store, match_id, deal)
    used: dict[str, float] = {}
    if scores is not None:
        given = parse_scores(scores)
        unknown = sorted(set(given) - set(players))
        if unknown:
            raise UnknownPlayer(f"--adjust-scores: {', '.join(unknown)} does not play in match {match_id} "
                                f"(players: {', '.join(players)})")
        missing = [p for p in players if p not in given]
        if missing:
            raise AppError(f"--adjust-scores gives no score for {', '.join(missing)}: name every player")
        exact = {p: Fraction(given[p]) for p in players}
    else:
        exact = {p: Fraction(0) for p in players}
        for ref, weight in parse_weights(weights or ""):
            h = hy.load(store, ref)
            if h.started.match != match_id or h.started.deal != deal:
                raise AppError(f"hypothetical {h.id} was made from match {h.started.match} deal {h.started.deal}, "
                               f"not the ruled deal (match {match_id} deal {deal})")
            result = h.deal_scores()
            if result is None:
                raise AppError(f"hypothetical {h.id} is not played to its settlement (phase "
                               f"{h.game.phase(h.match.state)}): play it out or choose another")
            if h.id in used:
                raise AppError(f"--adjust names hypothetical {h.id} twice")
            used[h.id] = float(weight)
            for p in players:
                exact[p] += weight * result[p]
    if game.zero_sum_scores and sum(exact.values()) != 0:
        raise AppError(f"{game.title}'s deal scores always sum to 0 (they move markers between pairs): "
                       f"these sum to {float(sum(exact.values())):+g}")
    awarded = largest_remainder(exact, list(players))
    return Adjustment(deal=deal, recorded=recorded, adjusted={p: float(exact[p]) for p in players},
                      adjustment={p: awarded[p] - recorded[p] for p in players}, weights=used)
