"""League standings, with openskill ratings, ranked from the results projection's rows
(``projections.queries.final_results`` reads them).

Per game (or across games): matches, wins, places, the game's own totals (Uxinjo
MP, Hakamo and Laugavatnsmanni points, Svoi Kozyri losses), placement match points
(players placed below minus players placed above, ties sharing), and a
Plackett-Luce rating replayed over the matches in the order they finished (ties
as equal ranks). The displayed rating is conservative (mu - 3 sigma); fewer than
``PROVISIONAL_BELOW`` matches marks it provisional.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.projections.queries import final_results
from kartludo.store import EventStore

PROVISIONAL_BELOW = 5
SORTS = ("rating", "matches", "wins", "score", "placement", "player")


class Standing(msgspec.Struct):
    player: str
    matches: int = 0
    wins: int = 0
    places: dict[str, int] = {}
    score: int | None = 0
    match_points: int | None = None
    placement_points: int = 0
    fouls: int = 0
    rating: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    provisional: bool = True


def standings(store: EventStore, game: str | None = None, sort: str = "rating", *,
              refreshed: bool = False) -> list[Standing]:
    """League standings (of ``game``, or across games) from the finished matches' results."""
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r} (sorts: {', '.join(SORTS)})")
    rows = final_results(store, game, refreshed=refreshed)
    return rank_players(rows, single_game=game is not None, sort=sort)


def rank_players(rows: list[Any], *, single_game: bool, sort: str = "rating") -> list[Standing]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    table: dict[str, Standing] = {}
    ratings: dict[str, Any] = {}
    by_match: dict[str, list[Any]] = {}
    for r in rows:
        by_match.setdefault(r.match_id, []).append(r)
        s = table.setdefault(r.player, Standing(r.player, places={}))
        s.matches += 1
        s.wins += r.rank == 1
        s.places[str(r.rank)] = s.places.get(str(r.rank), 0) + 1
        s.placement_points += r.placement_points
        s.fouls += r.fouls
        if r.match_points is not None:
            s.match_points = (s.match_points or 0) + r.match_points
        if single_game and s.score is not None:
            s.score += r.score
    if not single_game:
        for s in table.values():
            s.score = None  # the games' own totals do not add up across games
    for seats in by_match.values():  # in the order the matches finished
        players = [r.player for r in seats]
        teams = [[ratings.get(p) or model.rating(name=p)] for p in players]
        rated = model.rate(teams, ranks=[r.rank for r in seats])
        for p, team in zip(players, rated):
            ratings[p] = team[0]
    higher = rows[0].higher_is_better if rows else True
    for p, s in table.items():
        rating = ratings[p]
        s.mu, s.sigma = round(rating.mu, 3), round(rating.sigma, 3)
        s.rating = round(rating.ordinal(), 3)
        s.provisional = s.matches < PROVISIONAL_BELOW
    keys = {
        "rating": lambda s: (-s.rating, s.player),
        "matches": lambda s: (-s.matches, -s.rating, s.player),
        "wins": lambda s: (-s.wins, -s.rating, s.player),
        "score": lambda s: ((-1 if higher else 1) * (s.score or 0), -s.rating, s.player),
        "placement": lambda s: (-s.placement_points, -s.rating, s.player),
        "player": lambda s: s.player,
    }
    return sorted(table.values(), key=keys[sort])
