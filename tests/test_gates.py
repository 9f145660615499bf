"""The gates: ruff (rules in ``[tool.ruff]``) over the repository and mypy (``[tool.mypy]``)
over every layer of the package run with the suite, so a finding fails it like a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def test_ruff_is_clean():
    done = _run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(ROOT)])
    assert done.returncode == 0, f"ruff check found:\n{done.stdout}{done.stderr}"


def test_mypy_is_clean_on_the_package():
    # tools/typecheck.py builds the kartludo/<layer> tree mypy needs for the flat layout
    done = _run([sys.executable, str(ROOT / "tools" / "typecheck.py")])
    assert done.returncode == 0, f"mypy found:\n{done.stdout}{done.stderr}"
