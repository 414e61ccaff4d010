"""Compare a rendered report with ``tests/golden/NAME`` whole.

Set ``SMSCAN_UPDATE_GOLDEN=1`` to rewrite the files instead (then review the diff); nothing else
writes them.
"""

from __future__ import annotations

import os
from io import StringIO
from pathlib import Path

from rich.console import Console

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def plain_console(width: int = 80) -> Console:
    """A Console on a StringIO: fixed width, no colour, not a terminal, empty environment."""
    return Console(
        file=StringIO(), width=width, color_system=None, force_terminal=False,
        highlight=False, legacy_windows=False, _environ={},
    )


def output(console: Console) -> str:
    file = console.file
    assert isinstance(file, StringIO)
    return file.getvalue()


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("SMSCAN_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from {path} (SMSCAN_UPDATE_GOLDEN=1 rewrites it)"
