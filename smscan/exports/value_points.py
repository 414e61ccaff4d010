"""Calibrating value-aware masking: the threshold and code margin, with the whole rule in the loop.

As for the raw rule (:mod:`smscan.exports.operating_points`), each candidate is judged by the
final mask: values triggered and masked whole, their repeats in the group, code structure at
the threshold plus ``code_margin``. A token counts as masked when it holds a masked character.
For a fixed margin a lower threshold masks a superset, so recall and collateral both fall as the
threshold rises and the same bisection finds the highest threshold reaching a recall.

The margin is chosen from a small grid: the one that meets the criterion at the lowest
validation collateral (``recall:R``), the highest recall (``fpr:F``) or best F1. The entry
reports, besides the choice, the validation curve of the chosen margin (target coverage and
collateral over thresholds), each margin's operating point, and the cross-validated spread: the
whole choice (margin and threshold) is made again on k-1 folds of groups and counted on the
held-out fold, per fold and pooled, so a user sees how far the held-out recall strays from the
recall asked for.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from smscan.calibration.calibrate import deal_folds, too_few_folds_message
from smscan.calibration.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.calibration.thresholds import OPERATING_POINTS
from smscan.errors import SmscanError
from smscan.exports.operating_points import SurpriseCalibration, group_key
from smscan.exports.values import RepeatIndex, TextValues, ValueRule, token_mask_of, value_spans
from smscan.masking import MaskRule
from smscan.records import TokenScores

CODE_MARGINS = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0)
_CURVE_POINTS = 24


class ValueCalibration(SurpriseCalibration):
    """Labelled documents ready to evaluate value-aware masking at any threshold (one margin).

    Args:
        documents: labelled texts.
        scores: their reference token scores, aligned.
        rule: the value-aware rule (its raw rule's threshold is what varies).
        require_targets: refuse labels without a target token (off for a held-out fold).
    """

    def __init__(
        self, documents: Sequence[LabelledText], scores: Sequence[TokenScores], rule: ValueRule, *,
        require_targets: bool = True,
    ) -> None:
        super().__init__(documents, scores, rule.rule, require_targets=require_targets)
        self.value_rule = rule
        self.layouts = [
            TextValues.of(d.text, s, np.ones(len(s), dtype=np.bool_), value_window=rule.value_window)
            for d, s in zip(documents, scores)
        ]
        self.lengths = [len(d.text) for d in documents]
        self.repeats = [RepeatIndex([documents[i].text for i in members]) for members in self.groups]
        # Values change where a value's surprise equals the threshold, code structure where a
        # window score equals threshold + margin.
        values = np.concatenate([np.zeros(0)] + [layout.scores for layout in self.layouts])
        self.candidates = np.unique(np.concatenate([
            self.candidates - rule.code_margin, values[np.isfinite(values)],
        ]))

    def masks(self, threshold: float) -> Iterator[tuple[int, np.ndarray]]:
        rule = self.value_rule.at(threshold)
        for members, repeats in zip(self.groups, self.repeats):
            scores = [self.scores[i] for i in members]
            allowed = [np.ones(len(s), dtype=np.bool_) for s in scores]
            spans = value_spans(
                scores, allowed, [[(0, self.lengths[i])] for i in members], rule,
                values=[self.layouts[i] for i in members], repeats=repeats,
            )
            for i, here in zip(members, spans):
                yield i, token_mask_of(here, self.scores[i])

    def curve(self, points: int = _CURVE_POINTS) -> list[dict[str, float]]:
        """Validation target coverage and collateral at thresholds spread over the candidates."""
        grid = np.unique(np.quantile(self.candidates, np.linspace(0.0, 1.0, points))) if self.candidates.size else []
        return [
            {"threshold": round(float(t), 4), "tpr": round(c.tpr, 4), "fpr": round(c.fpr, 6)}
            for t in grid
            for c in [self.confusion(float(t))]
        ]


def choose(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule, criterion: str,
    margins: Sequence[float] = CODE_MARGINS, require_targets: bool = True,
) -> tuple[ValueCalibration, float, Confusion, list[dict[str, Any]]]:
    """The margin and threshold a criterion picks, and each margin's operating point.

    Raises:
        SmscanError: no margin meets the criterion (the message of the last one tried).
    """
    tried: list[tuple[ValueCalibration, float, Confusion]] = []
    failure = ""
    for margin in margins:
        calibration = ValueCalibration(documents, scores, ValueRule(rule, code_margin=margin), require_targets=require_targets)
        try:
            threshold = calibration.threshold_for(criterion)
        except SmscanError as error:
            failure = str(error)
            continue
        tried.append((calibration, threshold, calibration.confusion(threshold)))
    if not tried:
        raise SmscanError(failure or "no code margin to try")
    name = criterion.partition(":")[0]
    if name == "recall":
        best = min(tried, key=lambda t: (t[2].fpr, t[0].value_rule.code_margin))
    elif name == "fpr":
        best = max(tried, key=lambda t: (t[2].tpr, -t[0].value_rule.code_margin))
    else:
        best = max(tried, key=lambda t: (t[2].f1, -t[0].value_rule.code_margin))
    table = [
        {"code_margin": c.value_rule.code_margin, "threshold": c.saved_threshold(t), "tpr": round(k.tpr, 4), "fpr": round(k.fpr, 6)}
        for c, t, k in tried
    ]
    return best[0], best[1], best[2], table


def cross_validate_values(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule, criterion: str,
    folds: int = 5, seed: int = 0, margins: Sequence[float] = CODE_MARGINS,
) -> dict[str, Any]:
    """Held-out coverage and collateral of the whole choice, per fold, pooled, and their spread.

    Raises:
        SmscanError: fewer than 2 folds could be evaluated.
    """
    fold_of = deal_folds([group_key(d) for d in documents], folds, seed)
    totals = Confusion(0, 0, 0, 0)
    per_fold: list[dict[str, Any]] = []
    for fold in range(folds):
        held = [i for i, d in enumerate(documents) if fold_of[group_key(d)] == fold]
        kept = [i for i, d in enumerate(documents) if fold_of[group_key(d)] != fold]
        if not held or not kept:
            continue
        try:
            train, threshold, _, _ = choose([documents[i] for i in kept], [scores[i] for i in kept], rule=rule,
                                            criterion=criterion, margins=margins)
        except SmscanError:
            continue
        test = ValueCalibration([documents[i] for i in held], [scores[i] for i in held], train.value_rule,
                                require_targets=False)
        counts = test.confusion(threshold)
        totals = Confusion(totals.tp + counts.tp, totals.fp + counts.fp, totals.fn + counts.fn, totals.tn + counts.tn)
        per_fold.append({
            "code_margin": train.value_rule.code_margin, "threshold": train.saved_threshold(threshold),
            "tpr": round(counts.tpr, 4), "fpr": round(counts.fpr, 6),
        })
    if len(per_fold) < 2:
        raise SmscanError(f"{too_few_folds_message(len(per_fold), folds, len(fold_of))}; --folds 0 saves no estimate")
    tprs = [f["tpr"] for f in per_fold]
    fprs = [f["fpr"] for f in per_fold]
    pooled = {key: value for key, value in totals.as_dict().items() if key in ("tpr", "fpr", "precision", "f1")}
    spread = {
        "tpr_mean": round(statistics.fmean(tprs), 4), "tpr_std": round(statistics.stdev(tprs), 4),
        "tpr_min": min(tprs), "fpr_mean": round(statistics.fmean(fprs), 6), "fpr_std": round(statistics.stdev(fprs), 6),
        "fpr_max": max(fprs),
    }
    return {"folds": len(per_fold), "criterion": criterion, **pooled, "spread": spread, "per_fold": per_fold}


def calibrate_values(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule,
    criterion: str = "recall:0.95", folds: int = 5, margins: Sequence[float] = CODE_MARGINS,
) -> dict[str, Any]:
    """A thresholds-file entry for value-aware ``surprise`` masking (module docstring).

    Args:
        documents: labelled texts with target spans.
        scores: their reference token scores, aligned.
        rule: window, consensus and propagation (global ranking); the threshold is chosen.
        criterion: ``recall:R``, ``fpr:F``, an operating point name (``SM95``) or ``best-f1``.
        folds: folds of the cross-validated spread (0 or 1: none).
        margins: the code margins to choose from.

    Returns:
        The entry: ``rule`` (with ``masking: values`` and the chosen ``code_margin``), ``unit``,
        ``threshold``, ``criterion``, ``operating_points``, ``validation``, ``curve``,
        ``margins``, ``cross_validation`` (with ``spread`` and ``per_fold``), ``examples``,
        ``positive_units``.

    Raises:
        SmscanError: a bad criterion, no targets, no margin meeting the criterion, or too few folds.

    Example::

        entry = calibrate_values(documents, scores, rule=MaskRule(window=4), criterion="recall:0.95")
        write_entry(Path("thresholds.json"), "surprise", {"fingerprint": scorer.fingerprint, **entry})
    """
    criterion = f"recall:{OPERATING_POINTS[criterion]}" if criterion in OPERATING_POINTS else criterion
    calibration, chosen, counts, table = choose(documents, scores, rule=rule, criterion=criterion, margins=margins)
    points: dict[str, dict[str, Any]] = {}
    for name, recall in OPERATING_POINTS.items():
        try:
            threshold = calibration.threshold_for_recall(recall)
        except SmscanError:
            continue
        points[name] = {"threshold": calibration.saved_threshold(threshold), **calibration.confusion(threshold).as_dict()}
    raw = {key: value for key, value in replace(rule, threshold=chosen).as_dict().items() if key != "threshold"}
    entry: dict[str, Any] = {
        "rule": {**raw, "masking": "values", "code_margin": calibration.value_rule.code_margin},
        "unit": "token",
        "threshold": calibration.saved_threshold(chosen),
        "criterion": criterion,
        "operating_points": points,
        "validation": {"token": counts.as_dict()},
        "curve": calibration.curve(),
        "margins": table,
    }
    if folds >= 2:
        entry["cross_validation"] = cross_validate_values(documents, scores, rule=rule, criterion=criterion, folds=folds, margins=margins)
    entry["examples"] = len(documents)
    entry["positive_units"] = int(sum(int(t.sum()) for t in calibration.targets))
    return entry
