"""The league: standings and series (read models, brought up to date on each read;
with ``--read-db``, read on a replica after that: ``Services.read_models``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, Response, get
from litestar.params import FromQuery, Parameter

from kartludo.projections import queries
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
    from kartludo.app.standings import PROVISIONAL_BELOW
    from kartludo.app.standings_table import standing_rows
    from kartludo.engine.registry import get_game

    name = get_game(game).name if game else None
    found = services.read_models(who, lambda store, done: queries.standings(store, game, sort, refreshed=done))
    _, rows, _ = standing_rows(found, name, sort, PROVISIONAL_BELOW)
    return page(request, rows, lambda r: r["player"], limit, after)


@get("/series/{series_id:str}", sync_to_thread=True, responses=responses(401, 404))
def get_series(services: Svcs, who: Caller, series_id: MatchId) -> dict[str, Any]:
    """A series: its matches and standings."""
    from kartludo.app.series import resolve_series

    report = services.read_models(who, lambda store, done: queries.series_report(
        store, resolve_series(store, series_id), refreshed=done))
    out: dict[str, Any] = msgspec.to_builtins(report)
    return out


ROUTES = [get_standings, get_series]
