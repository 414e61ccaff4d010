"""Choosing a threshold on labelled data, and measuring one, over unit scores computed once.

Criteria: ``best-f1`` (the threshold of highest F1; ties go to the higher threshold),
``recall:R`` (the highest threshold whose recall reaches R; the paper's SM50/70/90/95 are
``recall:0.5`` ... ``recall:0.95``), ``fpr:F`` (the lowest threshold whose false-positive rate
stays at or below F).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import Confusion, Sweep, auroc, confusion, sweep
from smscan.rules.thresholds_file import OPERATING_POINTS, operating_point_criterion
from smscan.calibration.units import UnitScores, score_units
from smscan.detectors import make_detector
from smscan.errors import SmscanError
from smscan.records import TokenScores

if TYPE_CHECKING:
    from smscan.model.scorer import Scorer

_CRITERION = re.compile(r"^(?:best-f1|recall:(0(?:\.\d+)?|1(?:\.0+)?)|fpr:(0(?:\.\d+)?|1(?:\.0+)?))$")


def parse_criterion(text: str) -> str:
    """Validate a criterion: ``best-f1``, ``recall:R``, ``fpr:F``, or an operating point name."""
    if text in OPERATING_POINTS:
        return operating_point_criterion(text)
    if not _CRITERION.match(text):
        raise SmscanError(
            f"unknown criterion {text!r}: use best-f1, recall:R, fpr:F (R, F in 0..1) or one of "
            f"{', '.join(OPERATING_POINTS)}"
        )
    return text


def choose_threshold(points: Sweep, criterion: str) -> float:
    """The threshold a criterion picks from a sweep.

    Every threshold between the score the criterion picks and the next lower score gives the
    same counts on the validation set; the threshold is put halfway between them, so a unit
    scoring a little lower than the weakest target seen is not lost on new data (and a unit a
    little above the strongest rejected non-target is not taken).

    Raises:
        SmscanError: the set has no positive unit, or no threshold satisfies the criterion.
    """
    if points.positives == 0:
        raise SmscanError("the labels hold no positive unit: nothing to calibrate on")
    if points.thresholds.size == 0:
        raise SmscanError("no candidate was scored on the labelled set: nothing to choose from")
    criterion = parse_criterion(criterion)
    if criterion == "best-f1":
        f1 = points.f1
        best = np.flatnonzero(f1 == f1.max())
        return _halfway_below(points, int(best[-1]))
    name, value = criterion.split(":")
    target = float(value)
    if name == "recall":
        reaching = np.flatnonzero(points.tpr >= target - 1e-12)
        if reaching.size == 0:
            raise SmscanError(
                f"no threshold reaches recall {target}: the most is {points.tpr.max():.3f} "
                "(units no candidate covers can never be reported)"
            )
        return _halfway_below(points, int(reaching[-1]))
    within = np.flatnonzero(points.fpr <= target + 1e-12)
    if within.size == 0:
        raise SmscanError(f"no threshold keeps the false-positive rate at or below {target}")
    return _halfway_below(points, int(within[0]))


def _halfway_below(points: Sweep, index: int) -> float:
    if index == 0:
        return float(points.thresholds[0])
    return float((points.thresholds[index - 1] + points.thresholds[index]) / 2)


def evaluate(units: UnitScores, threshold: float) -> dict[str, Any]:
    """Character and line TPR/FPR/precision/F1 at a threshold, AUROC, hard-negative FP rate."""
    out: dict[str, Any] = {}
    for name in ("char", "line"):
        scores, labels = units.unit(name)
        counts = confusion(scores >= threshold, labels)
        out[name] = {**counts.as_dict(), "auroc": _rounded(auroc(scores, labels))}
    if units.negatives:
        flagged = sum(1 for _, best in units.negatives if best >= threshold)
        out["hard_negative_fp_rate"] = round(flagged / len(units.negatives), 4)
        out["hard_negatives"] = len(units.negatives)
    return out


def _rounded(value: float) -> float | None:
    return None if value != value else round(value, 4)


def operating_points(units: UnitScores, unit: str) -> dict[str, dict[str, float]]:
    """Thresholds of best F1 and of SM50/70/90/95, with the validation metrics each reaches."""
    scores, labels = units.unit(unit)
    points = sweep(scores, labels)
    out: dict[str, dict[str, float]] = {}
    for name, criterion in [("best-f1", "best-f1")] + [
        (name, f"recall:{recall}") for name, recall in OPERATING_POINTS.items()
    ]:
        try:
            threshold = choose_threshold(points, criterion)
        except SmscanError:
            continue
        counts = confusion(scores >= threshold, labels)
        out[name] = {"threshold": round(threshold, 6), **_summary(counts)}
    return out


def _summary(counts: Confusion) -> dict[str, float]:
    return {
        "tpr": round(counts.tpr, 4),
        "fpr": round(counts.fpr, 6),
        "precision": round(counts.precision, 4),
        "f1": round(counts.f1, 4),
    }


def cross_validate(
    units: UnitScores, unit: str, criterion: str, *, folds: int = 5, seed: int = 0,
    groups: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Choose the threshold on k-1 folds, count on the held-out fold, pool the counts.

    Documents are assigned to folds by ``groups`` when given (all documents of a group in one
    fold, so a repository never sits on both sides), else one by one, shuffled with ``seed``.
    A fold is evaluated when it and the rest both hold documents and the rest meets the
    criterion; with fewer groups than ``folds`` some folds stay empty.

    Returns:
        ``folds`` (the folds actually evaluated, at least 2), ``criterion``, pooled held-out
        TPR/FPR/precision/F1 and the threshold chosen in each evaluated fold.

    Raises:
        SmscanError: fewer than 2 folds could be evaluated (a single group, say), so there is
            no held-out estimate to give.
    """
    scores, labels = units.unit(unit)
    bounds = units.char_bounds if unit == "char" else units.line_bounds
    keys = list(groups) if groups is not None else [str(i) for i in range(len(bounds))]
    fold_of_key = deal_folds(keys, folds, seed)
    fold_of_unit = np.empty(scores.shape[0], dtype=np.int64)
    for key, (lo, hi) in zip(keys, bounds):
        fold_of_unit[lo:hi] = fold_of_key[key]
    tp = fp = fn = tn = 0
    chosen = []
    for fold in range(folds):
        held = fold_of_unit == fold
        if not held.any() or held.all():
            continue
        try:
            threshold = choose_threshold(sweep(scores[~held], labels[~held]), criterion)
        except SmscanError:
            continue
        chosen.append(round(threshold, 6))
        counts = confusion(scores[held] >= threshold, labels[held])
        tp, fp, fn, tn = tp + counts.tp, fp + counts.fp, fn + counts.fn, tn + counts.tn
    if len(chosen) < 2:
        raise SmscanError(too_few_folds_message(len(chosen), folds, len(fold_of_key)))
    pooled = Confusion(tp=tp, fp=fp, fn=fn, tn=tn)
    return {"folds": len(chosen), "criterion": criterion, **_summary(pooled), "thresholds": chosen}


