"""The import graph of smscan/: no cycle between modules, and no package importing a later layer.

The layers are those of docs/architecture.md ("Layers"), lowest first; a package may import its own
modules and any earlier layer. Every import counts, at module level, inside functions and under
``TYPE_CHECKING``: a cycle a type checker needs is still a knot a reader must untangle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "smscan"

LAYERS = (
    ("errors", "records", "kinds"),
    ("fileio",),
    ("config",),
    ("reports", "sources", "engine"),
    ("detectors",),
    ("model",),
    ("plan",),
    ("scoring",),
    ("rules",),
    ("judge",),
    ("exports",),
    ("calibration", "decide"),
    ("worker",),
    ("api",),
    ("cli",),
    ("__main__",),
)
"""Packages (or top-level modules) in the order the data flows; ``smscan`` itself (the version and
the lazily imported public API) is below everything."""

RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imported_modules(path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The smscan modules ``path`` imports (``from a.b import c`` names ``a.b.c`` when that is a module)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "smscan":
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                yield submodule if submodule in known else node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "smscan")


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports. ``smscan/__init__.py`` is left out as an importer: it
    imports the public API only when an attribute is first asked for (``smscan.mask_texts``), so
    the modules that read ``smscan.__version__`` do not import the API through it."""
    known = module_names()
    return {
        name: {target for target in imported_modules(path, known) if target != name} if name != "smscan" else set()
        for name, path in known.items()
    }


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "smscan"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that ends where it starts, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle_between_modules() -> None:
    assert find_cycle(import_graph()) is None


def test_every_package_has_a_layer() -> None:
    packages = {layer_of(name) for name in module_names()} - {"smscan"}
    assert packages <= set(RANK), f"add these to LAYERS and docs/architecture.md: {sorted(packages - set(RANK))}"


def test_no_package_imports_a_later_layer() -> None:
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if layer_of(source) != "smscan"
        and layer_of(target) != "smscan"
        and layer_of(source) != layer_of(target)
        and RANK[layer_of(target)] >= RANK[layer_of(source)]
    )
    assert upward == []


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"b"}, "b": set()}, None),
    ],
)
def test_find_cycle_finds_a_planted_cycle(graph: dict[str, set[str]], cycle: list[str] | None) -> None:
    assert find_cycle(graph) == cycle
