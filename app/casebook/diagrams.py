"""Deal diagrams: one moment of a deal as a self-contained SVG (and PNG through cairosvg).

Every hand sits at a compass point (N, E, S, W; seat 0 at North, clockwise), the cards
on the table in the middle, each card drawn with the web's own pictures
(``app.casebook.cardfaces``). Each card is a ``<g class="card" data-card="R5" data-zone="hand:ann">``
with its spoken name as ``<title>``, so a reader (or a test) can list exactly what the
diagram shows. What is shown is ``view(state, viewer)``: a diagram never holds more
than its viewer may see; a hand it may not see is drawn as backs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kartludo.app.casebook.cardfaces import HIDDEN, SVG_NS, card_markup, esc
from kartludo.engine.base import ALL, Game, Viewer

#: compass points by number of seats (seat 0 first, clockwise)
COMPASS = {2: ("N", "S"), 3: ("N", "E", "W"), 4: ("N", "E", "S", "W")}
CARD_W, CARD_H, STEP = 36, 52, 27
PER_ROW = 9
CELL_W = STEP * (PER_ROW - 1) + CARD_W + 24
LABEL_H = 18
ROW_H = CARD_H + 6
PAD = 12


def seat_zones(game: str, view: dict[str, Any], player: str) -> list[tuple[str, list[str]]]:
    """A seat's cards: its hand (backs where the view hides it) and its exposed cards."""
    hands = view.get("hands") or {}
    hand = list(hands[player]) if player in hands else [HIDDEN] * int((view.get("hand_sizes") or {}).get(player, 0))
    zones = [(f"hand:{player}", hand)]
    exposed = (view.get("exposed") or {}).get(player)
    if exposed:
        zones.append((f"exposed:{player}", list(exposed)))
    return zones


def _cards(codes: Sequence[str], zone: str, x: int, y: int) -> tuple[str, int]:
    """Cards in rows of ``PER_ROW``, overlapping; returns the markup and its height."""
    parts = []
    for i, code in enumerate(codes):
        cx = x + STEP * (i % PER_ROW)
        cy = y + ROW_H * (i // PER_ROW)
        parts.append(f'<g class="card" data-card="{esc(code)}" data-zone="{esc(zone)}" '
                     f'transform="translate({cx} {cy})">{card_markup(code, small=True)}</g>')
    rows = max(1, -(-len(codes) // PER_ROW))
    return "".join(parts), rows * ROW_H


def _block(title: str, zones: list[tuple[str, list[str]]], x: int, y: int, names: dict[str, str]) -> tuple[str, int]:
    """A titled block of zones at (x, y); returns markup and height."""
    parts = [f'<text x="{x}" y="{y + 13}" class="seat">{esc(title)}</text>']
    h = LABEL_H
    for zone, codes in zones:
        if zone in names:
            parts.append(f'<text x="{x}" y="{y + h + 11}" class="zone">{esc(names[zone])}</text>')
            h += 14
        markup, height = _cards(codes, zone, x, y + h)
        parts.append(markup)
        h += height
    return "".join(parts), h


def diagram(game: Game[Any], state: Any, players: Sequence[str], *, viewer: Viewer = ALL,
            caption: str = "") -> str:
    """The SVG of ``state`` as ``viewer`` sees it (default: every hand, for a TD or a
    deal that has ended)."""
    view = game.view(state, viewer)
    n = len(players)
    points = COMPASS.get(n) or tuple(f"seat {i}" for i in range(n))
    seats = view.get("seats") or {}
    blocks: dict[str, tuple[str, list[tuple[str, list[str]]], dict[str, str]]] = {}
    for i, player in enumerate(players):
        zones = seat_zones(game.name, view, player)
        label = f"{points[i] if i < len(points) else i} · {player}" + (f" ({seats[player]})" if player in seats
                                                                      else "") + f" · {len(zones[0][1])} cards"
        blocks[points[i] if i < len(points) else f"seat {i}"] = (label, zones,
                                                               {f"exposed:{player}": "exposed"})
    table = game.table_zones(view)  # the game names what lies in the middle
    top = PAD + (22 if caption else 0)
    # first pass for heights
    def height(zones: list[tuple[str, list[str]]], names: dict[str, str]) -> int:
        return _block("", zones, 0, 0, names)[1]

    h_n = height(blocks["N"][1], blocks["N"][2]) if "N" in blocks else 0
    mid_h = max([height(blocks[p][1], blocks[p][2]) for p in ("E", "W") if p in blocks]
                + [height(table, {z: z for z, _ in table}) if table else LABEL_H])
    h_s = height(blocks["S"][1], blocks["S"][2]) if "S" in blocks else 0
    width = 3 * CELL_W + 2 * PAD
    y_mid = top + h_n + PAD
    y_s = y_mid + mid_h + PAD
    total_h = y_s + h_s + PAD
    parts = [f'<svg xmlns="{SVG_NS}" width="{width}" height="{total_h}" viewBox="0 0 {width} {total_h}" '
             f'role="img" aria-label="{esc(caption or "deal diagram")}" class="deal-diagram">',
             # the diagram's own labels only: a rule on every text would override each card's fill
             # (a CSS property beats a presentation attribute) and turn every card's ink grey
             "<style>.deal-diagram .seat,.deal-diagram .zone,.deal-diagram .caption{"
             "font-family:system-ui,'DejaVu Sans',Arial,sans-serif;fill:#222}"
             ".deal-diagram .seat{font-size:13px;font-weight:700}.deal-diagram .zone{font-size:11px;fill:#555}"
             ".deal-diagram .caption{font-size:14px;font-weight:700}</style>",
             f'<rect width="{width}" height="{total_h}" fill="#f4f7f2"/>',
             f'<rect x="{PAD + CELL_W - 6}" y="{y_mid - 6}" width="{CELL_W}" height="{mid_h + 12}" rx="8" '
             'fill="#dfeadb" stroke="#9ab394"/>']
    if caption:
        parts.append(f'<text x="{PAD}" y="{PAD + 14}" class="caption">{esc(caption)}</text>')
    where = {"N": (PAD + CELL_W, top), "W": (PAD, y_mid), "E": (PAD + 2 * CELL_W, y_mid), "S": (PAD + CELL_W, y_s)}
    for point, (label, zones, names) in blocks.items():
        x, y = where.get(point, (PAD, y_s))
        parts.append(_block(label, zones, x, y, names)[0])
    parts.append(_block("table", table, PAD + CELL_W, y_mid, {z: z for z, _ in table})[0])
    parts.append("</svg>")
    return "".join(parts)


def diagram_cards(svg: str) -> dict[str, list[str]]:
    """The cards a diagram shows, by zone, in drawing order (read back from its markup)."""
    import xml.etree.ElementTree as ET

    out: dict[str, list[str]] = {}
    for g in ET.fromstring(svg).iter(f"{{{SVG_NS}}}g"):
        if g.get("class") == "card":
            out.setdefault(g.get("data-zone", ""), []).append(g.get("data-card", ""))
    return out


def to_png(svg: str) -> bytes:
    """The diagram as PNG (cairosvg draws it; no browser)."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except (ImportError, OSError) as exc:  # OSError: the Cairo library itself is missing
        from kartludo.app.errors import AppError

        raise AppError(f"PNG needs cairosvg and the Cairo library ({exc}); --diagram svg works without") from None
    return bytes(cairosvg.svg2png(bytestring=svg.encode("utf-8")))