def deal_folds(keys: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """Each distinct group key's fold: the sorted keys shuffled with ``seed``, then dealt in turn
    (``surprise`` calibration deals its groups the same way)."""
    distinct = sorted(set(keys))
    order = np.random.default_rng(seed).permutation(len(distinct))
    return {distinct[j]: rank % folds for rank, j in enumerate(order)}


def too_few_folds_message(evaluated: int, folds: int, groups: int) -> str:
    """Why a cross-validated estimate cannot be given, and the fix (``surprise`` shares it)."""
    if groups < 2:
        why = f"the labelled rows form {groups} group{'' if groups == 1 else 's'}"
    else:
        why = (
            f"only {evaluated} of {min(folds, groups)} folds could be evaluated (in the others, "
            "the remaining folds hold no target or meet no threshold of the criterion)"
        )
    return (
        f"no cross-validated estimate: {why}, and at least 2 are needed; rows are grouped by "
        "their 'group', else the first component of their 'path', else each row on its own"
    )


ProgressCallback = Callable[[int, int], None]


def score_documents(
    scorer: Scorer,
    texts: Sequence[str],
    *,
    on_progress: ProgressCallback | None = None,
    batch: int = 8,
) -> list[TokenScores]:
    """Token scores of every text, asked of ``scorer`` a few texts at a time (for progress)."""
    out: list[TokenScores] = []
    for start in range(0, len(texts), batch):
        out.extend(scorer.score_texts(list(texts[start : start + batch])))
        if on_progress is not None:
            on_progress(len(out), len(texts))
    return out


def calibrate_kind(
    kind: str,
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    criterion: str,
    rule: dict[str, Any] | None = None,
    folds: int = 5,
) -> dict[str, Any]:
    """Choose ``kind``'s threshold on labelled documents and measure what it achieves.

    Args:
        kind: a detector kind (``credential``, ``dead-code``).
        documents: the labelled documents.
        scores: their token scores, aligned with ``documents``.
        criterion: ``best-f1``, ``recall:R``, ``fpr:F`` or an operating point name.
        rule: the scoring rule's parameters (the detector's defaults when None).
        folds: folds of the cross-validated estimate (documents of a group stay together); the
            entry records how many were evaluated.

    Returns:
        The thresholds-file entry without the model and provenance fields: ``rule``,
        ``threshold``, ``criterion``, ``operating_points``, ``validation``, ``cross_validation``,
        ``examples``.

    Raises:
        SmscanError: nothing to calibrate on, no threshold meets the criterion, or fewer than 2
            folds could be evaluated (all rows in one group, say).
    """
    detector = make_detector(kind, rule)
    units = score_units(detector, documents, scores)
    unit_scores, unit_labels = units.unit(detector.unit)
    criterion = parse_criterion(criterion)
    threshold = choose_threshold(sweep(unit_scores, unit_labels), criterion)
    groups = [document.group or document.name for document in documents]
    return {
        "rule": detector.rule(),
        "unit": detector.unit,
        "threshold": round(threshold, 6),
        "criterion": criterion,
        "operating_points": operating_points(units, detector.unit),
        "validation": evaluate(units, threshold),
        "cross_validation": cross_validate(units, detector.unit, criterion, folds=folds, groups=groups),
        "examples": len(documents),
        "positive_units": int(unit_labels.sum()),
    }


def evaluate_kind(
    kind: str,
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    threshold: float,
    rule: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """TPR/FPR/precision/F1 at character and line level and AUROC (paper B.4) at a threshold.

    Credential labels also give per-category recall (a target counts as found when any of its
    characters is reported) and the hard-negative false-positive rate.
    """
    detector = make_detector(kind, rule)
    units = score_units(detector, documents, scores)
    out = {"kind": kind, "threshold": threshold, "rule": detector.rule(), "examples": len(documents)}
    out.update(evaluate(units, threshold))
    categories: dict[str, list[int]] = {}
    for document, (lo, _) in zip(documents, units.char_bounds):
        for (start, end), category in zip(document.spans, document.categories or ()):
            found = bool((units.char_scores[lo + start : lo + end] >= threshold).any())
            tally = categories.setdefault(category or "all", [0, 0])
            tally[0] += found
            tally[1] += 1
    if categories:
        out["per_category_recall"] = {
            name: round(found / total, 4) for name, (found, total) in sorted(categories.items())
        }
    return out
