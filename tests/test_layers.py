"""One-way layers: every module's imports (function-local ones too) go only to its own
layer or to layers to its left, so no import cycle can form between folders.

Order: events → engine → store → app → projections → (cli, service, web). Among the
outer three: service and cli may use web; cli may use service only in its ``serve``
command module. Nothing outside ``store/`` touches the store's private members.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["events", "engine", "store", "app", "projections"]
OUTER = {"cli", "service", "web"}
LAYERS = [*ORDER, *sorted(OUTER)]
#: the one module of ``cli`` that may start the service
SERVE_MODULE = "kartludo.cli.serve"


def _rank(layer: str) -> int:
    return ORDER.index(layer) if layer in ORDER else len(ORDER)


def allowed(importer: str, imported: str, module: str) -> bool:
    """Whether ``module`` (in layer ``importer``) may import from layer ``imported``."""
    if importer == imported:
        return True
    if imported in OUTER:
        if importer == "cli" and imported == "service":
            return module == SERVE_MODULE
        return importer in ("cli", "service") and imported == "web"
    return _rank(imported) < _rank(importer)


def _modules() -> list[tuple[str, str, Path]]:
    out = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if "migrations" in path.parts and layer != "store":
                continue
            rel = path.relative_to(ROOT / layer).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out.append((layer, ".".join(["kartludo", layer, *parts]), path))
    return out


def _imports(module: str, path: Path) -> list[tuple[int, str]]:
    """Every ``kartludo.*`` module ``path`` imports, anywhere in it, with its line."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.append((node.lineno, base))
            # ``from kartludo import app``, ``from . import y``: the names may be modules
            if base == "kartludo" or node.module is None:
                found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return [(line, name) for line, name in found if name.startswith("kartludo.")]


MODULES = _modules()


def test_every_layer_has_modules() -> None:
    assert {layer for layer, _, _ in MODULES} == set(LAYERS)


def test_the_checker_knows_the_rules() -> None:
    assert allowed("app", "store", "kartludo.app.x") and not allowed("store", "app", "kartludo.store.x")
    assert allowed("projections", "app", "kartludo.projections.x")
    assert not allowed("app", "projections", "kartludo.app.x")
    assert allowed("service", "web", "kartludo.service.x") and not allowed("web", "service", "kartludo.web.x")
    assert allowed("cli", "service", SERVE_MODULE) and not allowed("cli", "service", "kartludo.cli.matches")
    assert not allowed("service", "cli", "kartludo.service.x")
    found = _imports("kartludo.app.x", _write_probe())
    assert (4, "kartludo.projections") in found and (5, "kartludo.app.y") in found


def _write_probe() -> Path:
    import tempfile

    probe = Path(tempfile.mkdtemp()) / "x.py"
    probe.write_text("import os\n\ndef f():\n    from kartludo.projections import refresh\n"
                     "    from . import y\n")
    return probe


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_go_one_way(layer: str) -> None:
    wrong = []
    for own, module, path in MODULES:
        if own != layer:
            continue
        for line, name in _imports(module, path):
            target = name.split(".")[1]
            if target in LAYERS and not allowed(own, target, module):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


_PRIVATE_STORE = re.compile(r"\bstore\._[a-z]")


@pytest.mark.parametrize("layer", [layer for layer in LAYERS if layer != "store"])
def test_no_private_store_access_outside_the_store(layer: str) -> None:
    wrong = [f"{path.relative_to(ROOT)}:{n}: {text.strip()}"
             for own, _, path in MODULES if own == layer
             for n, text in enumerate(path.read_text().splitlines(), 1) if _PRIVATE_STORE.search(text)]
    assert not wrong, "private store members used outside store/:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", ["MATCH_PREFIX", "SERIES_PREFIX", "FOUL_MP"])
def test_id_constants_are_defined_once(name: str) -> None:
    pattern = re.compile(rf"^\s*{name}\s*(:[^=]*)?=", re.M)
    where = [str(path.relative_to(ROOT)) for _, _, path in MODULES if pattern.search(path.read_text())]
    assert len(where) <= 1, f"{name} is defined in {where}"
