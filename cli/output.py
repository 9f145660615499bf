"""One output convention for every command that prints data.

``@output_options`` gives a command ``--format table|json|csv`` (and ``--json``, the
contract's alias for ``--format json``) and hands it one ``fmt`` argument; ``emit``
prints rows in that format with the same field names everywhere: the table's
headers are the CSV's header and the JSON objects' keys. An empty table says so in
one line instead of printing nothing.
"""

from __future__ import annotations

import csv
import functools
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click

FORMATS = ("table", "json", "csv")


def output_options(command: Callable[..., Any] | None = None, *, formats: Sequence[str] = FORMATS) -> Any:
    """Add ``--format`` and ``--json`` to a command; it receives ``fmt``.

    Rows take ``table|json|csv``; a command printing one document (a state, a
    replay, a ruling) takes ``formats=DOCUMENT``: ``text|json``."""
    if command is None:
        return functools.partial(output_options, formats=formats)

    @functools.wraps(command)
    def run(*args: Any, fmt: str, as_json: bool, **kwargs: Any) -> Any:
        if as_json and fmt not in (formats[0], "json"):
            raise click.UsageError(f"--json is --format json; it cannot be combined with --format {fmt}")
        return command(*args, fmt="json" if as_json else fmt, **kwargs)

    run = click.option("--json", "as_json", is_flag=True, help="Same as --format json.")(run)
    described = ("table (aligned, with headers), json, or csv (the same field names)" if "csv" in formats
                 else f"{formats[0]} (for reading) or json")
    return click.option("--format", "fmt", type=click.Choice(list(formats)), default=formats[0],
                        show_default=True, help=described + ".")(run)


#: the formats of a command that prints one document rather than rows
DOCUMENT = ("text", "json")


def cell(value: Any, exact: bool = False) -> str:
    """A value as one table cell (``exact``: a CSV cell, as JSON would say it):
    lists joined by commas, mappings as ``key:value`` pairs, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return ("true" if value else "false") if exact else ("yes" if value else "no")
    if isinstance(value, float):
        return repr(value) if exact else f"{value:.2f}"
    if isinstance(value, (list, tuple)):
        return ",".join(cell(v, exact) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}:{cell(v, exact)}" for k, v in value.items())
    return str(value)


#: the width a table fits when stdout is no terminal (and COLUMNS does not say)
DEFAULT_WIDTH = 80


def table_width() -> int:
    """The columns a table may take: the terminal's width on a terminal, else COLUMNS
    when set, else 80."""
    import os
    import shutil

    if sys.stdout.isatty():
        return max(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 20)
    given = os.environ.get("COLUMNS", "")
    return max(int(given), 20) if given.isdigit() else DEFAULT_WIDTH


def render_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, width: int | None = None,
                 drop: Sequence[str] = (), below: Sequence[str] = ()) -> list[str]:
    """Aligned columns under a header and a rule, numbers right-aligned; no trailing
    spaces, so the lines grep and cut well. Within ``width`` (default ``table_width()``):
    a table that is wider first leaves out the ``drop`` columns (what another column
    already shows), then prints each ``below`` column (long text) under its row, cut to
    one line, then breaks long headers at ``_`` and wraps cells (rich) to fit."""
    limit = width or table_width()
    text = [[cell(v) for v in row] for row in rows]
    keep = list(range(len(columns)))

    def plain() -> list[str]:
        return _plain([columns[i] for i in keep], [[r[i] for i in keep] for r in text])

    lines = plain()
    for name in drop:
        if max(map(len, lines)) <= limit:
            return lines
        if name in columns and columns.index(name) in keep:
            keep.remove(columns.index(name))
            lines = plain()
    if max(map(len, lines)) <= limit:
        return lines
    under = [i for i in keep if columns[i] in below]
    keep = [i for i in keep if i not in under]
    return _fitted([columns[i] for i in keep], [[r[i] for i in keep] for r in text], limit,
                   [(columns[i], [r[i] for r in text]) for i in under])


def _plain(columns: Sequence[str], text: list[list[str]]) -> list[str]:
    numeric = [bool(text) and all(_is_number(r[i]) for r in text if r[i]) for i in range(len(columns))]
    widths = [max([len(c), *(len(r[i]) for r in text)]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    return [line(list(columns)), line(["-" * w for w in widths]), *(line(r) for r in text)]


def _pieces(word: str) -> list[str]:
    """A word cut after each ',' and '/' (a list, an audit id): where a cell may wrap."""
    import re

    return re.findall(r"[^,/]*[,/]|[^,/]+", word) or [word]


def _wrap(value: str, width: int) -> list[str]:
    """``value`` in lines of at most ``width`` cells, broken at spaces and after ',' or
    '/' (the lines put back together are the value), a piece wider than a line folded."""
    from rich.cells import cell_len, chop_cells

    lines: list[str] = []
    current = ""
    for word in value.split():
        for k, piece in enumerate(_pieces(word)):
            joined = current + (" " if k == 0 and current else "") + piece
            if cell_len(joined) <= width:
                current = joined
                continue
            if current:
                lines.append(current)
            folded = chop_cells(piece, width) if cell_len(piece) > width else [piece]
            lines += folded[:-1]
            current = folded[-1]
    return [*lines, current] if current or not lines else lines


def _fitted(columns: Sequence[str], text: list[list[str]], limit: int,
            under: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """The table within ``limit`` columns (widths measured by rich): a header longer than
    every value of its column breaks after each ``_`` (stacked, bottom-aligned: the last
    header line names every one-word column); columns part by two spaces, or by one
    where two would make a cell wrap; cells wrap at spaces and after ',' and '/', the
    widest column folds only when nothing else fits. Each ``under`` column follows its
    row on a line of its own, cut with … (rich's ellipsis)."""
    from rich.cells import cell_len
    from rich.text import Text

    n = len(columns)
    numeric = [bool(text) and all(_is_number(r[i]) for r in text if r[i]) for i in range(n)]
    longest = [max([0, *(cell_len(r[i]) for r in text)]) for i in range(n)]
    heads = [c.replace("_", "_\n").split("\n") if cell_len(c) > longest[i] else [c] for i, c in enumerate(columns)]
    least = [max([*map(cell_len, heads[i]), *(cell_len(p) for r in text for w in r[i].split() for p in _pieces(w))])
             for i in range(n)]
    widths = [max(longest[i], *map(cell_len, heads[i])) for i in range(n)]
    gap = 2 if sum(widths) + 2 * (n - 1) <= limit else 1
    if gap == 1 and sum(widths) + n - 1 > limit and sum(least) + 2 * (n - 1) <= limit:
        gap = 2  # cells wrap either way: keep the columns apart
    excess = sum(widths) + gap * (n - 1) - limit
    for i in sorted(range(n), key=lambda i: least[i] - widths[i]):  # what may wrap gives first, the most first
        take = max(0, min(excess, widths[i] - least[i]))
        widths[i] -= take
        excess -= take
    while excess > 0 and max(widths) > 3:  # still too wide: the widest column folds
        widest = widths.index(max(widths))
        widths[widest] -= 1
        excess -= 1

    def block(cells: Sequence[list[str]], bottom: bool = False) -> list[str]:
        height = max(map(len, cells))
        out = []
        for k in range(height):
            parts = []
            for i, lines in enumerate(cells):
                at = k - (height - len(lines)) if bottom else k
                value = lines[at] if 0 <= at < len(lines) else ""
                pad = " " * (widths[i] - cell_len(value))
                parts.append(pad + value if numeric[i] else value + pad)
            out.append((" " * gap).join(parts).rstrip())
        return out

    header = block([[line for h in head for line in _wrap(h, widths[i])] for i, head in enumerate(heads)],
                   bottom=True)
    lines = [*header, (" " * gap).join("-" * w for w in widths)]
    for r, row in enumerate(text):
        lines += block([_wrap(v, widths[i]) for i, v in enumerate(row)])
        for name, values in under:
            if values[r]:
                shown = Text(f"  {name}: {values[r]}")
                shown.truncate(limit, overflow="ellipsis")
                lines.append(shown.plain)
    return lines


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("*"))
    except ValueError:
        return False
    return True


