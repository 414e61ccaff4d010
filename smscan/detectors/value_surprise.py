"""How surprising one value is to the model, from a document's token scores.

Two statistics (``CredentialRule.statistic``): the value's total NLL per character, the model's
estimate of how random the value is (``rate``), or the paper's highest mean NLL of a fixed
window of tokens touching the value (``window``). A third says how the surprise is spread
(:func:`predictable_share`): a drawn value is surprising throughout, a surprising name only in
places. Tokens partition the text in order, so the tokens overlapping a value are one index
range, found by binary search.
"""

from __future__ import annotations

import math

import numpy as np

from smscan.engine.windows import Windows

# A token the model predicts at under this many nats a character is one a reader could have
# guessed too: part of a word, of a name or of the syntax around it. A drawn value's tokens cost
# 2-4 nats a character (base64, hex and UUID keys of the foreign sources: docs/BENCHMARKS.md).
PREDICTABLE_NATS_PER_CHAR = 1.0
# ...and a token the model gives under 1% is never one it predicts, however many characters it
# covers (a long token of a drawn value's vocabulary).
PREDICTABLE_MAX_NATS = 4.6


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


def predictable_share(
    nll: np.ndarray, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float:
    """The share of ``[start, end)``'s characters that lie in tokens the model predicts (under
    :data:`PREDICTABLE_NATS_PER_CHAR` nats a character and :data:`PREDICTABLE_MAX_NATS` in all);
    0.0 when no scored token overlaps it.

    A drawn value (a key, a token, a generated password) is surprising throughout: no token of
    it is one the model could guess. A name the model finds surprising as a whole (an
    enumeration's ``bbpos_wisepad3``, an algorithm's ``GOOG4-RSA-SHA256``, a word written in
    escapes, ``sas_token).url``) is surprising in places only: the words and the syntax in it
    are cheap.

    Example:
        >>> nll = np.array([9.0, 0.5, 12.0])  # 'GOOG4' surprising, '-RSA' predicted, '-SHA256' not
        >>> predictable_share(nll, np.array([0, 5, 9]), np.array([5, 9, 16]), 0, 16)
        0.25
    """
    first = int(np.searchsorted(token_ends, start, side="right"))
    last = int(np.searchsorted(token_starts, end, side="left")) - 1
    if first > last or end <= start:
        return 0.0
    predicted = 0
    for index in range(first, last + 1):
        left, right = max(int(token_starts[index]), start), min(int(token_ends[index]), end)
        width = int(token_ends[index]) - int(token_starts[index])
        cost = nll[index]
        if right > left and width > 0 and cost / width < PREDICTABLE_NATS_PER_CHAR and cost < PREDICTABLE_MAX_NATS:
            predicted += right - left
    return predicted / (end - start)


def predicted_at_least(
    limit: float | None, nll: np.ndarray, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float | None:
    """:func:`predictable_share` of ``[start, end)`` when it reaches ``limit`` (the value is
    surprising in places only, a name); None when it does not or ``limit`` is None."""
    if limit is None:
        return None
    share = predictable_share(nll, token_starts, token_ends, start, end)
    return share if share >= limit else None
