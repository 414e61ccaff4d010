from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.mask import token_mask
from smscan.engine.propagate import propagate_duplicates
from smscan.engine.rules import select_global
from smscan.engine.spans import token_runs
from smscan.engine.windows import Windows, fixed_windows
from tests.engine.paper_figure import FIGURE_MASK, FIGURE_NLL, FIGURE_SIZE, FIGURE_THRESHOLD


def ranges(pairs: list[tuple[int, int]]) -> Windows:
    starts = np.array([start for start, _ in pairs], dtype=np.int64)
    ends = np.array([end for _, end in pairs], dtype=np.int64)
    return Windows(starts=starts, ends=ends, scores=np.zeros(len(pairs)))


def test_figure_one_token_mask() -> None:
    windows = fixed_windows(FIGURE_NLL, size=FIGURE_SIZE)
    selected = select_global(windows, threshold=FIGURE_THRESHOLD)

    mask = token_mask(windows, selected, num_tokens=len(FIGURE_NLL), consensus=1)

    assert mask.tolist() == FIGURE_MASK
    assert mask.dtype == np.bool_


def test_figure_one_consensus_two_keeps_tokens_inside_two_selected_windows() -> None:
    windows = fixed_windows(FIGURE_NLL, size=FIGURE_SIZE)
    selected = select_global(windows, threshold=FIGURE_THRESHOLD)

    mask = token_mask(windows, selected, num_tokens=len(FIGURE_NLL), consensus=2)

    # Selected windows [4,6), [5,7), [6,8): tokens 5 and 6 get two votes, 4 and 7 one.
    assert np.flatnonzero(mask).tolist() == [5, 6]


@pytest.mark.parametrize(
    ("consensus", "expected"),
    [
        # Windows [0,4), [1,5), [2,6), [6,8) all selected: votes [1,2,3,3,2,1,1,1,0].
        (1, [0, 1, 2, 3, 4, 5, 6, 7]),
        (2, [1, 2, 3, 4]),
        (3, [2, 3]),
        (4, []),
    ],
)
def test_consensus_votes(consensus: int, expected: list[int]) -> None:
    windows = ranges([(0, 4), (1, 5), (2, 6), (6, 8)])

    mask = token_mask(windows, np.ones(4, dtype=bool), num_tokens=9, consensus=consensus)

    assert np.flatnonzero(mask).tolist() == expected


def test_unselected_windows_do_not_vote() -> None:
    windows = ranges([(0, 4), (1, 5), (2, 6)])

    mask = token_mask(windows, np.array([True, False, True]), num_tokens=6, consensus=2)

    assert np.flatnonzero(mask).tolist() == [2, 3]


def test_no_windows_no_mask() -> None:
    mask = token_mask(ranges([]), np.zeros(0, dtype=bool), num_tokens=3)

    assert mask.tolist() == [False, False, False]


@pytest.mark.parametrize(
    ("selected", "num_tokens", "consensus", "message"),
    [
        ([True], 8, 0, "consensus"),
        ([True, False, True], 8, 1, "one entry per window"),
        ([True], 3, 1, "outside"),
    ],
)
def test_token_mask_refuses_bad_input(
    selected: list[bool], num_tokens: int, consensus: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        token_mask(
            ranges([(0, 4)]), np.array(selected), num_tokens=num_tokens, consensus=consensus
        )


window_sets = st.integers(1, 30).flatmap(
    lambda num_tokens: st.tuples(
        st.just(num_tokens),
        st.lists(
            st.tuples(st.integers(0, num_tokens - 1), st.integers(1, num_tokens), st.booleans()),
            max_size=20,
        ),
    )
)


@given(case=window_sets)
def test_consensus_one_is_the_union_and_higher_consensus_only_removes(
    case: tuple[int, list[tuple[int, int, bool]]],
) -> None:
    num_tokens, drawn = case
    pairs = [(start, max(start + 1, end)) for start, end, _ in drawn]
    pairs = [(start, min(end, num_tokens)) for start, end in pairs]
    windows = ranges(pairs)
    selected = np.array([chosen for _, _, chosen in drawn], dtype=bool)

    union = np.zeros(num_tokens, dtype=bool)
    for (start, end), chosen in zip(pairs, selected):
        union[start:end] |= chosen
    masks = [
        token_mask(windows, selected, num_tokens=num_tokens, consensus=k) for k in range(1, 6)
    ]

    assert masks[0].tolist() == union.tolist()
    for looser, stricter in zip(masks, masks[1:]):
        assert not (stricter & ~looser).any()


# Appendix G: an unmasked span under the global rule cannot be too unlikely.

nll_arrays = st.lists(st.floats(min_value=0.0, max_value=30.0), max_size=60)


@given(
    nll=nll_arrays,
    size=st.integers(1, 5),
    threshold=st.floats(min_value=0.0, max_value=30.0),
    first_unscored=st.booleans(),
)
def test_appendix_g_probability_bound(
    nll: list[float], size: int, threshold: float, first_unscored: bool
) -> None:
    values = np.array(nll, dtype=np.float64)
    if first_unscored and len(values):
        values[0] = math.nan  # the first token of a text has no score
    windows = fixed_windows(values, size=size)
    mask = token_mask(
        windows, select_global(windows, threshold=threshold), num_tokens=len(values)
    )

    for start, end in token_runs(~mask):
        length = end - start
        run = values[start:end]
        if length < size or not np.isfinite(run).all():
            continue
        log_probability = -float(run.sum())
        assert log_probability >= -size * threshold * math.ceil(length / size) - 1e-9


@given(
    documents=st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.floats(0.0, 10.0)), max_size=25),
        min_size=1,
        max_size=4,
    ),
    size=st.integers(1, 4),
    threshold=st.floats(0.0, 10.0),
)
def test_propagation_after_the_global_rule_only_adds_masked_tokens(
    documents: list[list[tuple[int, float]]], size: int, threshold: float
) -> None:
    token_ids, masks = [], []
    for document in documents:
        ids = np.array([token for token, _ in document], dtype=np.int64)
        windows = fixed_windows(np.array([nll for _, nll in document], dtype=np.float64), size=size)
        token_ids.append(ids)
        masks.append(
            token_mask(windows, select_global(windows, threshold=threshold), num_tokens=len(ids))
        )

    propagated = propagate_duplicates(token_ids, masks, size=size)

    for before, after in zip(masks, propagated):
        assert not (before & ~after).any()
