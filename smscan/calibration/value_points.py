"""Calibrating value-aware masking: value threshold and code threshold, the whole rule in the loop.

As for the raw rule (:mod:`smscan.calibration.surprise_calibration`), each candidate is judged by the
final mask: values triggered and masked whole, their repeats in the group, code structure by the
raw rule at the code threshold. A token counts as masked when it holds a masked character. For a
fixed code threshold a lower value threshold masks a superset, so recall and collateral both
fall as it rises and the same bisection finds the highest value threshold reaching a recall.

Landing on the recall asked for: with ``folds`` >= 2 the whole choice is cross-validated first,
and for a ``recall:R`` criterion each fold records how far the value threshold chosen without it
stood above the one it needed to reach R (its overshoot); the value threshold chosen on all the
data is then lowered by the largest overshoot (``landing.margin`` in the entry), so that a new
repository as unlike the others as the worst fold still gets R. On code the recall/collateral
curve of values is flat near the top (a few more values cost little), while missing a
repository's identities costs whole values.

The code threshold (nats, the raw rule's ``threshold``) is chosen from a small grid: the one
that meets the criterion at the lowest validation collateral (``recall:R``), the highest recall
(``fpr:F``) or best F1. The entry reports, besides the choice, the validation curve at the
chosen code threshold (target coverage and collateral over value thresholds), each code
threshold's operating point, and the cross-validated spread: the whole choice is made again on
k-1 folds of groups and counted on the held-out fold, per fold and pooled, so a user sees how far
a new repository's recall may stray from the recall asked for.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from smscan.calibration.calibrate import too_few_folds_message
from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.rules.thresholds_file import operating_point_criterion
from smscan.errors import SmscanError
from smscan.calibration.label_groups import group_folds, group_key
from smscan.calibration.surprise_calibration import SurpriseCalibration
from smscan.judge.values import (
    RepeatIndex,
    TextValues,
    ValueRule,
    token_mask_of,
    value_spans,
)
from smscan.engine.masking import MaskRule, mask_group
from smscan.records import TokenScores

CODE_THRESHOLDS = (6.0, 7.0, 8.0, 10.0, 12.0)
# Under local ranking the code rule's cutoff is rank_max (0-100): lower selects fewer windows.
LOCAL_CODE_CUTOFFS = (1.0, 2.0, 5.0, 10.0)
_CURVE_POINTS = 24


class ValueCalibration(SurpriseCalibration):
    """Labelled documents ready to evaluate value-aware masking at any value threshold.

    Args:
        documents: labelled texts.
        scores: their reference token scores, aligned.
        rule: the value-aware rule (its ``value_threshold`` is what varies; the code rule is fixed).
        require_targets: refuse labels without a target token (off for a held-out fold).
    """

    def __init__(
        self, documents: Sequence[LabelledText], scores: Sequence[TokenScores], rule: ValueRule, *,
        require_targets: bool = True,
    ) -> None:
        super().__init__(documents, scores, rule.rule, require_targets=require_targets)
        self.value_rule = rule
        everything = [np.ones(len(s), dtype=np.bool_) for s in self.scores]
        self.layouts = [TextValues.of(d.text, s, ok) for d, s, ok in zip(documents, self.scores, everything)]
        self.lengths = [len(d.text) for d in documents]
        self.repeats = [RepeatIndex([documents[i].text for i in members]) for members in self.groups]
        # The code rule does not vary: its masks are computed once.
        self.code_masks = [
            mask_group([self.scores[i] for i in members], [everything[i] for i in members], rule.rule)
            for members in self.groups
        ]
        values = np.concatenate([np.zeros(0)] + [layout.scores for layout in self.layouts])
        self.candidates = np.unique(values[np.isfinite(values)])  # the value thresholds that matter

    def masks(self, threshold: float) -> Iterator[tuple[int, np.ndarray]]:
        rule = self.value_rule.at(threshold)
        for members, repeats, code in zip(self.groups, self.repeats, self.code_masks):
            spans = value_spans(
                [self.scores[i] for i in members], [np.ones(len(self.scores[i]), dtype=np.bool_) for i in members],
                [[(0, self.lengths[i])] for i in members], rule,
                values=[self.layouts[i] for i in members], repeats=repeats, code_masks=code,
            )
            for i, here in zip(members, spans):
                yield i, token_mask_of(here, self.scores[i])

    def curve(self, points: int = _CURVE_POINTS) -> list[dict[str, float]]:
        """Validation target coverage and collateral at value thresholds spread over the candidates."""
        if not self.candidates.size:
            return []
        grid = np.unique(np.quantile(self.candidates, np.linspace(0.0, 1.0, points)))
        return [
            {"value_threshold": round(float(t), 4), "tpr": round(c.tpr, 4), "fpr": round(c.fpr, 6)}
            for t in grid
            for c in [self.confusion(float(t))]
        ]


def choose(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule, criterion: str,
    code_thresholds: Sequence[float] = CODE_THRESHOLDS, require_targets: bool = True,
) -> tuple[ValueCalibration, float, Confusion, list[dict[str, Any]]]:
    """The code threshold and value threshold a criterion picks, and each code threshold's point.

    Raises:
        SmscanError: no code threshold meets the criterion (the message of the last one tried).
    """
    tried: list[tuple[ValueCalibration, float, Confusion]] = []
    failure = ""
    for code in code_thresholds:
        calibration = ValueCalibration(documents, scores, ValueRule(rule.at_cutoff(code)), require_targets=require_targets)
        try:
            threshold = calibration.threshold_for(criterion)
        except SmscanError as error:
            failure = str(error)
            continue
        tried.append((calibration, threshold, calibration.confusion(threshold)))
    if not tried:
        raise SmscanError(failure or "no code threshold to try")
    name = criterion.partition(":")[0]
    # Ties go to the looser code cutoff: the paper's rule masks more of the code's surprises.
    if name == "recall":
        best = min(tried, key=lambda t: (t[2].fpr, _strictness(t[0].rule)))
    elif name == "fpr":
        best = max(tried, key=lambda t: (t[2].tpr, -_strictness(t[0].rule)))
    else:
        best = max(tried, key=lambda t: (t[2].f1, -_strictness(t[0].rule)))
    table = [
        {"threshold": c.rule.cutoff, "value_threshold": c.saved_threshold(t), "tpr": round(k.tpr, 4), "fpr": round(k.fpr, 6)}
        for c, t, k in tried
    ]
    return best[0], best[1], best[2], table


def _strictness(rule: MaskRule) -> float:
    """Higher for a code rule that selects fewer windows: a higher threshold, a lower rank_max."""
    return rule.cutoff if rule.ranking == "global" else -rule.cutoff


def code_cutoffs(rule: MaskRule) -> tuple[float, ...]:
    """The code cutoffs to choose from: thresholds in nats (global) or rank_max values (local)."""
    return CODE_THRESHOLDS if rule.ranking == "global" else LOCAL_CODE_CUTOFFS


def cross_validate_values(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule, criterion: str,
    folds: int = 5, seed: int = 0, code_thresholds: Sequence[float] = CODE_THRESHOLDS,
) -> dict[str, Any]:
    """Held-out coverage and collateral of the whole choice, per fold, pooled, and their spread.

    Raises:
        SmscanError: fewer than 2 folds could be evaluated.
    """
    totals = Confusion(0, 0, 0, 0)
    per_fold: list[dict[str, Any]] = []
    for held, kept in group_folds(documents, folds, seed):
        try:
            train, threshold, _, _ = choose([documents[i] for i in kept], [scores[i] for i in kept], rule=rule,
                                            criterion=criterion, code_thresholds=code_thresholds)
        except SmscanError:
            continue
        test = ValueCalibration([documents[i] for i in held], [scores[i] for i in held], train.value_rule,
                                require_targets=False)
        counts = test.confusion(threshold)
        totals = Confusion(totals.tp + counts.tp, totals.fp + counts.fp, totals.fn + counts.fn, totals.tn + counts.tn)
        per_fold.append({
            "threshold": train.rule.cutoff, "value_threshold": train.saved_threshold(threshold),
            "tpr": round(counts.tpr, 4), "fpr": round(counts.fpr, 6),
            **_overshoot(test, criterion, threshold),
        })
    if len(per_fold) < 2:
        raise SmscanError(f"{too_few_folds_message(len(per_fold), folds, len({group_key(d) for d in documents}))}; --folds 0 saves no estimate")
    tprs = [f["tpr"] for f in per_fold]
    fprs = [f["fpr"] for f in per_fold]
    pooled = {key: value for key, value in totals.as_dict().items() if key in ("tpr", "fpr", "precision", "f1")}
    spread = {
        "tpr_mean": round(statistics.fmean(tprs), 4), "tpr_std": round(statistics.stdev(tprs), 4),
        "tpr_min": min(tprs), "fpr_mean": round(statistics.fmean(fprs), 6), "fpr_std": round(statistics.stdev(fprs), 6),
        "fpr_max": max(fprs),
    }
    return {
        "folds": len(per_fold), "criterion": criterion, **pooled, "spread": spread, "per_fold": per_fold,
        "thresholds": [f["value_threshold"] for f in per_fold],
        "overshoot": max((f.get("overshoot", 0.0) for f in per_fold), default=0.0),
    }


def _overshoot(test: ValueCalibration, criterion: str, chosen: float) -> dict[str, float]:
    """How far the value threshold chosen without a fold stood above the one that fold needed to
    meet a ``recall:R`` criterion (0 when it met it; nothing for other criteria or a fold with
    no target)."""
    name, _, value = criterion.partition(":")
    if name != "recall" or not any(t.any() for t in test.targets):
        return {}
    try:
        needed = test.threshold_for_recall(float(value))
    except SmscanError:
        return {}
    return {"needed_value_threshold": test.saved_threshold(needed), "overshoot": round(max(0.0, chosen - needed), 6)}


def _landing(criterion: str, cross_validation: dict[str, Any]) -> dict[str, Any]:
    """How far below the validation choice a ``recall:R`` value threshold is set (``margin``).

    A threshold that reaches R on validation sits at a cliff of the validation curve, and a new
    repository whose identities are less random than any seen falls off it whole: token recall
    is carried by long random values, so one fold can miss every occurrence of a short username
    while the pooled recall looks fine. Cross-validation measures that directly: for each fold,
    how far the threshold chosen without it stood above the one it needed to reach R. The value
    threshold is lowered by the largest such overshoot (value thresholds cost little collateral
    near the top of the curve). Other criteria are kept as chosen (empty dict).
    """
    name, _, value = criterion.partition(":")
    if name != "recall":
        return {}
    return {
        "asked": float(value), "cross_validated_tpr": cross_validation["tpr"],
        "worst_fold_tpr": cross_validation["spread"]["tpr_min"], "margin": float(cross_validation.get("overshoot", 0.0)),
    }


def calibrate_values(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule,
    criterion: str = "recall:0.95", folds: int = 5, code_thresholds: Sequence[float] | None = None,
) -> dict[str, Any]:
    """A thresholds-file entry for value-aware ``surprise`` masking (module docstring).

    Args:
        documents: labelled texts with target spans.
        scores: their reference token scores, aligned.
        rule: window, consensus and propagation of the code rule (global ranking).
        criterion: ``recall:R``, ``fpr:F``, an operating point name (``SM95``) or ``best-f1``.
        folds: folds of the cross-validated spread (0 or 1: none).
        code_thresholds: the code cutoffs to choose from (None: :func:`code_cutoffs` of the rule's
            ranking: nats for global, rank_max for local).

    Returns:
        The entry: ``rule`` (with ``masking: values`` and the chosen ``value_threshold``),
        ``unit``, ``threshold`` (the code rule's, nats), ``criterion``, ``operating_points``
        (each with its ``value_threshold``), ``validation``, ``curve``, ``code_thresholds``,
        ``cross_validation`` (with ``spread`` and ``per_fold``), ``examples``, ``positive_units``.

    Raises:
        SmscanError: a bad criterion, no targets, no code threshold meeting the criterion, or too
            few folds.

    Example::

        entry = calibrate_values(documents, scores, rule=MaskRule(window=4), criterion="recall:0.95")
        write_entry(Path("thresholds.json"), "surprise", {"fingerprint": scorer.fingerprint, **entry})
    """
    criterion = operating_point_criterion(criterion)
    code_thresholds = code_cutoffs(rule) if code_thresholds is None else code_thresholds
    # Bad labels and criteria fail here, before the cross-validation's longer part.
    calibration, chosen, counts, table = choose(documents, scores, rule=rule, criterion=criterion, code_thresholds=code_thresholds)
    cross_validation = None
    landing: dict[str, Any] = {}
    if folds >= 2:
        cross_validation = cross_validate_values(
            documents, scores, rule=rule, criterion=criterion, folds=folds, code_thresholds=code_thresholds
        )
        landing = _landing(criterion, cross_validation)
        if landing.get("margin"):
            chosen -= landing["margin"]
            counts = calibration.confusion(chosen)
            landing["validation_tpr"] = round(counts.tpr, 4)
    code = calibration.rule.cutoff
    points: dict[str, dict[str, Any]] = {}
    for name, value in calibration.operating_thresholds():
        points[name] = {"threshold": code, "value_threshold": calibration.saved_threshold(value),
                        **calibration.confusion(value).as_dict()}
    raw = {key: value for key, value in calibration.rule.as_dict().items() if key != "threshold"}
    entry: dict[str, Any] = {
        "rule": {**raw, "masking": "values", "value_threshold": calibration.saved_threshold(chosen)},
        "unit": "token",
        "threshold": code,
        "criterion": criterion,
        "operating_points": points,
        "validation": {"token": counts.as_dict()},
        "curve": calibration.curve(),
        "code_thresholds": table,
    }
    if cross_validation is not None:
        entry["cross_validation"] = cross_validation
        entry["landing"] = landing
    entry["examples"] = len(documents)
    entry["positive_units"] = int(sum(int(t.sum()) for t in calibration.targets))
    return entry
