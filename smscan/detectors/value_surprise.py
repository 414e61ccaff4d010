"""How surprising one value is to the model, from a document's token scores.

Two statistics (``CredentialRule.statistic``): the value's total NLL per character, the model's
estimate of how random the value is (``rate``), or the paper's highest mean NLL of a fixed
window of tokens touching the value (``window``). Tokens partition the text in order, so the
tokens overlapping a value are one index range, found by binary search.
"""

from __future__ import annotations

import math

import numpy as np

from smscan.engine.windows import Windows


def max_window_score(
    windows: Windows, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float:
    """Highest valid window score among windows holding a token that overlaps ``[start, end)``;
    ``-inf`` when there is none."""
    first = int(np.searchsorted(token_ends, start, side="right"))
    last = int(np.searchsorted(token_starts, end, side="left")) - 1
    if first > last or len(windows) == 0:
        return -math.inf
    size = int(windows.ends[0] - windows.starts[0])
    # Window i covers tokens [i, i + size): it overlaps [first, last] when i <= last and
    # i + size > first.
    window_scores = windows.scores[max(first - size + 1, 0) : min(last + 1, len(windows))]
    window_scores = window_scores[np.isfinite(window_scores)]
    return float(window_scores.max()) if window_scores.size else -math.inf


def nll_per_char(
    nll: np.ndarray, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float:
    """Total NLL of the tokens overlapping ``[start, end)`` per character of the value;
    ``-inf`` when no scored token overlaps it."""
    first = int(np.searchsorted(token_ends, start, side="right"))
    last = int(np.searchsorted(token_starts, end, side="left")) - 1
    if first > last:
        return -math.inf
    values = nll[first : last + 1]
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return -math.inf
    return float(finite.sum()) / (end - start)
