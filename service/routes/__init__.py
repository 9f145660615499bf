"""The HTTP routes, one module per resource family; ``ROUTES`` lists every handler."""

from __future__ import annotations

from typing import Any

from kartludo.service.routes import audit, auth, clock, games, hearing, hypotheticals, league, matches, stream, table


def all_routes() -> list[Any]:
    from kartludo.web import pages

    return [*matches.ROUTES, *stream.ROUTES, *auth.ROUTES, *league.ROUTES, *audit.ROUTES, games.get_games,
            *table.ROUTES, *clock.ROUTES, *hypotheticals.ROUTES, *hearing.ROUTES, *pages.ROUTES]
