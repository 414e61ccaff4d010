"""The paper's Figure 1 example, shared by the engine tests."""

from __future__ import annotations

import numpy as np

FIGURE_TOKENS = ["Please", "call", "Jane", "at", "555", "-", "014", "7", "tomorrow", "."]
FIGURE_NLL = np.array([2.6, 1.4, 4.5, 1.1, 6.5, 1.4, 6.9, 3.3, 2.1, 0.4])
FIGURE_SIZE = 2
FIGURE_THRESHOLD = 3.9
FIGURE_SCORES = [2.00, 2.95, 2.80, 3.80, 3.95, 4.15, 5.10, 2.70, 1.25]
FIGURE_SELECTED = [False, False, False, False, True, True, True, False, False]
FIGURE_MASK = [False, False, False, False, True, True, True, True, False, False]


def figure_text() -> tuple[str, np.ndarray, np.ndarray]:
    """The sentence with single spaces between tokens; tokens' offsets leave the spaces out."""
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for token in FIGURE_TOKENS:
        starts.append(position)
        ends.append(position + len(token))
        position += len(token) + 1
    text = " ".join(FIGURE_TOKENS)
    return text, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