def emit(
    fmt: str,
    columns: Sequence[str],
    rows: Sequence[dict[str, Any]],
    *,
    empty: str,
    title: str | None = None,
    notes: Sequence[str] = (),
    json_data: Any = None,
    table_cells: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    drop: Sequence[str] = (),
    below: Sequence[str] = (),
) -> None:
    """Print ``rows`` (dicts holding at least ``columns``) as a table, JSON or CSV.

    ``json_data`` replaces the JSON printed (a command whose JSON the contract fixes
    keeps it); ``table_cells`` may dress a row for the table only (e.g. a rating's
    provisional mark), never rename it. ``notes`` follow a table (a legend). The table
    fits the terminal (80 columns off one): ``drop`` and ``below`` say how
    (``render_table``); the JSON and the CSV are never cut."""
    if fmt == "json":
        from kartludo.cli.context import echo_json

        echo_json(rows if json_data is None else json_data)
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([cell(row.get(c), exact=True) for c in columns])
        return
    if title:
        click.echo(title)
    if not rows:
        click.echo(empty)
        return
    import textwrap

    shown = [table_cells(r) if table_cells else r for r in rows]
    width = table_width()
    lines = render_table(columns, [[r.get(c) for c in columns] for r in shown], width=width, drop=drop, below=below)
    for line in lines:
        click.echo(line)
    for note in notes:
        click.echo(textwrap.fill(note, width, subsequent_indent="  ", break_on_hyphens=False))
    cut = [name for name in below if any(line.startswith(f"  {name}: ") and line.endswith("…") for line in lines)]
    if cut:
        them = "it" if len(cut) == 1 else "them"
        click.echo(textwrap.fill(f"({', '.join(cut)} cut to the width: --format csv or json has {them} whole)", width))
