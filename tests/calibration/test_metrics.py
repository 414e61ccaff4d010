from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.calibration.metrics import Confusion, auroc, confusion, sweep

INF = math.inf


def test_confusion_counts_and_rates() -> None:
    counts = confusion(np.array([1, 1, 0, 0, 1], bool), np.array([1, 0, 1, 0, 1], bool))

    assert counts == Confusion(tp=2, fp=1, fn=1, tn=1)
    assert counts.tpr == pytest.approx(2 / 3)
    assert counts.fpr == pytest.approx(1 / 2)
    assert counts.precision == pytest.approx(2 / 3)
    assert counts.f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))


def test_empty_confusion_is_zero_not_an_error() -> None:
    assert Confusion(0, 0, 0, 0).f1 == 0.0
    assert Confusion(0, 0, 0, 0).tpr == 0.0


@pytest.mark.parametrize(
    ("scores", "labels", "expected"),
    [
        ([0.1, 0.2, 0.2, 0.9], [0, 1, 0, 1], 0.875),  # one tie between classes counts one half
        ([1.0, 2.0], [0, 1], 1.0),
        ([2.0, 1.0], [0, 1], 0.0),
        ([5.0, 5.0, 5.0], [0, 1, 1], 0.5),  # all tied
        ([-INF, -INF, 3.0], [1, 0, 1], 0.75),  # unscored units tie with each other
    ],
)
def test_auroc_ties_count_one_half(scores: list[float], labels: list[int], expected: float) -> None:
    assert auroc(np.array(scores), np.array(labels, bool)) == pytest.approx(expected)


def test_auroc_without_both_classes_is_nan() -> None:
    assert math.isnan(auroc(np.array([1.0, 2.0]), np.array([True, True])))


def test_auroc_refuses_nan_scores() -> None:
    with pytest.raises(ValueError, match="NaN"):
        auroc(np.array([math.nan, 1.0]), np.array([True, False]))


def _pairwise_auroc(scores: list[float], labels: list[bool]) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


@given(
    st.lists(
        st.tuples(st.sampled_from([-INF, 0.0, 1.0, 1.5, 2.0, 7.25]), st.booleans()),
        min_size=2,
        max_size=40,
    )
)
def test_auroc_equals_the_pairwise_definition(pairs: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in pairs]
    labels = [y for _, y in pairs]
    if all(labels) or not any(labels):
        return
    assert auroc(np.array(scores), np.array(labels)) == pytest.approx(_pairwise_auroc(scores, labels))


@given(
    st.lists(
        st.tuples(st.sampled_from([-INF, 0.0, 1.0, 2.0, 3.5]), st.booleans()), min_size=1, max_size=30
    )
)
def test_sweep_matches_thresholding_each_point(pairs: list[tuple[float, bool]]) -> None:
    scores = np.array([s for s, _ in pairs])
    labels = np.array([y for _, y in pairs])

    points = sweep(scores, labels)

    for index, threshold in enumerate(points.thresholds.tolist()):
        assert points.at(index) == confusion(scores >= threshold, labels)


def test_sweep_lists_only_finite_thresholds() -> None:
    points = sweep(np.array([-INF, 1.0, 2.0, 2.0]), np.array([True, True, False, True]))

    assert points.thresholds.tolist() == [1.0, 2.0]
    assert points.tp.tolist() == [2, 1]
    assert points.fp.tolist() == [1, 1]
    assert points.f1.tolist() == pytest.approx([2 * 2 / (3 + 3), 2 * 1 / (3 + 2)])
