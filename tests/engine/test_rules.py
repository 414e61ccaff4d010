from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.rules import local_ranks, select_global, select_local
from smscan.engine.windows import Windows, fixed_windows
from tests.engine.paper_figure import (
    FIGURE_NLL,
    FIGURE_SELECTED,
    FIGURE_SIZE,
    FIGURE_THRESHOLD,
)

NAN = math.nan


def scored(scores: list[float]) -> Windows:
    """Windows of two tokens, one per score, in sequence order."""
    starts = np.arange(len(scores), dtype=np.int64)
    return Windows(starts=starts, ends=starts + 2, scores=np.array(scores, dtype=np.float64))


# select_global


def test_figure_one_selected_windows() -> None:
    windows = fixed_windows(FIGURE_NLL, size=FIGURE_SIZE)

    selected = select_global(windows, threshold=FIGURE_THRESHOLD)

    assert selected.tolist() == FIGURE_SELECTED
    assert selected.dtype == np.bool_


@pytest.mark.parametrize(
    ("scores", "threshold", "expected"),
    [
        ([3.9, 3.8999, 4.0], 3.9, [True, False, True]),  # at the threshold is selected
        ([NAN, 9.0, NAN], 0.0, [False, True, False]),  # invalid windows never
        ([NAN, NAN], -math.inf, [False, False]),
        ([], 1.0, []),
    ],
)
def test_select_global(scores: list[float], threshold: float, expected: list[bool]) -> None:
    assert select_global(scored(scores), threshold=threshold).tolist() == expected


def test_nan_in_a_window_keeps_it_out_of_the_global_rule() -> None:
    windows = fixed_windows(np.array([9.0, NAN, 9.0, 9.0]), size=2)

    assert select_global(windows, threshold=1.0).tolist() == [False, False, True]


# select_local


@pytest.mark.parametrize(
    ("neighbours", "rank_max", "expected"),
    [
        # l = -score = [-1, -5, -2, -4, -3]. With one neighbour per side the ranks are
        # [100, 0, 100, 0, 100]; the ends have a single neighbour.
        (1, 50.0, [False, True, False, True, False]),
        (1, 0.0, [False, False, False, False, False]),
        # Two per side: ranks [100, 0, 75, 100/3, 50]; the last is not below 50.
        (2, 50.0, [False, True, False, True, False]),
        (2, 50.0001, [False, True, False, True, True]),
        (2, 80.0, [False, True, True, True, True]),
        # More neighbours than exist: every other window, ranks [100, 0, 75, 25, 50].
        (32, 50.0, [False, True, False, True, False]),
        (32, 60.0, [False, True, False, True, True]),
    ],
)
def test_local_rank_hand_computed(neighbours: int, rank_max: float, expected: list[bool]) -> None:
    windows = scored([1.0, 5.0, 2.0, 4.0, 3.0])

    assert select_local(windows, neighbours=neighbours, rank_max=rank_max).tolist() == expected


@pytest.mark.parametrize(
    ("scores", "rank_max", "expected"),
    [
        ([2.0, 2.0, 2.0], 100.0, [False, False, False]),  # all tied: every rank is 100
        ([1.0, 4.0, 4.0, 1.0], 50.0, [False, False, False, False]),  # tie lifts rank to 50
        ([1.0, 4.0, 4.0, 1.0], 50.1, [False, True, True, False]),
        ([1.0, 4.0, 4.5, 1.0], 50.0, [False, False, True, False]),
    ],
)
def test_local_ties_count_against_selection(
    scores: list[float], rank_max: float, expected: list[bool]
) -> None:
    assert select_local(scored(scores), neighbours=1, rank_max=rank_max).tolist() == expected


def test_local_skips_invalid_windows() -> None:
    # Valid sequence [1, 5, 1]: the NaN is neither selected nor a neighbour, so the 5 is
    # compared with both 1s and ranks 0.
    windows = scored([1.0, NAN, 5.0, NAN, 1.0])

    assert select_local(windows, neighbours=1, rank_max=1.0).tolist() == [
        False,
        False,
        True,
        False,
        False,
    ]


@pytest.mark.parametrize("scores", [[], [7.0], [NAN, 7.0, NAN], [NAN]])
def test_local_needs_a_valid_neighbour(scores: list[float]) -> None:
    assert not select_local(scored(scores), neighbours=4, rank_max=101.0).any()


def test_local_neighbours_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        select_local(scored([1.0, 2.0]), neighbours=0, rank_max=50.0)


def reference_local(scores: list[float], neighbours: int, rank_max: float) -> list[bool]:
    """D.2 written out directly, O(W^2)."""
    valid = [i for i, score in enumerate(scores) if not math.isnan(score)]
    selected = [False] * len(scores)
    for position, index in enumerate(valid):
        around = valid[max(position - neighbours, 0) : position] + valid[
            position + 1 : position + 1 + neighbours
        ]
        if not around:
            continue
        mine = -scores[index]
        rank = 100 / len(around) * sum(mine >= -scores[j] for j in around)
        selected[index] = rank < rank_max
    return selected


@given(
    scores=st.lists(
        st.one_of(st.sampled_from([1.0, 2.0, 3.0, NAN]), st.floats(0.0, 10.0)), max_size=40
    ),
    neighbours=st.integers(1, 6),
    rank_max=st.floats(0.0, 101.0),
)
def test_local_matches_the_definition(
    scores: list[float], neighbours: int, rank_max: float
) -> None:
    selected = select_local(scored(scores), neighbours=neighbours, rank_max=rank_max)

    assert selected.tolist() == reference_local(scores, neighbours, rank_max)


@pytest.mark.parametrize("seed", range(10))
def test_local_ranks_are_what_select_local_compares(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    scores = rng.integers(0, 5, n).astype(float)  # ties included
    scores[rng.random(n) < 0.2] = np.nan
    windows = Windows(np.arange(n), np.arange(n) + 1, scores)
    neighbours = int(rng.integers(1, 6))
    ranks = local_ranks(windows, neighbours=neighbours)
    assert np.isnan(ranks[np.isnan(scores)]).all()
    finite = ranks[np.isfinite(ranks)]
    assert ((finite >= 0) & (finite <= 100)).all()
    for rank_max in (1.0, 25.0, 50.0, 100.0):
        np.testing.assert_array_equal(select_local(windows, neighbours=neighbours, rank_max=rank_max), ranks < rank_max)
