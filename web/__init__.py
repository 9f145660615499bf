"""Browser pages served by ``kartludo serve``: a match list, a replay viewer, ruling
pages, a live seat table, standings and series. Plain HTML, CSS and ES modules read the
same JSON API as every other client, so a page can never show more than its token may
see; nothing is built at install time."""
