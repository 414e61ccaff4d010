"""Sanitization metrics exactly as the paper's appendix B.4.

From pooled confusion counts: ``TPR = TP / (TP + FN)``, ``FPR = FP / (FP + TN)``,
``F1 = 2TP / (2TP + FP + FN)``; precision is ``TP / (TP + FP)``. AUROC is the probability that a
randomly chosen target unit (a character, a line) scores above a randomly chosen non-target unit,
ties counting one half. A unit with no score (outside every candidate) scores ``-inf``: it ties
with every other unscored unit and ranks below every scored one.

Everything here is pure numpy over flat arrays of unit scores and labels; the caller decides what a
unit is (characters pooled over files, or lines).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Confusion:
    """Pooled confusion counts of one operating point."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def tpr(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def fpr(self) -> float:
        return self.fp / (self.fp + self.tn) if self.fp + self.tn else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def f1(self) -> float:
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "tpr": round(self.tpr, 4),
            "fpr": round(self.fpr, 6),
            "precision": round(self.precision, 4),
            "f1": round(self.f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
        }


def confusion(predicted: np.ndarray, actual: np.ndarray) -> Confusion:
    """Count a boolean prediction against boolean labels, unit by unit.

    Example:
        >>> confusion(np.array([True, True, False]), np.array([True, False, False]))
        Confusion(tp=1, fp=1, fn=0, tn=1)
    """
    predicted = np.asarray(predicted, dtype=np.bool_)
    actual = np.asarray(actual, dtype=np.bool_)
    if predicted.shape != actual.shape:
        raise ValueError(f"predicted {predicted.shape} and actual {actual.shape} differ in shape")
    tp = int(np.count_nonzero(predicted & actual))
    fp = int(np.count_nonzero(predicted & ~actual))
    fn = int(np.count_nonzero(~predicted & actual))
    return Confusion(tp=tp, fp=fp, fn=fn, tn=int(actual.shape[0]) - tp - fp - fn)


def auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve, ties counting one half (Mann-Whitney U / (P * N)).

    Args:
        scores: float per unit; ``-inf`` for units no rule scores. NaN is not allowed.
        labels: bool per unit, True for target units.

    Returns:
        The AUROC, or NaN when there are no positives or no negatives.

    Raises:
        ValueError: on shape mismatch or NaN scores.

    Example:
        >>> auroc(np.array([0.1, 0.2, 0.2, 0.9]), np.array([False, True, False, True]))
        0.875
    """
    values = np.asarray(scores, dtype=np.float64)
    targets = np.asarray(labels, dtype=np.bool_)
    if values.shape != targets.shape:
        raise ValueError(f"scores {values.shape} and labels {targets.shape} differ in shape")
    if np.isnan(values).any():
        raise ValueError("scores must not be NaN; give unscored units -inf")
    positives = int(targets.sum())
    negatives = int(targets.shape[0]) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    # For every distinct score: how many negatives lie strictly below it and how many tie with it.
    distinct, inverse = np.unique(values, return_inverse=True)
    negatives_at = np.bincount(inverse[~targets], minlength=distinct.shape[0])
    negatives_below = np.concatenate(([0], np.cumsum(negatives_at)[:-1]))
    positive_bins = inverse[targets]
    wins = negatives_below[positive_bins].sum() + 0.5 * negatives_at[positive_bins].sum()
    return float(wins / (positives * negatives))


@dataclass(frozen=True, slots=True)
class Sweep:
    """Confusion counts at every candidate threshold (predicted: ``score >= threshold``).

    ``thresholds`` ascend; entry ``i`` of each count array belongs to ``thresholds[i]``.
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    positives: int
    negatives: int

    def at(self, index: int) -> Confusion:
        tp, fp = int(self.tp[index]), int(self.fp[index])
        return Confusion(tp=tp, fp=fp, fn=self.positives - tp, tn=self.negatives - fp)

    @property
    def f1(self) -> np.ndarray:
        denominator = self.positives + self.tp + self.fp
        return np.where(denominator > 0, 2 * self.tp / np.maximum(denominator, 1), 0.0)

    @property
    def tpr(self) -> np.ndarray:
        return self.tp / self.positives if self.positives else np.zeros_like(self.tp, dtype=float)

    @property
    def fpr(self) -> np.ndarray:
        return self.fp / self.negatives if self.negatives else np.zeros_like(self.fp, dtype=float)


def sweep(scores: np.ndarray, labels: np.ndarray) -> Sweep:
    """Confusion counts at every distinct finite score used as the threshold.

    One sort gives every operating point, so choosing a threshold never rescans the data.

    Example:
        >>> s = sweep(np.array([1.0, 2.0, 2.0, -np.inf]), np.array([True, True, False, False]))
        >>> s.thresholds.tolist(), s.tp.tolist(), s.fp.tolist()
        ([1.0, 2.0], [2, 1], [1, 1])
    """
    values = np.asarray(scores, dtype=np.float64)
    targets = np.asarray(labels, dtype=np.bool_)
    if values.shape != targets.shape:
        raise ValueError(f"scores {values.shape} and labels {targets.shape} differ in shape")
    positives = int(targets.sum())
    negatives = int(targets.shape[0]) - positives
    finite = np.isfinite(values)
    distinct, inverse = np.unique(values[finite], return_inverse=True)
    tp_at = np.bincount(inverse, weights=targets[finite], minlength=distinct.shape[0])
    all_at = np.bincount(inverse, minlength=distinct.shape[0])
    # Units at or above threshold i: a suffix sum over the ascending distinct scores.
    tp = np.cumsum(tp_at[::-1])[::-1].astype(np.int64)
    predicted = np.cumsum(all_at[::-1])[::-1].astype(np.int64)
    return Sweep(
        thresholds=distinct, tp=tp, fp=predicted - tp, positives=positives, negatives=negatives
    )
