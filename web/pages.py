"""The browser pages: one HTML shell per page plus static CSS and ES modules.

Each shell names its page script; the script reads the JSON API with the token the
page holds (a seat's secret stays in the browser's session storage and travels only
as a bearer header), so a page never receives more than its token may see.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Annotated

from litestar import Response, get
from litestar.params import Parameter
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

STATIC = Path(__file__).parent / "static"
ID = Annotated[str, Parameter(pattern=r"^[A-Za-z0-9_.\-]{1,100}$")]


def shell(title: str, script: str, **data: str) -> Response[str]:
    """A page: header with the site's links, an empty ``main`` its script fills."""
    attrs = "".join(f' data-{k.replace("_", "-")}="{escape(v)}"' for k, v in data.items())
    html = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{escape(title)} · kartludo</title>
<link rel="stylesheet" href="/static/css/kartludo.css">
<link rel="stylesheet" href="/static/css/tables.css">
<script type="module" src="/static/js/pages/{script}.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Site">
<a href="/ui/" class="brand">kartludo</a>
<a href="/ui/">Matches</a>
<a href="/ui/standings">Standings</a>
<a href="/ui/audit">Rulings</a>
<a href="/ui/cards">Cards</a>
</nav></header>
<main id="main" tabindex="-1"{attrs}><p class="loading">Loading…</p></main>
</body>
</html>
"""
    return Response(html, media_type="text/html; charset=utf-8")


@get("/", include_in_schema=False, sync_to_thread=False)
def root() -> Redirect:
    return Redirect("/ui/")


@get("/ui/", include_in_schema=False, sync_to_thread=False)
def match_list_page() -> Response[str]:
    return shell("Matches", "matches")


@get("/ui/replay/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def replay_page(match_id: ID) -> Response[str]:
    return shell(f"Replay {match_id}", "replay", match=match_id)


@get("/ui/table/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def table_page(match_id: ID) -> Response[str]:
    return shell(f"Table {match_id}", "table", match=match_id)


@get("/ui/audit", include_in_schema=False, sync_to_thread=False)
def audit_list_page() -> Response[str]:
    return shell("Rulings", "audit")


@get("/ui/audit/{match_id:str}/{ruling_id:str}", include_in_schema=False, sync_to_thread=False)
def ruling_page(match_id: ID, ruling_id: ID) -> Response[str]:
    return shell(f"Ruling {match_id}/{ruling_id}", "ruling", match=match_id, ruling=ruling_id)


@get("/ui/standings", include_in_schema=False, sync_to_thread=False)
def standings_page() -> Response[str]:
    return shell("Standings", "standings")


@get("/ui/series/{series_id:str}", include_in_schema=False, sync_to_thread=False)
def series_page(series_id: ID) -> Response[str]:
    return shell(f"Series {series_id}", "series", series=series_id)


@get("/ui/cards", include_in_schema=False, sync_to_thread=False)
def cards_page() -> Response[str]:
    """Every card of both decks, as drawn (a check for eyes and screen readers)."""
    return shell("Cards", "cards")


ROUTES = [root, match_list_page, replay_page, table_page, audit_list_page, ruling_page, standings_page, series_page,
          cards_page, create_static_files_router(path="/static", directories=[STATIC], include_in_schema=False)]
