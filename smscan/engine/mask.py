"""Token mask from selected windows: any-window (paper Eq. 2) or consensus-k (D.3)."""

from __future__ import annotations

import numpy as np

from smscan.engine.windows import Windows


def token_mask(
    windows: Windows, selected: np.ndarray, *, num_tokens: int, consensus: int = 1
) -> np.ndarray:
    """Mask each token covered by at least ``consensus`` selected windows.

    The vote of token ``j`` is the number of selected windows ``[start, end)`` holding it.
    ``consensus=1`` is the paper's rule: any selected window masks all of its tokens.

    Args:
        windows: the windows that were scored.
        selected: bool per window, from a selection rule.
        num_tokens: length of the token sequence the windows index.
        consensus: votes a token needs to be masked (k), at least 1.

    Returns:
        bool array of length ``num_tokens``, True where the token is masked.

    Raises:
        ValueError: if ``consensus`` is below 1, ``selected`` is not one entry per window, or a
            window reaches past ``num_tokens``.

    Example:
        >>> windows = Windows(np.array([0, 1]), np.array([2, 3]), np.array([4.0, 4.0]))
        >>> token_mask(windows, np.array([True, True]), num_tokens=4, consensus=2)
        array([False,  True, False, False])
    """
    if consensus < 1:
        raise ValueError(f"consensus must be at least 1, got {consensus}")
    chosen = np.asarray(selected, dtype=np.bool_)
    if chosen.shape != windows.scores.shape:
        raise ValueError(
            f"selected has shape {chosen.shape}, expected one entry per window ({len(windows)})"
        )
    starts = windows.starts[chosen]
    ends = windows.ends[chosen]
    if ends.shape[0] and (int(ends.max()) > num_tokens or int(starts.min()) < 0):
        raise ValueError(f"a selected window lies outside the {num_tokens} tokens")
    # Difference array: +1 where a window opens, -1 where it closes; the running sum is the vote.
    changes = np.bincount(starts, minlength=num_tokens + 1) - np.bincount(
        ends, minlength=num_tokens + 1
    )
    votes = np.cumsum(changes[:num_tokens])
    return np.asarray(votes >= consensus, dtype=np.bool_)
