"""Measuring raw Surprise Masking on labelled spans under its window selection (``smscan eval``).

The same token units as calibration (:mod:`smscan.calibration.operating_points`): a token is a
target when it overlaps a labelled span. At the rule's cutoff the whole masking procedure runs
(selection, consensus, propagation within each group; for an entry calibrated with value-aware
masking, values masked whole with their repeats) and the tokens it masks are counted. The
AUROC ranks tokens by the statistic the rule selects on, before consensus and propagation: a
token's most surprising covering window, by mean NLL (global) or by 100 minus its rank among
its neighbours (local), so the two selection rules are compared on the same tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import auroc
from smscan.engine.rules import local_ranks
from smscan.engine.windows import fixed_windows
from smscan.calibration.surprise_calibration import SurpriseCalibration
from smscan.calibration.value_points import ValueCalibration
from smscan.judge.values import ValueRule
from smscan.kinds import SURPRISE
from smscan.engine.masking import MaskRule
from smscan.records import TokenScores


def token_statistic(scores: TokenScores, rule: MaskRule) -> np.ndarray:
    """Per token, the highest selection statistic of the windows holding it (``-inf``: none).

    Example:
        >>> s = TokenScores(np.arange(4), np.arange(4), np.arange(4) + 1, np.array([np.nan, 1., 5., 1.]))
        >>> token_statistic(s, MaskRule(window=2)).tolist()
        [-inf, 3.0, 3.0, 3.0]
    """
    windows = fixed_windows(scores.nll, size=rule.window)
    values = 100.0 - local_ranks(windows, neighbours=rule.neighbours) if rule.ranking == "local" else windows.scores
    out = np.full(len(scores), -np.inf)
    for start, end, value in zip(windows.starts, windows.ends, values):
        if np.isfinite(value):
            out[start:end] = np.maximum(out[start:end], value)
    return out


def evaluate_surprise(
    documents: Sequence[LabelledText], scores: Sequence[TokenScores], *, rule: MaskRule, value_threshold: float | None = None,
) -> dict[str, Any]:
    """Target coverage, collateral and AUROC of ``rule`` on labelled texts, in reference tokens.

    Args:
        documents: labelled texts with target spans (groups as calibration reads them).
        scores: their reference token scores, aligned.
        rule: the rule measured, at its own cutoff (threshold or rank_max).
        value_threshold: measure value-aware masking (an export's ``--masking values``) with
            ``rule`` as its code rule; None: the raw rule alone.

    Returns:
        ``kind``, ``rule`` (as a thresholds file saves it), ``ranking``, ``threshold`` (the cutoff),
        ``unit`` (``token``), ``examples`` and ``token``: tpr (coverage), fpr (collateral),
        precision, f1, counts and ``auroc``; ``auroc_by_ranking``: the AUROC of the global and
        the local statistic on the same tokens (same window and neighbours).

    Raises:
        SmscanError: the labels hold no target token.
    """
    calibration = SurpriseCalibration(documents, scores, rule)
    if value_threshold is None:
        counts = calibration.confusion(rule.cutoff)
    else:
        values = ValueCalibration(documents, scores, ValueRule(rule, value_threshold=value_threshold))
        counts = values.confusion(value_threshold)
    statistic = np.concatenate([np.zeros(0)] + [token_statistic(s, rule) for s in scores])
    targets = np.concatenate([np.zeros(0, dtype=bool)] + calibration.targets)
    area = auroc(statistic, targets)
    other = replace(rule, ranking="global" if rule.ranking == "local" else "local")
    other_statistic = np.concatenate([np.zeros(0)] + [token_statistic(s, other) for s in scores])
    by_ranking = {rule.ranking: _rounded(area), other.ranking: _rounded(auroc(other_statistic, targets))}
    return {
        "kind": SURPRISE,
        "rule": rule.as_dict() | ({} if value_threshold is None else {"masking": "values", "value_threshold": value_threshold}),
        "ranking": rule.ranking,
        "threshold": rule.cutoff,
        "unit": "token",
        "examples": len(documents),
        "token": {**counts.as_dict(), "auroc": _rounded(area)},
        "auroc_by_ranking": dict(sorted(by_ranking.items())),
    }


def _rounded(value: float) -> float | None:
    return None if np.isnan(value) else round(value, 4)
