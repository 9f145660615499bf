"""The package installs as one import package, ``kartludo``, and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from kartludo.engine.registry import game_names

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_fresh_venv_install_has_only_the_kartludo_package(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(wheels.glob("kartludo-*.whl"))
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True)
    site = Path(subprocess.check_output([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    ours = {p.name for p in site.iterdir()} - {"pip", "setuptools", "pkg_resources", "_distutils_hack",
                                               "distutils-precedence.pth", "__pycache__"}
    ours = {n for n in ours if not n.startswith(("pip-", "setuptools-"))}
    assert ours == {"kartludo", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    assert sorted(p.name for p in (site / "kartludo").iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "app", "cli", "engine", "events", "projections", "service", "store", "web",
    ]
    # the browser pages' assets travel in the wheel: every file under web/static
    static = ROOT / "web" / "static"
    installed = site / "kartludo" / "web" / "static"
    shipped = {p.relative_to(installed) for p in installed.rglob("*") if p.is_file()}
    assert shipped == {p.relative_to(static) for p in static.rglob("*") if p.is_file()}
    # and so do the rules pages the web serves (docs/rules/*.md, as kartludo/web/rules)
    pages = {p.name for p in (site / "kartludo" / "web" / "rules").glob("*.md")}
    assert pages == {p.name for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert pages == {f"{name}.md" for name in game_names()}  # a page per installed game
    # import it from the fresh venv, borrowing only third-party dependencies from ours
    deps = sysconfig.get_paths()["purelib"]
    env = dict(os.environ, PYTHONPATH=deps)
    out = subprocess.check_output(
        [py, "-c", "import kartludo.store, kartludo.cli.main as m; print(kartludo.store.__file__)\n"
                   "from kartludo.app.casebook import rulebook; print(rulebook.pages_dir());"
                   " print(rulebook.link('uxinjo §2.2 A'))"],
        env=env, text=True, cwd=tmp_path,
    )
    store_file, pages_dir, link = out.strip().splitlines()
    assert store_file.startswith(str(site / "kartludo" / "store"))
    assert pages_dir == str(site / "kartludo" / "web" / "rules") and link == "/ui/rules/uxinjo#s2-2"
    assert (venv / "bin" / "kartludo").exists()


def test_help_does_not_import_the_database_stack():
    code = (
        "import sys, kartludo.cli.main as m\n"
        "try:\n    m.cli.main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "heavy = [n for n in ('sqlalchemy', 'alembic', 'psycopg', 'msgspec') if n in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))"
    )
    out = subprocess.check_output([sys.executable, "-c", code], text=True)
    assert out.strip().splitlines()[-1] == "HEAVY="


def test_every_package_folder_is_listed_in_pyproject():
    """A subpackage missing from pyproject's list would be left out of the wheel."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = dict(config["package-dir"])

    def folder(name: str) -> str:
        """A package's folder: its own mapping, or its nearest mapped parent's plus the rest."""
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            parent = ".".join(parts[:k])
            if parent in mapped:
                return "/".join([mapped[parent], *parts[k:]])
        raise AssertionError(f"package {name} maps to no folder in pyproject's package-dir")

    listed = {name: folder(name) for name in config["packages"]}
    assert set(mapped) <= set(listed), "a package-dir entry names no listed package"
    # a data-only package (no Python): the rules pages, shipped beside the web package
    data_only = {name: folder for name, folder in listed.items() if not (ROOT / folder / "__init__.py").exists()}
    assert data_only == {"kartludo.web.rules": "docs/rules"}
    assert config["package-data"]["kartludo.web.rules"] == ["*.md"]
    listed = {name: folder for name, folder in listed.items() if name not in data_only}
    found = set()
    for layer in ("app", "cli", "engine", "events", "projections", "service", "store", "web"):
        for init in (ROOT / layer).rglob("__init__.py"):
            folder = init.parent.relative_to(ROOT).as_posix()
            found.add(folder)
    assert found == set(listed.values())


def test_every_game_package_is_in_pyproject():
    """A game is found by being installed (``engine.registry``): a game folder missing
    from pyproject's package list would silently vanish from the wheel."""
    import tomllib

    packages = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    games = sorted(p.parent.name for p in (ROOT / "engine").glob("*/__init__.py"))
    assert games, "no game package under engine/"
    missing = [g for g in games if f"kartludo.engine.{g}" not in packages]
    assert not missing, (
        "game package(s) " + ", ".join(f"engine/{g}" for g in missing) + " missing from [tool.setuptools] packages in "
        "pyproject.toml: add " + ", ".join(f'"kartludo.engine.{g}"' for g in missing) + " to that list"
    )
