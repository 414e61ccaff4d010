"""From a token mask to token runs and to character spans of the text."""

from __future__ import annotations

import numpy as np


def token_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of masked tokens.

    Args:
        mask: bool per token.

    Returns:
        Sorted, disjoint ``(start, end)`` token index ranges, end exclusive.

    Example:
        >>> token_runs(np.array([False, True, True, False, True]))
        [(1, 3), (4, 5)]
    """
    padded = np.concatenate(([0], np.asarray(mask, dtype=np.int8), [0]))
    edges = np.flatnonzero(np.diff(padded))
    # Edges alternate: a run opens where the mask rises and closes where it falls.
    return [(int(start), int(end)) for start, end in zip(edges[::2], edges[1::2])]


def char_spans(
    mask: np.ndarray, char_starts: np.ndarray, char_ends: np.ndarray
) -> list[tuple[int, int]]:
    """Code-point spans of the text covered by masked tokens.

    Tokens that cover no characters (``char_start == char_end``: multi-byte fragments, special
    tokens) are ignored whether masked or not, so they neither add a span nor split one. Among
    the rest, consecutive masked tokens form one span from the first one's start to the last
    one's end, so characters between them that no token covers (whitespace a tokenizer trims from
    its offsets) are inside the span. Spans that overlap or touch are then merged.

    Args:
        mask: bool per token.
        char_starts: int64 code-point start of each token.
        char_ends: int64 code-point end (exclusive) of each token.

    Returns:
        Sorted, disjoint, non-adjacent half-open ``(char_start, char_end)`` intervals.

    Raises:
        ValueError: if the three arrays are not aligned.

    Example:
        >>> char_spans(np.array([True, True, False]), np.array([0, 4, 8]), np.array([3, 7, 9]))
        [(0, 7)]
    """
    masked = np.asarray(mask, dtype=np.bool_)
    starts = np.asarray(char_starts, dtype=np.int64)
    ends = np.asarray(char_ends, dtype=np.int64)
    if not (masked.shape == starts.shape == ends.shape):
        raise ValueError(
            "mask, char_starts and char_ends must be aligned, got shapes "
            f"{masked.shape}, {starts.shape}, {ends.shape}"
        )
    covering = ends > starts
    masked_covering = masked[covering]
    runs = token_runs(masked_covering)
    if not runs:
        return []
    covering_starts = starts[covering]
    covering_ends = ends[covering]
    run_bounds = np.array(runs, dtype=np.int64)
    # min/max rather than first/last so that offsets out of order cannot produce an inverted span.
    span_starts = _reduce_per_range(np.minimum, covering_starts, run_bounds)
    span_ends = _reduce_per_range(np.maximum, covering_ends, run_bounds)
    return merge_touching(sorted(zip(span_starts.tolist(), span_ends.tolist())))


def _reduce_per_range(reduce: np.ufunc, values: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """``reduce`` over ``values[start:end]`` for each non-empty ``(start, end)`` row of ranges."""
    # reduceat reduces [boundaries[k], boundaries[k+1]); interleaving starts and ends and keeping
    # the even results confines each reduction to its own range. The pad lets a range end last.
    boundaries = ranges.ravel()
    padded = np.append(values, values[-1])
    result: np.ndarray = reduce.reduceat(padded, boundaries)[::2]
    return result


def merge_touching(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge sorted intervals that overlap or are adjacent."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
