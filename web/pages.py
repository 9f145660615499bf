"""The browser pages: one HTML shell per page plus static CSS and ES modules.

Each shell names its page script; the script reads the JSON API with the token the
page holds (a seat's secret stays in the browser's session storage and travels only
as a bearer header), so a page never receives more than its token may see.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Annotated

from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.params import Parameter
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

STATIC = Path(__file__).parent / "static"
ID = Annotated[str, Parameter(pattern=r"^[A-Za-z0-9_.\-]{1,100}$")]


def shell(title: str, script: str | None, *, body: str | None = None, status: int = 200,
          **data: str) -> Response[str]:
    """A page: header with the site's links, an empty ``main`` its script fills (or,
    for a page without a script, ``body``: HTML made on the server from our own files)."""
    attrs = "".join(f' data-{k.replace("_", "-")}="{escape(v)}"' for k, v in data.items())
    module = f'<script type="module" src="/static/js/pages/{script}.js"></script>\n' if script else ""
    content = body if body is not None else '<p class="loading">Loading…</p>'
    html = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{escape(title)} · kartludo</title>
<link rel="stylesheet" href="/static/css/kartludo.css">
<link rel="stylesheet" href="/static/css/tables.css">
{module}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Site">
<a href="/ui/" class="brand">kartludo</a>
<a href="/ui/">Matches</a>
<a href="/ui/standings">Standings</a>
<a href="/ui/series">Series</a>
<a href="/ui/audit">Rulings</a>
<a href="/ui/cards">Cards</a>
<a href="/ui/rules">Rules</a>
<a href="/ui/new">New match</a>
<a href="/schema">API</a>
</nav></header>
<main id="main" tabindex="-1"{attrs}>{content}</main>
</body>
</html>
"""
    return Response(html, media_type="text/html; charset=utf-8", status_code=status)


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


@get("/ui/watch/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def watch_page(match_id: ID) -> Response[str]:
    """A match's public watch link: the table read-only, as anyone without a token sees
    it (delayed, when the TD has set a watch delay)."""
    return shell(f"Watch {match_id}", "watch", match=match_id)


@get("/ui/td/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def td_page(match_id: ID) -> Response[str]:
    """A match's TD page (TD token): Deal next, every hand, the rulings."""
    return shell(f"TD {match_id}", "td", match=match_id)


@get("/ui/duplicate/{duplicate_id:str}", include_in_schema=False, sync_to_thread=False)
def duplicate_page(duplicate_id: ID) -> Response[str]:
    """A duplicate event's page: boards × tables, travellers, standings (a TD token shows
    who is to act and every traveller; a player's link opens the player's board)."""
    return shell(f"Duplicate {duplicate_id}", "duplicate", duplicate=duplicate_id)


@get("/ui/new", include_in_schema=False, sync_to_thread=False)
def new_match_page() -> Response[str]:
    """Create a match (TD token, as ``#token=``) and hand out each seat's link."""
    return shell("New match", "new")


@get("/ui/audit", include_in_schema=False, sync_to_thread=False)
def audit_list_page() -> Response[str]:
    return shell("Rulings", "audit")


@get("/ui/audit/{match_id:str}/{ruling_id:str}", include_in_schema=False, sync_to_thread=False)
def ruling_page(match_id: ID, ruling_id: ID) -> Response[str]:
    return shell(f"Ruling {match_id}/{ruling_id}", "ruling", match=match_id, ruling=ruling_id)


@get("/ui/standings", include_in_schema=False, sync_to_thread=False)
def standings_page() -> Response[str]:
    return shell("Standings", "standings")


@get("/ui/series", include_in_schema=False, sync_to_thread=False)
def series_list_page() -> Response[str]:
    """Every series (as ``kartludo series list``), each linking to its page."""
    return shell("Series", "series-list")


@get("/ui/series/{series_id:str}", include_in_schema=False, sync_to_thread=False)
def series_page(series_id: ID) -> Response[str]:
    return shell(f"Series {series_id}", "series", series=series_id)


@get("/ui/cards", include_in_schema=False, sync_to_thread=False)
def cards_page() -> Response[str]:
    """Every card of both decks, as drawn (a check for eyes and screen readers)."""
    return shell("Cards", "cards")


@get("/ui/rules", include_in_schema=False, sync_to_thread=False)
def rules_index_page() -> Response[str]:
    """The rules pages and their numbered sections."""
    from kartludo.app.casebook import rulebook
    from kartludo.engine.registry import get_game

    items = []
    for entry in rulebook.index():
        game = entry["game"]
        links = "".join(f'<li><a href="/ui/rules/{game}#{s["anchor"]}">§{escape(s["label"])}'
                        f'{" " + escape(s["title"]) if s["title"] else ""}</a></li>' for s in entry["sections"])
        items.append(f'<li><a href="/ui/rules/{game}">{escape(get_game(game).title)}</a><ul>{links}</ul></li>')
    body = ('<h1>Rules</h1><p class="muted">The rules as kartludo plays them. A refused command or a ruling '
            'cites these sections.</p><ul class="rules-index">' + "".join(items) + "</ul>")
    return shell("Rules", None, body=body)


@get("/ui/rules/{game:str}", include_in_schema=False, sync_to_thread=False)
def rules_page(game: ID, cite: Annotated[str | None, Parameter(max_length=2000)] = None) -> Response[str] | Redirect:
    """A game's rules page (docs/rules/GAME.md), each § section with its anchor; with
    ``?cite=`` (a refusal's or ruling's rule) it sends the browser to the section cited."""
    from kartludo.app.casebook import rulebook

    try:
        if cite is not None:
            target = rulebook.link(cite, game)
            if target is not None:
                return Redirect(target)
        html = rulebook.render(game)
    except rulebook.UnknownPage as exc:
        return shell("Rules", None, body=f'<h1>Rules</h1><p class="error" role="alert">{escape(str(exc))}</p>',
                     status=404)
    return shell(f"Rules · {game}", None, body=f'<article class="rules" id="rules">{html}</article>')


def _printable_path(request: Request) -> None:
    """A static file's name never holds a control character (a NUL would reach the
    file system's calls and fail there): such a path names no file."""
    if any(ord(c) < 32 or ord(c) == 127 for c in request.scope["path"]):
        raise NotFoundException("no such static file (its path holds a control character)")


ROUTES = [root, match_list_page, replay_page, table_page, watch_page, td_page, duplicate_page, new_match_page,
          audit_list_page, ruling_page, standings_page, series_list_page, series_page, cards_page, rules_index_page,
          rules_page,
          create_static_files_router(path="/static", directories=[STATIC], include_in_schema=False,
                                     before_request=_printable_path)]
