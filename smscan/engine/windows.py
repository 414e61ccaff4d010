"""Windows: token index ranges with a surprise score (paper section 2, steps 1 and 2; D.1, D.5).

Fixed-size and line windows are both ``[start, end)`` token ranges, so the selection rules, the
token mask and the span mapping never need to know which window function made them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# A maximal stretch of one line from its first to its last non-whitespace character. ``\s`` in a
# str pattern is exactly ``str.isspace`` (so ``\r``, tabs and NBSP are whitespace); the BOM is not
# whitespace to Python but is invisible padding in source files, so it is treated as whitespace.
_LINE_CONTENT = re.compile(r"[^\s\ufeff](?:[^\n]*[^\s\ufeff])?")


@dataclass(frozen=True, slots=True, eq=False)
class Windows:
    """Scored windows over one token sequence.

    Attributes:
        starts: int64 index of each window's first token.
        ends: int64 index one past each window's last token (exclusive).
        scores: float64 mean NLL of each window in nats; NaN marks an invalid window, which no
            rule ever selects.
    """

    starts: np.ndarray
    ends: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        if not (self.starts.shape == self.ends.shape == self.scores.shape):
            raise ValueError(
                "Windows arrays must be aligned: starts, ends and scores have shapes "
                f"{self.starts.shape}, {self.ends.shape}, {self.scores.shape}"
            )

    def __len__(self) -> int:
        return int(self.starts.shape[0])


def fixed_windows(nll: np.ndarray, *, size: int = 4) -> Windows:
    """Score every run of ``size`` consecutive tokens (paper D.1).

    Args:
        nll: float64 per-token NLL in nats; NaN where a token has no score.
        size: window length ``n`` in tokens, at least 1.

    Returns:
        Windows ``[i, i + size)`` for ``i = 0 .. T - size`` scored by their mean NLL. A window
        holding any NaN or infinite NLL is invalid (score NaN). Fewer than ``size`` tokens give
        no windows.

    Raises:
        ValueError: if ``size`` is below 1.

    Example:
        >>> fixed_windows(np.array([1.0, 3.0, np.nan]), size=2).scores
        array([ 2., nan])
    """
    if size < 1:
        raise ValueError(f"window size must be at least 1, got {size}")
    values = np.asarray(nll, dtype=np.float64)
    count = max(values.shape[0] - size + 1, 0)
    starts = np.arange(count, dtype=np.int64)
    if count == 0:
        return Windows(starts=starts, ends=starts.copy(), scores=np.empty(0, dtype=np.float64))
    finite = np.isfinite(values)
    # Each window is summed on its own (not as a difference of prefix sums) so a window's score
    # carries only its own rounding error; Appendix G's bound is checked to 1e-9 against it.
    sums = sliding_window_view(np.where(finite, values, 0.0), size).sum(axis=1)
    nonfinite_before = np.concatenate(([0], np.cumsum(~finite, dtype=np.int64)))
    nonfinite = nonfinite_before[size:] - nonfinite_before[:-size]
    scores = np.where(nonfinite == 0, sums / size, np.nan)
    return Windows(starts=starts, ends=starts + size, scores=scores)


def line_windows(
    text: str, char_starts: np.ndarray, char_ends: np.ndarray, nll: np.ndarray
) -> tuple[Windows, np.ndarray]:
    """One window per code line with visible content (paper D.5, the dead code study).

    Lines are split on ``\\n`` only; ``\\r``, tabs, other Unicode whitespace and the BOM (U+FEFF)
    are whitespace. A line's content extent is ``[first non-whitespace char, last + 1)``.

    Membership: a token belongs to a line when its code-point span overlaps the line's content
    extent. Tokens that cover no characters (``char_start == char_end``) belong to no line, and
    a token whose span crosses a line break (``"}\\n}"``) belongs to both lines. The window is
    ``[first member, last member + 1)``, so it also holds any zero-width tokens between members
    (fragments of a multi-byte character); its score is the mean NLL over every token of that
    range, the same definition as for fixed windows. The text's first token is never scored, so
    a NaN there is skipped rather than invalidating the first line; any other non-finite NLL in
    the range makes the window invalid (score NaN), as does a range with no finite NLL at all.
    A line whose content no token overlaps (text past the tokenized part) gets no window.

    Args:
        text: the document text the offsets index into.
        char_starts: int64 code-point start of each token.
        char_ends: int64 code-point end (exclusive) of each token.
        nll: float64 NLL of each token in nats; NaN where unscored.

    Returns:
        The windows, in line order, and the 1-based int64 line number of each window.

    Raises:
        ValueError: if the arrays are not aligned or the offsets of tokens that cover
            characters are not non-decreasing.

    Example:
        >>> windows, lines = line_windows(
        ...     "a = 1\\n\\nb", np.array([0, 1, 3, 5, 7]), np.array([1, 3, 5, 7, 8]),
        ...     np.array([np.nan, 1.0, 2.0, 0.5, 3.0]))
        >>> windows.starts, windows.ends, windows.scores, lines
        (array([0, 4]), array([3, 5]), array([1.5, 3. ]), array([1, 3]))
    """
    starts = np.asarray(char_starts, dtype=np.int64)
    ends = np.asarray(char_ends, dtype=np.int64)
    values = np.asarray(nll, dtype=np.float64)
    if not (starts.shape == ends.shape == values.shape):
        raise ValueError(
            "token arrays must be aligned: char_starts, char_ends and nll have shapes "
            f"{starts.shape}, {ends.shape}, {values.shape}"
        )
    content_starts, content_ends, line_numbers = _line_contents(text)
    first, last = _member_bounds(starts, ends, content_starts, content_ends)
    has_members = first <= last
    window_starts = first[has_members]
    window_ends = last[has_members] + 1
    windows = Windows(
        starts=window_starts,
        ends=window_ends,
        scores=_range_means(values, window_starts, window_ends),
    )
    return windows, line_numbers[has_members]


def _line_contents(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Content extents ``[start, end)`` and 1-based line numbers of lines with visible content."""
    content_starts: list[int] = []
    content_ends: list[int] = []
    line_numbers: list[int] = []
    line = 1
    previous = 0
    for match in _LINE_CONTENT.finditer(text):
        line += text.count("\n", previous, match.start())
        previous = match.start()
        content_starts.append(match.start())
        content_ends.append(match.end())
        line_numbers.append(line)
    return (
        np.array(content_starts, dtype=np.int64),
        np.array(content_ends, dtype=np.int64),
        np.array(line_numbers, dtype=np.int64),
    )


