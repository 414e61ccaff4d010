"""What ``explain`` shows of a contrast score: both passes, window by window.

A contrast is ``nll(compliant) - nll(violating)`` per token (``model/prompted.py``); a window's
contrast is the difference of its two passes' mean NLL, so the table lets a reader see whether a
window stands out because the compliant instruction makes it surprising or because the violating
one makes it expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from smscan.engine.windows import fixed_windows
from smscan.records import TokenScores


@dataclass(frozen=True, slots=True)
class PassWindow:
    """One window's mean NLL under each instruction, and their contrast (nats per token)."""

    line: int
    char_start: int
    char_end: int
    violating: float
    compliant: float

    @property
    def contrast(self) -> float:
        return self.compliant - self.violating


def contrast_windows(
    text: str, passes: Sequence[TokenScores], *, window: int, first_line: int, last_line: int, top: int = 10
) -> list[PassWindow]:
    """The ``top`` windows of the lines ``first_line..last_line`` by contrast, highest first.

    Args:
        text: the document.
        passes: its violating and compliant passes (same tokens).
        window: window length in tokens.
        first_line: first 1-based line shown.
        last_line: last 1-based line shown.
        top: how many windows.

    Returns:
        The windows, each with both passes' means.
    """
    violating, compliant = passes
    by_violating = fixed_windows(violating.nll, size=window)
    by_compliant = fixed_windows(compliant.nll, size=window)
    rows = []
    for index in np.flatnonzero(np.isfinite(by_violating.scores) & np.isfinite(by_compliant.scores)):
        start = int(violating.char_starts[by_violating.starts[index]])
        end = int(violating.char_ends[by_violating.ends[index] - 1])
        line = text.count("\n", 0, start) + 1
        if first_line <= line <= last_line:
            rows.append(PassWindow(line, start, end, float(by_violating.scores[index]), float(by_compliant.scores[index])))
    rows.sort(key=lambda row: (-row.contrast, row.char_start))
    return rows[:top]
