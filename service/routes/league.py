"""The league: standings and series (read models, brought up to date on each read;
with ``--read-db``, read on a replica after that: ``Services.read_models``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Request, Response, get
from litestar.params import FromQuery, Parameter

from kartludo.app.league import series, standings
from kartludo.app.league.series import SeriesReport
from kartludo.service import schemas as s
from kartludo.service.deps import Caller, MatchId, Svcs
from kartludo.service.errors import responses
from kartludo.service.pagination import LINK_HEADER, Cursor, Limit, page

Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]
Sort = FromQuery[Literal["rating", "matches", "wins", "score", "placement", "player"]]


@get("/standings", sync_to_thread=True, responses=responses(401, 422), response_headers=LINK_HEADER)
def get_standings(request: Request[Any, Any, Any], services: Svcs, who: Caller, game: Filter = None,
                  sort: Sort = "rating", limit: Limit = None, after: Cursor = None) -> Response[list[dict[str, Any]]]:
    """League standings (per game or across games), as `kartludo standings --format
    json`: best first, with a `rank` (ties share one) and, for one game, its own total
    under the game's word (`GET /games`: `total`); `limit` and `after` (a player) page
    through them."""
    from kartludo.app.league.standings import PROVISIONAL_BELOW
    from kartludo.app.league.standings_table import standing_rows
    from kartludo.engine.registry import get_game

    name = get_game(game).name if game else None
    found = services.read_models(who, lambda store, done: standings.standings(store, game, sort, refreshed=done))
    _, rows, _ = standing_rows(found, name, sort, PROVISIONAL_BELOW)
    return page(request, rows, lambda r: r["player"], limit, after)


@get("/series", sync_to_thread=True, responses=responses(401, 404, 422))
def get_series_list(services: Svcs, who: Caller, game: Filter = None, player: Filter = None,
                    status: Literal["upcoming", "running", "ended"] | None = None) -> list[s.SeriesListed]:
    """Every series, as `kartludo series list --format json`: id, game, status (upcoming,
    running, ended), start, deadline, minutes, matches and players, earliest start first;
    optionally of one game, one player or one status."""
    from kartludo.engine.registry import get_game

    name = get_game(game).name if game else None
    rows = services.read_models(who, lambda store, done: series.list_series(store, game=name, player=player,
                                                                            status=status))
    return [s.SeriesListed(**r) for r in rows]


@get("/series/{series_id:str}", sync_to_thread=True, responses=responses(401, 404))
def get_series(services: Svcs, who: Caller, series_id: MatchId) -> SeriesReport:
    """A series (any unique id prefix): its game, players, time limit, start and
    deadline, whether it has ended, its matches (each one's seats and status) and its
    standings (match points, fouls and their cost, the total), as `kartludo series show
    --format json`."""
    from kartludo.app.league.series import resolve_series

    return services.read_models(who, lambda store, done: series.series_report(
        store, resolve_series(store, series_id), refreshed=done))


ROUTES = [get_standings, get_series_list, get_series]
