"""Character offsets of tokens: from a tokenizer's offset mapping to a partition of the text.

Fast tokenizers report, per token, the code-point range ``(start, end)`` of the characters it
touches. Those ranges can overlap (byte-level BPE splits a multi-byte character such as an emoji
over several tokens, each reporting the whole character), skip characters (a normaliser may drop
them) or report ``(0, 0)`` for special tokens. smscan's convention, relied on everywhere a token
range becomes a character range:

- Tokens cover consecutive, non-overlapping code-point ranges in order, and together the whole
  text: ``"".join(text[s:e] for s, e in zip(starts, ends)) == text``.
- Each character belongs to the first token whose reported range reaches it. A token whose
  characters were all claimed by earlier tokens (the second and third byte of an emoji) gets
  ``start == end``.
- Characters no token reports (a gap) belong to the next token; trailing ones to the last token.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Replace lone surrogates (from ``surrogateescape`` decoding) by U+FFFD, one for one.

    Tokenizers cannot encode them; replacing each by one code point keeps every offset valid.

    Args:
        text: any Python string.

    Returns:
        The text with the same length and no surrogate code points.
    """
    return _SURROGATE.sub("\ufffd", text)


def partition_offsets(
    offsets: Sequence[tuple[int, int]], text_length: int
) -> tuple[np.ndarray, np.ndarray]:
    """Turn a tokenizer's offset mapping into smscan's partition (module docstring).

    Args:
        offsets: one ``(start, end)`` code-point pair per token, in token order.
        text_length: ``len(text)`` in code points.

    Returns:
        ``(char_starts, char_ends)`` as int64 arrays with one entry per token.

    Example:
        >>> partition_offsets([(0, 1), (1, 2), (1, 2), (1, 2)], 2)[0].tolist()
        [0, 1, 2, 2]
    """
    if not offsets:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    reported_ends = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)[:, 1]  # (n_tokens,)
    # Each token ends where the furthest range so far ends: claimed characters stay claimed.
    ends = np.maximum.accumulate(np.clip(reported_ends, 0, text_length))  # (n_tokens,)
    ends[-1] = text_length
    starts = np.concatenate([np.zeros(1, dtype=np.int64), ends[:-1]])  # (n_tokens,)
    return starts, ends
