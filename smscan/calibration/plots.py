"""Plots of a kind's unit scores: ROC curve and score distributions (paper Figure 6).

Optional: matplotlib (the ``plot`` extra) is imported only when a plot is drawn, with the
non-interactive Agg backend, so nothing here needs a display.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import sweep
from smscan.errors import SmscanError
from smscan.records import TokenScores


def roc_points(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct threshold, from (0, 0) to (1, 1).

    Example:
        >>> fpr, tpr = roc_points(np.array([0.1, 0.9]), np.array([False, True]))
        >>> fpr.tolist(), tpr.tolist()
        ([0.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0])
    """
    points = sweep(np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=np.bool_))
    fpr = points.fp / max(points.negatives, 1)
    tpr = points.tp / max(points.positives, 1)
    order = np.lexsort((tpr, fpr))
    return (
        np.concatenate(([0.0], fpr[order], [1.0])),
        np.concatenate(([0.0], tpr[order], [1.0])),
    )


def plot_scores(
    path: Path,
    scores: np.ndarray,
    labels: np.ndarray,
    *,
    threshold: float,
    title: str,
    unit: str,
    operating_point: str | None = None,
) -> None:
    """Draw the ROC curve and the score distributions of target and other units into ``path``.

    Args:
        path: the image file (its suffix picks the format: .png, .svg, .pdf).
        scores: one score per unit (nats); NaN units (never scored) are left out.
        labels: True for target units (credential characters, dead lines).
        threshold: the threshold to mark: a point on the ROC curve and a line on the histograms.
        title: the plot's title (kind, data, model).
        unit: what a unit is (``char`` or ``line``), for the axis labels.
        operating_point: a name for the marked threshold (``best-f1``, ``SM90``...).

    Raises:
        SmscanError: matplotlib is not installed, or the file cannot be written.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise SmscanError("plots need matplotlib: pip install 'smscan[plot]'") from error

    every = np.asarray(scores, dtype=np.float64)
    every_truth = np.asarray(labels, dtype=np.bool_)
    # Rates count every unit (one never scored is never reported); histograms show scored ones.
    fpr, tpr = roc_points(every, every_truth)
    at_fpr = float((every[~every_truth] >= threshold).mean()) if (~every_truth).any() else 0.0
    at_tpr = float((every[every_truth] >= threshold).mean()) if every_truth.any() else 0.0
    scored = np.isfinite(every)
    values, truth = every[scored], every_truth[scored]
    name = operating_point or "threshold"

    figure, (roc, histogram) = plt.subplots(1, 2, figsize=(11, 4.5))
    try:
        figure.suptitle(title)
        roc.plot(fpr, tpr, color="tab:blue", label="ROC")
        roc.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
        roc.scatter([at_fpr], [at_tpr], color="tab:red", zorder=3,
                    label=f"{name} {threshold:.2f}: TPR {at_tpr:.2f}, FPR {at_fpr:.4f}")
        roc.set_xscale("symlog", linthresh=1e-3)
        roc.set_xlim(0, 1)
        roc.set_ylim(0, 1.01)
        roc.set_xlabel(f"false-positive rate ({unit}s)")
        roc.set_ylabel(f"true-positive rate ({unit}s)")
        roc.legend(loc="lower right")
        bins = np.histogram_bin_edges(values, bins=60) if values.size else np.linspace(0, 1, 11)
        for part, colour, label in ((values[~truth], "tab:blue", "other"), (values[truth], "tab:orange", "target")):
            if part.size:  # an empty class has no density
                histogram.hist(part, bins=bins, density=True, alpha=0.6, color=colour, label=f"{label} ({part.size})")
        histogram.axvline(threshold, color="tab:red", linestyle="--", label=f"{name} {threshold:.2f}")
        histogram.set_yscale("log")
        histogram.set_xlabel("score (nats)")
        histogram.set_ylabel(f"density of {unit}s")
        histogram.legend()
        figure.tight_layout()
        figure.savefig(path, dpi=120)
    except OSError as error:
        raise SmscanError(f"{path}: cannot write the plot: {error.strerror}") from error
    finally:
        plt.close(figure)


def plot_kind(
    path: Path,
    kind: str,
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    threshold: float,
    rule: dict[str, Any] | None = None,
    title: str,
    operating_point: str | None = None,
) -> None:
    """Score ``kind``'s units on labelled documents and :func:`plot_scores` them.

    Args:
        path: the image file.
        kind: ``credential`` or ``dead-code``.
        documents: the labelled documents.
        scores: their token scores.
        threshold: the threshold to mark.
        rule: the detector's saved rule (its defaults when None).
        title: the plot's title.
        operating_point: a name for the marked threshold.
    """
    from smscan.calibration.units import score_units
    from smscan.detectors import make_detector

    detector = make_detector(kind, rule)
    units = score_units(detector, documents, scores)
    unit_scores, unit_labels = units.unit(detector.unit)
    plot_scores(
        path, unit_scores, unit_labels, threshold=threshold, title=title, unit=detector.unit,
        operating_point=operating_point,
    )