def _member_bounds(
    starts: np.ndarray, ends: np.ndarray, content_starts: np.ndarray, content_ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """First and last member token of each line; ``first > last`` where a line has none."""
    covering = np.flatnonzero(ends > starts)
    if covering.shape[0] == 0:
        none = np.zeros(content_starts.shape, dtype=np.int64)
        return none, none - 1
    covering_starts = starts[covering]
    covering_ends = ends[covering]
    # Binary search needs ordered offsets; zero-width tokens are left out first because special
    # tokens may carry arbitrary positions.
    if np.any(np.diff(covering_starts) < 0) or np.any(np.diff(covering_ends) < 0):
        raise ValueError(
            "char_starts and char_ends of tokens that cover characters must not decrease"
        )
    # The first covering token that ends after the content starts, and the last one that starts
    # before the content ends: with ordered offsets everything between them overlaps the line.
    first = np.searchsorted(covering_ends, content_starts, side="right")
    last = np.searchsorted(covering_starts, content_ends, side="left") - 1
    has_members = first <= last
    token_first = np.where(has_members, covering[np.minimum(first, len(covering) - 1)], 0)
    token_last = np.where(has_members, covering[np.maximum(last, 0)], -1)
    return token_first.astype(np.int64), token_last.astype(np.int64)


def _range_means(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Mean of ``values[s:e]`` per range; NaN where a non-finite value past index 0 occurs."""
    if starts.shape[0] == 0:
        return np.empty(0, dtype=np.float64)
    finite = np.isfinite(values)
    invalidating = ~finite
    invalidating[:1] = False  # the text's first token has no context, so it is never scored
    # reduceat sums [boundaries[k], boundaries[k+1]); interleaving starts and ends and keeping the
    # even results sums each range on its own, exactly, even when ranges overlap. The padding
    # element lets a range end at the last token.
    boundaries = np.stack([starts, ends], axis=1).ravel()
    sums = np.add.reduceat(np.append(np.where(finite, values, 0.0), 0.0), boundaries)[::2]
    counts = np.add.reduceat(np.append(finite.astype(np.int64), 0), boundaries)[::2]
    bad = np.add.reduceat(np.append(invalidating.astype(np.int64), 0), boundaries)[::2]
    valid = (bad == 0) & (counts > 0)
    return np.where(valid, sums / np.maximum(counts, 1), np.nan)
