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


def render_table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """Plain aligned columns under a header and a rule, numbers right-aligned; no
    trailing spaces, so the lines grep and cut well."""
    text = [[cell(v) for v in row] for row in rows]
    numeric = [bool(text) and all(_is_number(r[i]) for r in text if r[i]) for i in range(len(columns))]
    widths = [max([len(c), *(len(r[i]) for r in text)]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    return [line(list(columns)), line(["-" * w for w in widths]), *(line(r) for r in text)]


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
) -> None:
    """Print ``rows`` (dicts holding at least ``columns``) as a table, JSON or CSV.

    ``json_data`` replaces the JSON printed (a command whose JSON the contract fixes
    keeps it); ``table_cells`` may dress a row for the table only (e.g. a rating's
    provisional mark), never rename it. ``notes`` follow a table (a legend)."""
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
    shown = [table_cells(r) if table_cells else r for r in rows]
    for line in render_table(columns, ([r.get(c) for c in columns] for r in shown)):
        click.echo(line)
    for note in notes:
        click.echo(note)
