"""The card pictures as SVG markup: the same drawing as the web's ``cards.js``.

Diagrams made without a browser (the casebook, ``replay --diagram``) must show the
very cards a player sees in the web pages; ``tests/web/test_cardfaces.py`` runs
``cards.js``'s ``cardMarkup`` under Node and checks every card of both decks is drawn
byte for byte the same here. Change both together.
"""

from __future__ import annotations

HIDDEN = "??"
SVG_NS = "http://www.w3.org/2000/svg"

_JX_COLOURS = {
    "R": {"name": "red", "ink": "#b3261e", "tint": "#fdecea", "shape": "circle"},
    "G": {"name": "green", "ink": "#1b6e33", "tint": "#e6f4e9", "shape": "triangle"},
    "B": {"name": "blue", "ink": "#1d4fa8", "tint": "#e7eefb", "shape": "square"},
}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}
_FRENCH_RANKS = "AKQJT98765432"

#: the 38 cards of the Jx deck in canonical order (PJ and AJ twice)
JX_DECK = [f"{c}{n}" for c in "RGB" for n in range(1, 10)] + ["RX", "GX", "BX", "RV", "GV", "BV", "C", "PJ", "PJ",
                                                              "AJ", "AJ"]
#: the 52-card French deck, suit by suit (S H D C), each high to low
FRENCH_DECK = [r + s for s in "SHDC" for r in _FRENCH_RANKS]


def _is_jx_coloured(code: str) -> bool:
    return len(code) == 2 and code[0] in _JX_COLOURS and code[1] in "123456789XV"


def _is_french(code: str) -> bool:
    return len(code) == 2 and code[0] in _FRENCH_RANKS and code[1] in SUIT_NAMES


def card_name(code: str) -> str:
    """A spoken name: "red 7", "green X", "Centro", "PJx", "10 of hearts", "face-down card"."""
    if code == HIDDEN:
        return "face-down card"
    if code == "C":
        return "Centro"
    if code in ("PJ", "AJ"):
        return code + "x"
    if _is_jx_coloured(code):
        return f"{_JX_COLOURS[code[0]]['name']} {code[1]}"
    if _is_french(code):
        return f"{_RANK_NAMES.get(code[0], code[0])} of {SUIT_NAMES[code[1]]}"
    return str(code)


def esc(text: object) -> str:
    """Escape as ``cards.js`` does (the same five characters, the same entities)."""
    table = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
    return "".join(table.get(ch, ch) for ch in str(text))


