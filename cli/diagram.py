"""Writing one deal diagram to a file (``replay --diagram``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click


def write_diagram(rep: Any, k: int, viewer: Any, fmt: str, out: str) -> None:
    """Step ``k`` of replay ``rep`` as ``viewer`` sees it, as SVG or PNG in ``out``."""
    from kartludo.app.casebook.diagrams import diagram, to_png

    m = rep.match
    caption = f"{m.game.title} · match {m.id} · deal {rep.deal} · step {k}/{len(rep.steps)}"
    svg = diagram(m.game, rep.steps[k - 1].state, m.players, viewer=viewer, caption=caption)
    path = Path(out)
    if fmt == "png":
        path.write_bytes(to_png(svg))
    else:
        path.write_text(svg, encoding="utf-8")
    click.echo(f"wrote {path} (deal {rep.deal}, step {k})")
