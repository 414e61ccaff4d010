"""The commands stay thin: no module in smscan/cli/ over 300 lines, no function over 60 lines or
8 parameters.

Options shared by several commands live in groups (smscan/cli/options.py), so a command takes a
few group objects instead of one parameter per flag; logic that grows goes into the library, and
a module that grows splits into modules with one job each (export.py, export_checks.py, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "smscan" / "cli"
MAX_LINES = 60
MAX_MODULE_LINES = 300
MAX_PARAMETERS = 8


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((f"{path.name}:{node.lineno} {node.name}", node))
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    return len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)


def test_the_walk_sees_the_commands() -> None:
    names = {node.name for _, node in _functions()}
    assert {"repo_command", "export_command", "calibrate_command", "main"} <= names


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda path: path.name)
def test_module_is_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.name}: {lines} lines (at most {MAX_MODULE_LINES}); split it by job"


@pytest.mark.parametrize(("where", "node"), _functions(), ids=lambda value: value if isinstance(value, str) else "")
def test_function_is_short_and_takes_few_parameters(where: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    assert node.end_lineno is not None
    lines = node.end_lineno - node.lineno + 1
    assert lines <= MAX_LINES, f"{where}: {lines} lines (at most {MAX_LINES}); move logic into the library"
    assert _parameters(node) <= MAX_PARAMETERS, (
        f"{where}: {_parameters(node)} parameters (at most {MAX_PARAMETERS}); group options in smscan/cli/options.py"
    )
