"""Token scores chosen by hand: one token per character, so tests pin exact numbers."""

from __future__ import annotations

import numpy as np

from smscan.records import TokenScores


def char_scores(text: str, surprising: list[tuple[int, int]] = (), *, high: float = 9.0,
                low: float = 1.0) -> TokenScores:
    """One token per character; NLL ``high`` inside the ``surprising`` spans, ``low`` elsewhere.

    The first token has no score (NaN), as with a real model.
    """
    n = len(text)
    nll = np.full(n, low, dtype=np.float64)
    for start, end in surprising:
        nll[start:end] = high
    if n:
        nll[0] = np.nan
    ids = np.array([ord(c) for c in text], dtype=np.int64)
    starts = np.arange(n, dtype=np.int64)
    return TokenScores(token_ids=ids, char_starts=starts, char_ends=starts + 1, nll=nll)


def surprising_values(text: str, values: list[str], **kwargs: float) -> TokenScores:
    """Scores where every occurrence of each value is surprising."""
    spans = []
    for value in values:
        start = text.find(value)
        while start != -1:
            spans.append((start, start + len(value)))
            start = text.find(value, start + 1)
    return char_scores(text, spans, **kwargs)
