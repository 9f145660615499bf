"""Pages of a list: ``limit`` items after the cursor ``after``, and a ``Link`` header
(RFC 8288, ``rel="next"``) to the next page while one remains.

Without ``limit`` a list comes whole, as it always did. The cursor is the key of the
last item a page held (a match id, an audit id, a player, an event's global
position), so a page never repeats or skips an item when new ones are added after it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from litestar import Request, Response
from litestar.datastructures import ResponseHeader
from litestar.exceptions import ValidationException
from litestar.params import Parameter

T = TypeVar("T")

#: items per page (default: the whole list)
Limit = Annotated[int | None, Parameter(ge=1, le=1000, description="items per page (default: the whole list)")]
#: the key of the last item of the previous page (its `Link: rel="next"` gives it)
Cursor = Annotated[str | None, Parameter(pattern=r"^[A-Za-z0-9_.\-/]{1,250}$",
                                         description="the last item of the previous page (see the `Link` header)")]

LINK_HEADER = [ResponseHeader(name="Link", documentation_only=True, required=False,
                              description='`<URL>; rel="next"` while a page follows (with `limit`)')]


def next_link(request: Request[Any, Any, Any], after: str | int, limit: int) -> str:
    """The ``Link`` header value for the page after ``after``: this request's URL with
    ``after`` and ``limit`` replaced."""
    query = {k: v for k, v in request.query_params.items() if k not in ("after", "limit")}
    query.update(after=str(after), limit=str(limit))
    return f'<{request.url.path}?{urlencode(query)}>; rel="next"'


def page(request: Request[Any, Any, Any], rows: Sequence[T], key: Callable[[T], str], limit: int | None,
         after: str | None) -> Response[list[T]]:
    """The page of ``rows`` after the item keyed ``after`` (422 for a key the list lacks)."""
    start = 0
    if after is not None:
        keys = [key(r) for r in rows]
        if after not in keys:
            raise ValidationException(f"after={after!r} names no item of this list: start again without `after`")
        start = keys.index(after) + 1
    end = len(rows) if limit is None else start + limit
    chunk = list(rows[start:end])
    headers = {"Link": next_link(request, key(chunk[-1]), limit)} if limit is not None and end < len(rows) else {}
    return Response(chunk, headers=headers)
