"""Choosing a raw Surprise Masking threshold and its operating points, with a held-out estimate.

Each candidate threshold is judged by the final token mask of the whole masking procedure
(:class:`~smscan.calibration.surprise_calibration.SurpriseCalibration`). The held-out estimate
(``cross_validation``) chooses the threshold on k-1 folds and counts the last, as for the
detectors; a group (a package, a user) stays in one fold, since propagation runs within it
(:mod:`smscan.calibration.label_groups`).

The result is a thresholds-file entry for kind ``surprise`` (``docs/thresholds-format.md``) that
``smscan export --thresholds FILE [--operating-point SM90]`` reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smscan.calibration.calibrate import too_few_folds_message
from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.rules.thresholds_file import operating_point_criterion
from smscan.errors import SmscanError
from smscan.calibration.label_groups import group_folds, group_key
from smscan.calibration.surprise_calibration import SurpriseCalibration
from smscan.engine.masking import MaskRule
from smscan.records import TokenScores


def cross_validate_surprise(
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    rule: MaskRule,
    criterion: str,
    folds: int = 5,
    seed: int = 0,
) -> dict[str, Any]:
    """Held-out target coverage and collateral: the threshold chosen on k-1 folds, counted on the last.

    Groups are dealt to folds whole, shuffled with ``seed``; an empty fold (fewer groups than
    folds), or one whose training part has no target or meets no threshold, is left out.

    Returns:
        ``folds`` (the folds actually evaluated, at least 2), ``criterion``, pooled
        ``tpr``/``fpr``/``precision``/``f1`` and the threshold chosen in each evaluated fold.

    Raises:
        SmscanError: fewer than 2 folds could be evaluated (a single group, say).
    """
    totals = Confusion(0, 0, 0, 0)
    chosen: list[float] = []
    for held, kept in group_folds(documents, folds, seed):
        try:
            train = SurpriseCalibration([documents[i] for i in kept], [scores[i] for i in kept], rule)
            threshold = train.threshold_for(criterion)
        except SmscanError:
            continue
        chosen.append(train.saved_threshold(threshold))
        test = SurpriseCalibration([documents[i] for i in held], [scores[i] for i in held], rule, require_targets=False)
        counts = test.confusion(threshold)
        totals = Confusion(totals.tp + counts.tp, totals.fp + counts.fp, totals.fn + counts.fn, totals.tn + counts.tn)
    if len(chosen) < 2:
        raise SmscanError(f"{too_few_folds_message(len(chosen), folds, len({group_key(d) for d in documents}))}; --folds 0 saves no estimate")
    summary = {key: value for key, value in totals.as_dict().items() if key in ("tpr", "fpr", "precision", "f1")}
    return {"folds": len(chosen), "criterion": criterion, **summary, "thresholds": chosen}


def calibrate_surprise(
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    rule: MaskRule,
    criterion: str = "recall:0.9",
    folds: int = 5,
) -> dict[str, Any]:
    """A thresholds-file entry for ``surprise`` chosen with consensus and propagation in the loop.

    Args:
        documents: labelled texts with target spans.
        scores: their reference token scores, aligned.
        rule: window, consensus and propagation to calibrate (global ranking).
        criterion: ``recall:R``, ``fpr:F``, an operating point name (``SM90``) or ``best-f1``.
        folds: folds of the held-out estimate (0 or 1: none).

    Returns:
        ``rule``, ``unit`` (``token``), ``threshold``, ``criterion``, ``operating_points`` (each
        with tpr = target coverage and fpr = collateral rate), ``validation``,
        ``cross_validation`` (``folds``: those evaluated, at least 2), ``examples``,
        ``positive_units``.

    Raises:
        SmscanError: a bad criterion, no targets, an unreachable recall or collateral rate, or
            ``folds`` >= 2 but fewer than 2 folds could be evaluated (all rows in one group, say).

    Example::

        scores = scorer.score_texts([d.text for d in documents])
        entry = calibrate_surprise(documents, scores, rule=MaskRule(window=4), criterion="SM90")
        write_entry(Path("thresholds.json"), "surprise", {"fingerprint": scorer.fingerprint, **entry})
    """
    calibration = SurpriseCalibration(documents, scores, rule)
    criterion = operating_point_criterion(criterion)
    chosen = calibration.threshold_for(criterion)  # a bad criterion fails before the long part
    points: dict[str, dict[str, Any]] = {}
    for name, threshold in calibration.operating_thresholds():
        saved = calibration.saved_threshold(threshold)
        points[name] = {"threshold": saved, **calibration.confusion(threshold).as_dict()}
    best = calibration.best_f1_threshold()
    points["best-f1"] = {"threshold": calibration.saved_threshold(best), **calibration.confusion(best).as_dict()}
    counts = calibration.confusion(chosen)
    cutoff_keys = {"threshold", "rank_max"}  # the cutoff is the entry's threshold
    rule_dict = {key: value for key, value in rule.as_dict().items() if key not in cutoff_keys}
    entry: dict[str, Any] = {
        "rule": rule_dict,
        "unit": "token",
        "threshold": calibration.saved_threshold(chosen),
        "criterion": criterion,
        "operating_points": points,
        "validation": {"token": counts.as_dict()},
    }
    if folds >= 2:
        entry["cross_validation"] = cross_validate_surprise(
            documents, scores, rule=rule, criterion=criterion, folds=folds
        )
    entry["examples"] = len(documents)
    entry["positive_units"] = int(sum(int(t.sum()) for t in calibration.targets))
    return entry
