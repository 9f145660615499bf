"""One-way layers: every module's imports (function-local ones, and modules named to
``importlib.import_module``, too) go only to its own layer or to layers below it, so no
import cycle can form between folders.

Order, from the top: (cli, service, web) → app → projections → (engine, store) → events.
engine and store stand side by side: neither imports the other (the match aggregate,
which both the application and the projections fold with, is the engine's; the store
keeps events and knows no game). Among the outer three: service and cli may use web;
cli may use service only in its ``serve`` command module. Nothing outside ``store/``
touches the store's private members, and ``app/`` has no import cycle.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: each inner layer's rank: a module imports only from its own layer or from a lower rank
#: (engine and store share one: they are siblings, neither imports the other)
RANK = {"events": 0, "engine": 1, "store": 1, "projections": 2, "app": 3}
ORDER = list(RANK)
OUTER = {"cli", "service", "web"}
LAYERS = [*ORDER, *sorted(OUTER)]
#: the one module of ``cli`` that may start the service
SERVE_MODULE = "kartludo.cli.serve"


def _rank(layer: str) -> int:
    return RANK.get(layer, len(RANK) + 1)


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
        if isinstance(node, ast.Call) and _imports_by_name(node):
            found.append((node.lineno, node.args[0].value))  # type: ignore[attr-defined]
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


def _imports_by_name(call: ast.Call) -> bool:
    """``importlib.import_module("kartludo.…")`` (or ``__import__``) with a literal name."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return (name in ("import_module", "__import__") and bool(call.args) and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str))


MODULES = _modules()


def test_every_layer_has_modules() -> None:
    assert {layer for layer, _, _ in MODULES} == set(LAYERS)


def test_the_checker_knows_the_rules() -> None:
    assert allowed("app", "store", "kartludo.app.x") and not allowed("store", "app", "kartludo.store.x")
    assert allowed("app", "projections", "kartludo.app.x") and allowed("app", "engine", "kartludo.app.x")
    assert not allowed("projections", "app", "kartludo.projections.x")
    assert allowed("projections", "engine", "kartludo.projections.x")
    assert allowed("projections", "store", "kartludo.projections.x")
    assert not allowed("store", "engine", "kartludo.store.x") and not allowed("engine", "store", "kartludo.engine.x")
    assert allowed("engine", "events", "kartludo.engine.x") and allowed("store", "events", "kartludo.store.x")
    assert not allowed("events", "engine", "kartludo.events.x") and not allowed("events", "store", "kartludo.events.x")
    assert allowed("service", "web", "kartludo.service.x") and not allowed("web", "service", "kartludo.web.x")
    assert allowed("cli", "service", SERVE_MODULE) and not allowed("cli", "service", "kartludo.cli.matches")
    assert not allowed("service", "cli", "kartludo.service.x")
    found = _imports("kartludo.projections.x", _write_probe())
    assert (4, "kartludo.app") in found and (5, "kartludo.projections.y") in found
    assert (6, "kartludo.app.matches") in found
    wrong = [name for _, name in found if not allowed("projections", name.split(".")[1], "kartludo.projections.x")]
    assert wrong == ["kartludo.app", "kartludo.app.matches"]


def _write_probe() -> Path:
    import tempfile

    probe = Path(tempfile.mkdtemp()) / "x.py"
    probe.write_text("import os\n\ndef f():\n    from kartludo.app import refresh\n"
                     "    from . import y\n    importlib.import_module('kartludo.app.matches')\n")
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


#: the folders outside ``store/`` whose modules may use only the store's public members
#: (the benchmarks and tools too; the tests may look inside)
OUTSIDE_STORE = [*(layer for layer in LAYERS if layer != "store"), "bench", "tools"]


