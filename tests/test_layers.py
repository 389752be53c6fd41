"""The package's folders are its layers: the top level keeps the doors, imports only go down."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "vaultmem"

# Lowest first. A module may import its own layer and the layers below it, and the shared base.
LAYERS = ("notes", "mining", "store", "search", "memory", "brief", "claude", "serve", "cli")
BASE = {"vaultmem", "vaultmem.errors", "vaultmem.clock", "vaultmem.faults"}
DOORS = {"__init__", "__main__", "launcher", "errors", "clock", "faults"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path) -> set[str]:
    """Every vaultmem module `name` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("vaultmem")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("vaultmem"):
                found |= {f"{module}.{alias.name}" for alias in node.names} | {module}
    modules = _modules()
    return {m for m in found if m in modules and m != name}


def _layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_the_top_level_keeps_only_the_doors() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == DOORS
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} == set(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_says_what_it_owns(layer: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text()))
    assert doc and "import" in doc, f"vaultmem/{layer}/__init__.py must say what it may import"


def test_imports_only_go_down() -> None:
    upward = []
    for name, path in sorted(_modules().items()):
        own = _layer(name)
        for target in sorted(_imports(name, path)):
            theirs = _layer(target)
            if theirs is None:
                if own is not None and target not in BASE:
                    upward.append(f"{name} -> {target} (a door)")
            elif own is not None and theirs > own:
                upward.append(f"{name} -> {target}")
            elif own is None and name.rpartition(".")[2] in ("errors", "clock", "faults"):
                upward.append(f"{name} -> {target} (the base imports a layer)")
    assert upward == []



MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines() -> None:
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"split these by concern (lines): {long}"
