"""Type-check kartludo with mypy from a clean clone: ``python tools/typecheck.py``.

The repository keeps each layer at its root (``engine/``, ``events/`` …) while they
import as ``kartludo.engine``, ``kartludo.events`` …, a layout mypy cannot resolve by
itself. This builds ``build/typecheck/kartludo/<layer>`` as symlinks to the layers
and runs mypy there, with the settings of ``[tool.mypy]`` in pyproject.toml. Extra
arguments go to mypy (default: every layer, ``-p kartludo.app -p kartludo.cli`` …).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"
LAYERS = ("app", "cli", "engine", "events", "projections", "service", "store", "web")
DEFAULT = [arg for layer in LAYERS for arg in ("-p", f"kartludo.{layer}")]


def build_tree() -> Path:
    package = TREE / "kartludo"
    package.mkdir(parents=True, exist_ok=True)
    for layer in LAYERS:
        link = package / layer
        if not link.is_symlink():
            if link.exists():
                raise SystemExit(f"{link} is in the way: remove it")
            try:
                link.symlink_to(os.path.relpath(ROOT / layer, package), target_is_directory=True)
            except FileExistsError:  # another run made it meanwhile
                pass
    return TREE


def main(argv: list[str]) -> int:
    build_tree()
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *(argv or DEFAULT)]
    return subprocess.call(command, cwd=TREE)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
