"""Selection rules: which windows are surprising enough to mask (paper step 4; D.1, D.2)."""

from __future__ import annotations

import numpy as np

from smscan.engine.windows import Windows


def select_global(windows: Windows, *, threshold: float) -> np.ndarray:
    """Global SM: select every window whose mean NLL is at or above one threshold (D.1).

    Args:
        windows: scored windows.
        threshold: tau in nats per token.

    Returns:
        bool array, one entry per window; invalid (NaN) windows are never selected.

    Example:
        >>> select_global(Windows(np.array([0, 1]), np.array([2, 3]), np.array([3.9, np.nan])),
        ...               threshold=3.9)
        array([ True, False])
    """
    # NaN compares False, so invalid windows drop out without a separate check.
    return np.asarray(windows.scores >= threshold, dtype=np.bool_)


def select_local(windows: Windows, *, neighbours: int = 32, rank_max: float) -> np.ndarray:
    """Local SM: select windows that rank as surprising among their neighbours (D.2).

    Only valid windows take part. Each valid window is compared with up to ``neighbours`` valid
    windows before it and as many after it (fewer at the ends of the sequence). With ``l`` the
    mean log-probability (``-score``), its rank is ``r_i = 100 / |N_i| * #{j in N_i: l_i >= l_j}``
    and it is selected when ``r_i < rank_max``. Ties raise the rank, so they count against
    selection. A window with no valid neighbour is never selected.

    Args:
        windows: scored windows, in sequence order.
        neighbours: how many valid windows to compare on each side, at least 1.
        rank_max: selection cut-off on the 0-100 rank scale.

    Returns:
        bool array, one entry per window.

    Raises:
        ValueError: if ``neighbours`` is below 1.

    Example:
        >>> scores = np.array([1.0, 5.0, 1.0, 1.0])
        >>> select_local(Windows(np.arange(4), np.arange(4) + 2, scores), neighbours=1,
        ...              rank_max=50.0)
        array([False,  True, False, False])
    """
    ranks = local_ranks(windows, neighbours=neighbours)
    # NaN (invalid, or no valid neighbour) compares False: never selected.
    return np.asarray(ranks < rank_max, dtype=np.bool_)


def local_ranks(windows: Windows, *, neighbours: int = 32) -> np.ndarray:
    """Each window's 0-100 rank among its valid neighbours (D.2); NaN where it has none.

    The rank :func:`select_local` compares with ``rank_max``: a low rank means the window is
    more surprising than most of its neighbours. Calibration and reports read the same numbers.

    Raises:
        ValueError: if ``neighbours`` is below 1.

    Example:
        >>> local_ranks(Windows(np.arange(3), np.arange(3) + 2, np.array([1.0, 5.0, 1.0])), neighbours=1)
        array([100.,   0., 100.])
    """
    if neighbours < 1:
        raise ValueError(f"neighbours must be at least 1, got {neighbours}")
    valid = np.flatnonzero(~np.isnan(windows.scores))
    # Compare log-probabilities literally as the paper defines them; negation is exact.
    log_probs = -windows.scores[valid]
    count = log_probs.shape[0]
    not_lower = np.zeros(count, dtype=np.int64)  # #{j in N_i: l_i >= l_j}
    for offset in range(1, min(neighbours, count - 1) + 1):
        # Pair every window with the one `offset` places later; each pair informs both ranks.
        earlier, later = log_probs[:-offset], log_probs[offset:]
        not_lower[:-offset] += earlier >= later
        not_lower[offset:] += later >= earlier
    positions = np.arange(count)
    neighbour_counts = np.minimum(positions, neighbours) + np.minimum(
        count - 1 - positions, neighbours
    )
    ranks = np.full(len(windows), np.nan)
    ranks[valid] = np.where(neighbour_counts > 0, 100.0 * not_lower / np.maximum(neighbour_counts, 1), np.nan)
    return ranks