def _n(x: float) -> str:
    """A number as JavaScript prints it in a template string."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


FONT = "font-family=\"system-ui, 'Segoe UI', 'DejaVu Sans', Arial, sans-serif\""

_SUIT_PATHS = {
    "H": '<path d="M50 92 C22 68 4 52 4 32 C4 16 16 6 29 6 C39 6 46 12 50 21 C54 12 61 6 71 6 C84 6 96 16 96 32 '
         'C96 52 78 68 50 92 Z"/>',
    "D": '<path d="M50 3 L88 50 L50 97 L12 50 Z"/>',
    "S": '<path d="M50 4 C64 24 96 40 96 62 C96 76 85 84 74 84 C64 84 57 78 54 72 C55 82 58 89 66 96 L34 96 '
         'C42 89 45 82 46 72 C43 78 36 84 26 84 C15 84 4 76 4 62 C4 40 36 24 50 4 Z"/>',
    "C": '<circle cx="50" cy="27" r="21"/><circle cx="26" cy="60" r="21"/><circle cx="74" cy="60" r="21"/>'
         '<circle cx="50" cy="54" r="12"/><path d="M45 56 L55 56 C55 76 59 88 67 96 L33 96 C41 88 45 76 45 56 Z"/>',
}
_JX_SHAPES = {
    "circle": '<circle cx="50" cy="50" r="46"/>',
    "triangle": '<path d="M50 4 L96 92 L4 92 Z"/>',
    "square": '<rect x="8" y="8" width="84" height="84" rx="4"/>',
}
_STAR = '<path d="M50 3 L61 37 L97 37 L68 58 L79 93 L50 72 L21 93 L32 58 L3 37 L39 37 Z"/>'
_HEXAGON = '<path d="M50 3 L91 26 L91 74 L50 97 L9 74 L9 26 Z"/>'

W = 56
H = 80


def _place(shape: str, x: float, y: float, size: float, attrs: str = "", rotate: bool = False) -> str:
    s = size / 100
    rot = " rotate(180 50 50)" if rotate else ""
    return f'<g transform="translate({_n(x)} {_n(y)}) scale({_n(s)}){rot}" {attrs}>{shape}</g>'


def _frame(fill: str = "#ffffff", stroke: str = "#4a4a4a") -> str:
    return (f'<rect x="0.75" y="0.75" width="{_n(W - 1.5)}" height="{_n(H - 1.5)}" rx="5" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>')


def _jx_coloured(code: str, small: bool) -> str:
    col = _JX_COLOURS[code[0]]
    mark = code[1]
    shape = _JX_SHAPES[col["shape"]]
    big = 34 if mark in ("X", "V") else 38
    ink = col["ink"]
    parts = [
        _frame("#ffffff", ink),
        f'<rect x="3" y="3" width="{W - 6}" height="{H - 6}" rx="3" fill="{col["tint"]}"/>',
        _place(shape, 8, 20, 40, f'fill="{ink}" fill-opacity="0.13"'),
        _place(shape, 5, 5, 12 if small else 10, f'fill="{ink}"'),
        _place(shape, W - (17 if small else 15), H - (17 if small else 15), 12 if small else 10, f'fill="{ink}"'),
        f'<text x="{_n(W / 2)}" y="{54 if small else 52}" text-anchor="middle" font-size="{big}" font-weight="800" '
        f'fill="{ink}" {FONT}>{esc(mark)}</text>',
    ]
    if not small:
        parts.append(f'<text x="{_n(W / 2 - 4)}" y="{H - 6}" text-anchor="middle" font-size="9" font-weight="700" '
                     f'fill="{ink}" {FONT}>{col["name"]}</text>')
        if mark == "V":
            parts.append(f'<text x="{W - 6}" y="14" text-anchor="end" font-size="8" fill="{ink}" {FONT}>=5</text>')
    return "".join(parts)


def _centro(small: bool) -> str:
    ink = "#4a3000"
    return "".join([
        _frame("#ffe082", "#8d6e00"),
        f'<circle cx="{_n(W / 2)}" cy="{_n(H / 2 - 2)}" r="21" fill="#fff8e1" stroke="{ink}" stroke-width="2"/>',
        f'<circle cx="{_n(W / 2)}" cy="{_n(H / 2 - 2)}" r="15" fill="none" stroke="{ink}" stroke-width="1" '
        'stroke-dasharray="2 2"/>',
        f'<text x="{_n(W / 2)}" y="{_n(H / 2 + 9)}" text-anchor="middle" font-size="28" font-weight="800" '
        f'fill="{ink}" {FONT}>C</text>',
        "" if small else f'<text x="{_n(W / 2)}" y="{H - 6}" text-anchor="middle" font-size="9" font-weight="700" '
                         f'fill="{ink}" {FONT}>Centro</text>',
        "" if small else f'<text x="{_n(W / 2)}" y="11" text-anchor="middle" font-size="7" fill="{ink}" '
                         f'{FONT}>✦ ✦ ✦</text>',
    ])


def _joker(code: str, small: bool) -> str:
    pj = code == "PJ"
    bg = "#4a1d7a" if pj else "#17323f"
    ink = "#ffffff" if pj else "#ffd166"
    emblem = _STAR if pj else _HEXAGON
    return "".join([
        _frame(bg, "#111"),
        f'<rect x="3" y="3" width="{W - 6}" height="{H - 6}" rx="3" fill="none" stroke="{ink}" stroke-opacity="0.55" '
        'stroke-width="1"/>',
        _place(emblem, 12, 12, 32, f'fill="{ink}" fill-opacity="0.18"'),
        _place(emblem, 5, 5, 11 if small else 9, f'fill="{ink}"'),
        _place(emblem, W - (16 if small else 14), H - (16 if small else 14), 11 if small else 9, f'fill="{ink}"'),
        f'<text x="{_n(W / 2)}" y="{50 if small else 46}" text-anchor="middle" font-size="{22 if small else 21}" '
        f'font-weight="800" fill="{ink}" {FONT}>{"PJ" if pj else "AJ"}<tspan font-size="12" '
        'font-weight="700">x</tspan></text>',
        "" if small else f'<text x="{_n(W / 2 - 3)}" y="{H - 7}" text-anchor="middle" font-size="8" '
                         f'font-weight="700" fill="{ink}" {FONT}>{"wild ★" if pj else "wild ⬢"}</text>',
    ])


def _french(code: str, small: bool) -> str:
    rank, suit = code[0], code[1]
    ink = "#c1121f" if suit in ("H", "D") else "#111111"
    label = "10" if rank == "T" else rank
    shape = _SUIT_PATHS[suit]
    court = rank in "AKQJ"
    idx = 17 if small else 15
    spacing = ' letter-spacing="-1"' if len(label) > 1 else ""
    x0 = 3 if len(label) > 1 else 5
    parts = [_frame("#ffffff", "#4a4a4a"),
             f'<text x="{x0}" y="{17 if small else 15}" font-size="{idx}" font-weight="800" fill="{ink}" '
             f'{FONT}{spacing}>{label}</text>',
             _place(shape, 5, 20 if small else 18, 11 if small else 9, f'fill="{ink}"')]
    if not small:
        parts.append(f'<g transform="rotate(180 {_n(W / 2)} {_n(H / 2)})">'
                     f'<text x="{x0}" y="15" font-size="15" font-weight="800" fill="{ink}" {FONT}{spacing}>{label}'
                     f'</text>' + _place(shape, 5, 18, 9, f'fill="{ink}"') + "</g>")
    if court:
        if not small:
            parts.append(f'<rect x="15" y="17" width="26" height="46" rx="3" fill="none" stroke="{ink}" '
                         'stroke-opacity="0.5"/>')
        parts.append(f'<text x="{_n(W / 2 + (6 if small else 0))}" y="{50 if small else 46}" text-anchor="middle" '
                     f'font-size="{24 if small else 22}" font-weight="800" fill="{ink}" {FONT}>{label}</text>')
        if not small:
            parts.append(_place(shape, 21, 49, 14, f'fill="{ink}"'))
    else:
        size = 26 if small else 28
        parts.append(_place(shape, W / 2 - size / 2 + (5 if small else 0), H / 2 - size / 2 + (6 if small else 0),
                            size, f'fill="{ink}"'))
    return "".join(parts)


def _back() -> str:
    parts = [_frame("#1f3d7a", "#0d1f40"),
             f'<rect x="4" y="4" width="{W - 8}" height="{H - 8}" rx="3" fill="#274c94" stroke="#c9d6f2" '
             'stroke-width="1"/>']
    d = ""
    for y in range(9, H - 9 + 1, 8):
        shift = 4 if ((y - 9) // 8) % 2 else 0
        for x in range(9 + shift, W - 9 + 1, 8):
            d += f"M{x} {y - 3}L{x + 3} {y}L{x} {y + 3}L{x - 3} {y}Z"
    parts.append(f'<path d="{d}" fill="#8fb0ea" fill-opacity="0.55"/>')
    parts.append(f'<circle cx="{_n(W / 2)}" cy="{_n(H / 2)}" r="9" fill="#1f3d7a" stroke="#c9d6f2" '
                 'stroke-width="1.2"/>')
    parts.append(f'<text x="{_n(W / 2)}" y="{_n(H / 2 + 4)}" text-anchor="middle" font-size="11" font-weight="800" '
                 f'fill="#e6edfb" {FONT}>k</text>')
    return "".join(parts)


def _unknown(code: str, small: bool) -> str:
    return _frame("#eeeeee", "#666") + (f'<text x="{_n(W / 2)}" y="{_n(H / 2 + 6)}" text-anchor="middle" '
                                       f'font-size="{18 if small else 16}" font-weight="700" fill="#333" {FONT}>'
                                       f'{esc(str(code)[:4])}</text>')


def _face(code: str, small: bool) -> str:
    if code == HIDDEN:
        return _back()
    if code == "C":
        return _centro(small)
    if code in ("PJ", "AJ"):
        return _joker(code, small)
    if _is_jx_coloured(code):
        return _jx_coloured(code, small)
    if _is_french(code):
        return _french(code, small)
    return _unknown(code, small)


def _kind(code: str) -> str:
    if code == HIDDEN:
        return "back"
    if code == "C":
        return "centro"
    if code in ("PJ", "AJ"):
        return "jx-wild"
    if _is_jx_coloured(code):
        return f"jx jx-{_JX_COLOURS[code[0]]['name']}"
    if _is_french(code):
        return f"french suit-{SUIT_NAMES[code[1]]}"
    return "unknown"


def card_markup(code: str, small: bool = False) -> str:
    """The card's ``<svg>``, as ``cardMarkup`` in ``cards.js`` makes it."""
    name = esc(card_name(code))
    width, height = (36, 52) if small else (56, 80)
    return (f'<svg xmlns="{SVG_NS}" viewBox="0 0 {W} {H}" width="{width}" height="{height}" role="img" '
            f'aria-label="{name}" class="card-svg card-{_kind(code)}" focusable="false"><title>{name}</title>'
            f"{_face(code, small)}</svg>")
