"""Render a contrast's two passes per window (``smscan/engine/passes.py``) under ``explain``'s report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rich.console import Console
from rich.table import Table

from smscan.reports.redact import redact


class _PassWindow(Protocol):
    """``smscan.engine.passes.PassWindow`` as this module reads it (reports import no engine code)."""

    @property
    def line(self) -> int: ...
    @property
    def char_start(self) -> int: ...
    @property
    def char_end(self) -> int: ...
    @property
    def violating(self) -> float: ...
    @property
    def compliant(self) -> float: ...
    @property
    def contrast(self) -> float: ...


def render_contrast_passes(
    console: Console, text: str, windows: Sequence[_PassWindow], *, redact_values: bool
) -> None:
    """A table of windows: line, text (redacted unless asked), mean NLL under each instruction, contrast.

    Args:
        console: where to print.
        text: the document the windows index.
        windows: from ``contrast_windows``, highest contrast first.
        redact_values: show each window's characters as their length only.
    """
    table = Table(title="Contrast: both passes per window (mean NLL, nats/token)", title_justify="left")
    for name, justify in (("line", "right"), ("window", "left"), ("violating", "right"), ("compliant", "right"),
                          ("contrast", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]  # justify is one of rich's Literal values, held in a str
    for window in windows:
        chars = text[window.char_start : window.char_end]
        shown = redact(chars) if redact_values else repr(chars)
        table.add_row(str(window.line), shown, f"{window.violating:.2f}", f"{window.compliant:.2f}", f"{window.contrast:+.2f}")
    console.print(table)
