"""A damaged SQLite file: finding its bad pages, and keeping writes off it.

SQLite checks a page when a statement reads it: a write that never touches a damaged
page goes through, and the damage stays unseen until something reads there.
``kartludo verify`` reads the whole file first (``PRAGMA integrity_check``, which names
each bad page; when SQLite cannot even list them, each table's b-tree is walked from
the file here to name the first bad page) and notes what it found beside the file
(``FILE-damaged``). While that note is there, the store takes no writes (``refused``):
a damaged file is repaired (restored from a backup, or exported and imported into a
new file) before anything is added to it, and the next ``verify`` that finds the file
whole removes the note.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlalchemy as sa

from kartludo.store.errors import DatabaseDamaged

#: the note beside a damaged file: ``kartludo.db`` -> ``kartludo.db-damaged``
SUFFIX = "-damaged"
#: the most findings ``integrity_check`` lists
MOST = 100
_LEAF, _INTERIOR = {10, 13}, {2, 5}


def sqlite_path(url: sa.URL) -> Path | None:
    """The file behind a SQLite URL (None: another backend, memory, a ``file:`` URI)."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def note_path(url: sa.URL) -> Path | None:
    path = sqlite_path(url)
    return None if path is None else path.with_name(path.name + SUFFIX)


def noted(url: sa.URL) -> str | None:
    """What the last ``verify`` found wrong with the file (None: nothing noted)."""
    note = note_path(url)
    try:
        return (note.read_text(errors="replace").strip() or "damaged") if note is not None else None
    except FileNotFoundError:
        return None


def refused(url: sa.URL, found: str) -> DatabaseDamaged:
    """The error a write to a file noted as damaged gets."""
    first = found.splitlines()[0]
    return DatabaseDamaged(
        f"{url.render_as_string(hide_password=True)} is damaged (`kartludo verify` found: {first}; noted in "
        f"{note_path(url)}): no writes until it is repaired. Restore it from a backup, or export what still "
        "reads (`kartludo events export`) and import it into a new file; a `kartludo verify` that finds the "
        "file whole removes the note")


def check_file(engine: sa.Engine) -> list[str]:
    """Every problem SQLite finds in the file's structure (empty: it is whole), noted
    beside the file (or the note removed). PostgreSQL: nothing to check here (its own
    data checksums are the server's)."""
    url = engine.url
    path = sqlite_path(url)
    if path is None:
        return []
    found = _integrity(str(path))
    note = note_path(url)
    assert note is not None
    if found:
        note.write_text("\n".join(found) + "\n")
    else:
        note.unlink(missing_ok=True)
    return found


def _integrity(path: str) -> list[str]:
    conn = sqlite3.connect(path)  # only reads
    try:
        try:
            rows = conn.execute(f"PRAGMA integrity_check({MOST})").fetchall()
        except sqlite3.DatabaseError as exc:  # too damaged to list: narrow it down ourselves
            return _walk(conn, path, str(exc))
        lines = [line for (text,) in rows for line in str(text).splitlines()
                 if line.strip() and not line.startswith("*** in database")]
        return [] if lines == ["ok"] else lines
    finally:
        conn.close()


def _walk(conn: sqlite3.Connection, path: str, said: str) -> list[str]:
    """Each damaged table's first bad page (in its own tree or an index's), from the
    file itself (SQLite said only ``said``)."""
    try:
        trees = conn.execute("SELECT type, name, tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0").fetchall()
    except sqlite3.DatabaseError:
        return [f"the schema cannot be read ({said})"]
    wal = Path(path + "-wal")
    unsynced = wal.exists() and wal.stat().st_size > 0  # newer pages in the WAL: the file alone is not the truth
    out = []
    for table in sorted({t for kind, _, t, _ in trees if kind == "table"}):
        try:
            conn.execute(f'PRAGMA integrity_check("{table}")').fetchall()
            continue
        except sqlite3.DatabaseError:
            pass
        roots = [(name, int(root)) for _, name, t, root in trees if t == table]
        bad = None if unsynced else next(((name, found) for name, root in roots
                                          if (found := _bad_page(path, root)) is not None), None)
        if bad is None:
            out.append(f"table {table}: a page SQLite cannot read (SQLite: {said})")
        else:
            (tree, (page, why)) = bad
            of = "" if tree == table else f" (of index {tree})"
            out.append(f"table {table}, page {page}{of}: {why} (SQLite: {said})")
    return out or [said]


def _bad_page(path: str, root: int) -> tuple[int, str] | None:
    """The first page of the b-tree at ``root`` whose header or cell pointers do not hold."""
    with open(path, "rb") as f:
        head = f.read(100)
        size = int.from_bytes(head[16:18], "big")
        size = 65536 if size == 1 else size
        usable = size - head[20]
        pages = f.seek(0, 2) // size
        seen: set[int] = set()
        todo = [root]
        while todo:
            number = todo.pop()
            if not 1 <= number <= pages:
                return number, f"a child pointer leads to page {number}, outside the file's {pages} pages"
            if number in seen:
                return number, "reached twice in one tree"
            seen.add(number)
            f.seek((number - 1) * size)
            data = f.read(size)
            at = 100 if number == 1 else 0
            kind = data[at]
            if kind not in _LEAF | _INTERIOR:
                return number, f"not a b-tree page (type byte {kind:#04x})"
            header = at + (8 if kind in _LEAF else 12)
            cells = int.from_bytes(data[at + 3:at + 5], "big")
            if header + 2 * cells > usable:
                return number, f"{cells} cells cannot fit in the page"
            offsets = [int.from_bytes(data[header + 2 * i:header + 2 * i + 2], "big") for i in range(cells)]
            bad = [i for i, o in enumerate(offsets) if not header + 2 * cells <= o < usable]
            if bad:
                return number, f"cell {bad[0]} points outside the page (offset {offsets[bad[0]]})"
            if kind in _INTERIOR:
                todo.append(int.from_bytes(data[at + 8:at + 12], "big"))
                todo.extend(int.from_bytes(data[o:o + 4], "big") for o in offsets)
    return None