def _store_privates() -> set[str]:
    """EventStore's private members: the ``_`` methods and attributes its classes define
    (in their bodies or on ``self``), whichever module of ``store/`` holds them."""
    from kartludo.store.eventstore import EventStore

    names = set()
    for klass in EventStore.__mro__[:-1]:
        names |= set(vars(klass)) | _defined(ast.parse(textwrap.dedent(inspect.getsource(klass))))
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def _defined(tree: ast.AST) -> set[str]:
    """The names ``tree`` defines as functions, class-body names or ``self`` attributes."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id == "self"):
            out.add(node.attr)
    return out


def private_store_uses(source: str, privates: set[str]) -> list[tuple[int, str]]:
    """Where ``source`` reaches into a store: a private member of anything named like a
    store (``store._x``, ``self._store._x``), or one of EventStore's private members on
    anything but ``self`` (unless the module defines that name itself: its own class's)."""
    tree = ast.parse(source)
    own = _defined(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        holder = node.value
        name = holder.id if isinstance(holder, ast.Name) else holder.attr if isinstance(holder, ast.Attribute) else ""
        if name in ("self", "cls"):
            continue
        if name.lstrip("_").endswith("store") or (node.attr in privates and node.attr not in own):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_private_store_check_finds_every_spelling() -> None:
    privates = _store_privates()
    assert {"_query", "_query_one", "_records", "_driver", "_heads"} <= privates
    probe = ("def f(store, self, events):\n"
             "    store._query('x')\n"
             "    self._store._driver\n"
             "    events._query_one('x')\n"
             "    self.primary._records([])\n"
             "    store.read_stream('m')\n"
             "    self._own\n"
             "    self._slots._give_back([])\n"
             "def _give_back(keys): ...\n")
    assert [line for line, _ in private_store_uses(probe, privates)] == [2, 3, 4, 5]


@pytest.mark.parametrize("folder", OUTSIDE_STORE)
def test_no_private_store_access_outside_the_store(folder: str) -> None:
    privates = _store_privates()
    wrong = [f"{path.relative_to(ROOT)}:{line}: {text}"
             for path in sorted((ROOT / folder).rglob("*.py"))
             for line, text in private_store_uses(path.read_text(), privates)]
    assert not wrong, "private store members used outside store/:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", ["MATCH_PREFIX", "SERIES_PREFIX", "FOUL_MP"])
def test_id_constants_are_defined_once(name: str) -> None:
    pattern = re.compile(rf"^\s*{name}\s*(:[^=]*)?=", re.M)
    where = [str(path.relative_to(ROOT)) for _, _, path in MODULES if pattern.search(path.read_text())]
    assert len(where) <= 1, f"{name} is defined in {where}"


# --- no import cycle among app's modules -------------------------------------------------
def _module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module under ``root`` by its dotted name (``package`` is ``root``'s)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [p for p in path.relative_to(root).with_suffix("").parts if p != "__init__"]
        out[".".join([package, *parts])] = path
    return out


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module under ``root`` -> the modules under it that it imports, anywhere in it
    (function-local and ``TYPE_CHECKING`` imports too): ``from pkg import mod`` counts
    as importing ``pkg.mod``."""
    modules = _module_names(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        own = module if path.name == "__init__.py" else module.rpartition(".")[0]
        named = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                named |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = own.split(".")[: len(own.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                named |= {base} | {f"{base}.{a.name}" for a in node.names}
        graph[module] = {name for name in named if name in modules and name != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: each group of modules that reach one another (the strongly
    connected components of more than one module, by Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_app_has_no_import_cycle() -> None:
    found = cycles(import_graph(ROOT / "app", "kartludo.app"))
    assert not found, "import cycles among app's modules (each is a helper in the wrong module):\n" + "\n".join(
        " <-> ".join(group) for group in found)


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path: Path) -> None:
    """A cycle through a function-local import and a ``from package import module`` is
    found; a module importing its package's ``__init__`` or a one-way chain is not one."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "sub" / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from kartludo.x.sub import b\n")
    (tmp_path / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (tmp_path / "c.py").write_text("import kartludo.x\nfrom kartludo.x.sub import b\n\ndef g(): ...\n")
    (tmp_path / "d.py").write_text("from kartludo.x import a\n")
    graph = import_graph(tmp_path, "kartludo.x")
    assert graph["kartludo.x.a"] == {"kartludo.x.sub", "kartludo.x.sub.b"}
    assert cycles(graph) == [["kartludo.x.c", "kartludo.x.sub.b"]]


# --- no SQL over the store's tables outside store/ -----------------------------------------
#: the store's tables: statements over them are the store's own
STORE_TABLES = ("events", "commands", "chain", "seals", "snapshots")
_STORE_SQL = re.compile(rf"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+({'|'.join(STORE_TABLES)})\b")
#: the store's members that run a caller's statement or hand out what only one can use
RAW_SQL_MEMBERS = {"select", "probe", "query_with_horizon", "records_from_rows", "horizon_sql"}
#: what opens a connection of the store's engine (projections/ may: their tables are theirs)
ENGINE_USES = {"connect", "begin", "raw_connection", "execute", "dialect"}
#: bench/store.py measures the store against the driver's own SELECT of the same columns
RAW_SQL_ALLOWED = {"bench/store.py"}


def _storeish(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lstrip("_").endswith("store")


def sql_outside_the_store(source: str, *, engine_allowed: bool = False) -> list[tuple[int, str]]:
    """Where ``source`` runs SQL over the store's tables itself: a statement naming one
    of them, a store's raw-SQL member (``store.select``), one of the store schema's table
    objects imported, or (``engine_allowed`` aside) a connection of a store's engine."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _STORE_SQL.search(node.value):
            found.append((node.lineno, _STORE_SQL.search(node.value).group(0)))  # type: ignore[union-attr]
        elif isinstance(node, ast.Attribute) and node.attr in RAW_SQL_MEMBERS and _storeish(node.value):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Attribute) and node.attr in ENGINE_USES and not engine_allowed
              and isinstance(node.value, ast.Attribute) and node.value.attr == "engine"
              and _storeish(node.value.value)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and node.module == "kartludo.store.schema":
            found += [(node.lineno, f"store.schema.{a.name}") for a in node.names if a.name in STORE_TABLES]
    return sorted(found)


def test_the_sql_check_finds_each_way_in() -> None:
    probe = ('from kartludo.store.schema import events, NOTIFY_CHANNEL\n'
             'def f(store, self):\n'
             '    store.select("SELECT 1")\n'
             '    self.store.probe("x")\n'
             '    q = f"SELECT position FROM events WHERE position > {1}"\n'
             '    with store.engine.connect() as conn: ...\n'
             '    store.read_stream("m")\n'
             '    sa.select(table)\n'
             '    "folded from events, one by one"\n'
             '    store.engine.url\n')
    assert [line for line, _ in sql_outside_the_store(probe)] == [1, 3, 4, 5, 6]
    assert [line for line, _ in sql_outside_the_store(probe, engine_allowed=True)] == [1, 3, 4, 5]


@pytest.mark.parametrize("folder", OUTSIDE_STORE)
def test_no_sql_over_the_store_tables_outside_the_store(folder: str) -> None:
    """The store's tables are read through its typed calls (``select_events``,
    ``read_stream``, …): no statement over them is written outside ``store/``.
    ``projections/`` runs its own statements over its own tables, in the same database."""
    wrong = [f"{path.relative_to(ROOT)}:{line}: {text}"
             for path in sorted((ROOT / folder).rglob("*.py"))
             if str(path.relative_to(ROOT)) not in RAW_SQL_ALLOWED
             for line, text in sql_outside_the_store(path.read_text(), engine_allowed=folder == "projections")]
    assert not wrong, "SQL over the store's tables outside store/:\n" + "\n".join(wrong)
