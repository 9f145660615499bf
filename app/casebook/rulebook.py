"""The project's rules pages (``docs/rules/GAME.md``) and the citations pointing into them.

A section of a rules page is a heading that starts with ``§`` and its *label*: a number
(``### §2.3 Munt, claim windows …``, label ``2.3``) or a name (``## §Play``, label
``Play``). Its anchor is derived from the label alone (``s2-3``, ``s-play``), so a
heading's wording may change without breaking a link.

A citation is any text naming sections with ``§``: a refusal's ``rule``
(``uxinjo §2.2 B (RULING: …)``), a ruling's ``rule``, a settlement's ``rulings`` note
(``RULING §2.3: …``, of the game whose event it is). Each ``§`` is followed by one of
the page's labels (the longest that fits); old citations stored in events keep
resolving because labels never change meaning.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import msgspec

from kartludo.app.errors import AppError

#: a citation that starts with its game: ``uxinjo §2.2 A``
_GAME_PREFIX = re.compile(r"^([a-z][a-z-]*) §")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


class UnknownPage(AppError):
    """No rules page for that game."""


class Section(msgspec.Struct, frozen=True):
    label: str
    title: str
    anchor: str
    level: int


def anchor_of(label: str) -> str:
    """``2.3`` -> ``s2-3``; ``End of a deal`` -> ``s-end-of-a-deal``."""
    words = re.findall(r"[a-z0-9]+", label.lower())
    return ("s" if label[:1].isdigit() else "s-") + "-".join(words)


def pages_dir() -> Path:
    """Where the pages are: beside the web package in an installed wheel (package
    data), else in the source checkout's ``docs/rules``. Found beside this package,
    not by importing the web layer (which sits above ``app/``): this module is
    ``app/casebook/rulebook.py``, two folders below the package root."""
    web = Path(__file__).resolve().parents[2] / "web"
    shipped = web / "rules"
    return shipped if shipped.is_dir() else web.parent / "docs" / "rules"


def page_names() -> list[str]:
    return sorted(p.stem for p in pages_dir().glob("*.md"))


@functools.cache
def page_text(game: str) -> str:
    if not re.fullmatch(r"[a-z][a-z-]*", game):
        raise UnknownPage(f"no rules page {game!r}")
    path = pages_dir() / f"{game}.md"
    if not path.is_file():
        raise UnknownPage(f"no rules page {game!r} (pages: {', '.join(page_names())})")
    return path.read_text(encoding="utf-8")


def _section(level: int, text: str) -> Section | None:
    if not text.startswith("§"):
        return None
    rest = text[1:]
    number = _NUMBER.match(rest)
    if number:
        label, title = number.group(), rest[number.end():].strip()
    else:
        label, title = rest.strip(), ""
    return Section(label, title, anchor_of(label), level)


def _headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of each ATX heading outside fenced code."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            out.append((len(m.group(1)), m.group(2)))
    return out


@functools.cache
def sections(game: str) -> dict[str, Section]:
    """The page's sections by label (a label used twice is a mistake in the page)."""
    found: dict[str, Section] = {}
    for level, text in _headings(page_text(game)):
        section = _section(level, text)
        if section is None:
            continue
        if section.label in found:
            raise AppError(f"rules page {game}: section §{section.label} appears twice")
        found[section.label] = section
    return found


class Citation(msgspec.Struct, frozen=True):
    """One ``§`` reference of a citation and the section it names (None: unresolved)."""

    game: str
    text: str  # what follows the § (up to the next §)
    section: Section | None


def game_of(citation: str, game: str | None = None) -> str | None:
    """The page a citation points into: its own prefix (``hakamo §1 …``), else ``game``."""
    m = _GAME_PREFIX.match(citation)
    return m.group(1) if m else game


def citations(citation: str, game: str | None = None) -> list[Citation]:
    """Every ``§`` reference of ``citation``, each matched to the longest label of the
    game's page that the text after the ``§`` starts with (followed by a non-word
    character or the end)."""
    page = game_of(citation, game)
    parts = citation.split("§")[1:]
    if page is None or not parts:
        return []
    try:
        labels = sections(page)
    except UnknownPage:
        labels = {}
    out = []
    for part in parts:
        best = None
        for label, section in labels.items():
            if part.startswith(label) and _label_ends(part, len(label)):
                if best is None or len(label) > len(best.label):
                    best = section
        out.append(Citation(page, part.strip(), best))
    return out


def _label_ends(part: str, at: int) -> bool:
    """A label ends where a word or a number ends: ``§3.7`` does not cite §3 (a subsection
    the page lacks is unresolved, not its parent)."""
    rest = part[at:]
    return not rest or not (rest[0].isalnum() or re.match(r"\.\d", rest))


def link(citation: str, game: str | None = None) -> str | None:
    """The rules page URL for a citation (at its first section), or None when it cites none."""
    for c in citations(citation, game):
        if c.section is not None:
            return f"/ui/rules/{c.game}#{c.section.anchor}"
    return None


def render(game: str) -> str:
    """The page as HTML: every § heading carries its section's anchor as ``id``, links
    between pages (``uxinjo.md``) point to their served pages."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(page_text(game))
    used: set[str] = set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            text = tokens[i + 1].content
            section = _section(int(token.tag[1]), text)
            ident = section.anchor if section else "h-" + "-".join(re.findall(r"[a-z0-9]+", text.lower()))
            while ident in used:  # an unnumbered heading repeated: keep ids unique
                ident += "-"
            used.add(ident)
            token.attrSet("id", ident)
        elif token.type == "inline":
            for child in token.children or []:
                href = child.attrGet("href") if child.type == "link_open" else None
                if isinstance(href, str):
                    child.attrSet("href", _page_link(href))
    html: str = md.renderer.render(tokens, md.options, {})
    return html


def _page_link(href: str) -> str:
    m = re.fullmatch(r"(?:\./)?([a-z][a-z-]*)\.md(#.*)?", href)
    if m:
        return f"/ui/rules/{m.group(1)}{m.group(2) or ''}"
    if href.rstrip("/") in ("", "."):
        return "/ui/rules/"
    return href


def index() -> list[dict[str, Any]]:
    """Every page and its sections (label, title, anchor), for the rules index."""
    return [{"game": g, "sections": [msgspec.to_builtins(s) for s in sections(g).values()]} for g in page_names()]
