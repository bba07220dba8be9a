"""The layers point one way: worker -> pbem -> renderers | bots -> engine.

Each engine package is imported in a fresh interpreter and must load no third-party module
and none of ours above it, and each bots module (issue 37) nothing but those and the engine;
renderers may add only Pillow; and no module outside pbem imports the database or mail libraries.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)


def loaded_top_modules(package: str) -> set[str]:
    code = (f"import sys, json; before = set(sys.modules); import {package}; "
            "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def packages(folder: str) -> list[str]:
    base = ROOT / folder
    found = [folder]
    found += [f"{folder}.{p.name}" for p in sorted(base.iterdir()) if (p / "__init__.py").exists()]
    found += [f"{folder}.{p.stem}" for p in sorted(base.glob("*.py")) if p.stem != "__init__"]
    return found


@pytest.mark.parametrize("package", packages("engine"))
def test_engine_packages_load_only_the_standard_library(package):
    foreign = {m for m in loaded_top_modules(package) if m not in STDLIB and m != "engine" and not m.startswith("_")}
    assert foreign == set(), f"{package} loads {sorted(foreign)}"


def bot_modules() -> list[str]:
    """The bots package, its modules and every title's module of bots/titles/."""
    return packages("bots") + [f"bots.titles.{p.stem}" for p in sorted((ROOT / "bots" / "titles").glob("*.py"))
                               if p.stem != "__init__"]


@pytest.mark.parametrize("module", bot_modules())
def test_37_1_bots_load_only_the_engine_and_the_standard_library(module):
    foreign = {m for m in loaded_top_modules(module)
               if m not in STDLIB and m not in ("engine", "bots") and not m.startswith("_")}
    assert foreign == set(), f"{module} loads {sorted(foreign)}"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


ALLOWED = {
    "engine": {"engine"},
    "renderers": {"engine", "renderers", "PIL"},
    "bots": {"engine", "bots"},
    "pbem": None,  # anything
    "worker": {"pbem", "worker", "celery", "kombu"},
}
SERVICE_ONLY = {"sqlalchemy", "alembic", "psycopg", "smtplib", "imaplib", "imapclient", "aiosmtpd", "flask"}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer):
    folder = ROOT / layer
    assert folder.is_dir(), f"{layer}/ is missing"
    allowed = ALLOWED[layer]
    for path in folder.rglob("*.py"):
        third_party = {m for m in imports_of(path) if m not in STDLIB}
        if allowed is not None:
            assert third_party <= allowed, f"{path.relative_to(ROOT)} imports {sorted(third_party - allowed)}"
        if layer != "pbem":
            assert not (third_party & SERVICE_ONLY), f"{path.relative_to(ROOT)} touches the database or mail"


def test_the_import_contracts_hold():
    """import-linter's contracts (pyproject.toml): the layers, engines that stand alone, no import
    cycle between sibling modules anywhere, and the order of the service's domain packages."""
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_32_1_only_a_titles_own_modules_name_it():
    """A title is one plug-in (issue 32, item 1): its registry entry is found by its package and names its
    renderers, so no other module of pbem, the renderers or the worker names a title (no table keyed by
    title, no `if title == "counters"`). Its own engine package and renderer modules may."""
    import engine

    titles = set(engine.names())
    found = []
    for layer in ("pbem", "renderers", "worker"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            if path.stem in titles:  # renderers/<title>.py, renderers/text/<title>.py: the title's own
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in titles:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} names {node.value!r}")
    assert found == []
