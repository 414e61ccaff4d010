"""Calibrating the local rule: rank_max chosen with the whole masking procedure in the loop."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.sources.labels import LabelledText
from smscan.calibration.operating_points import calibrate_surprise
from smscan.calibration.surprise_calibration import SurpriseCalibration, selection_cutoffs
from smscan.calibration.value_points import calibrate_values
from smscan.engine.masking import MaskRule, mask_group
from smscan.records import TokenScores


def chars(text: str, nll: np.ndarray) -> TokenScores:
    n = len(text)
    return TokenScores(np.array([ord(c) for c in text]), np.arange(n), np.arange(n) + 1, nll)


def planted(seed: int, count: int = 6) -> tuple[list[LabelledText], list[TokenScores]]:
    """Texts of 40 characters with a surprising 4-character value at a random place."""
    rng = np.random.default_rng(seed)
    documents, scores = [], []
    for i in range(count):
        text = "".join(rng.choice(list("abcdefgh"), 40))
        start = int(rng.integers(5, 30))
        nll = rng.uniform(0.5, 3.0, 40)
        nll[start : start + 4] += rng.uniform(2.0, 6.0)
        nll[0] = np.nan
        documents.append(LabelledText(f"g{i % 3}/d{i}", text, spans=((start, start + 4),), group=f"g{i % 3}"))
        scores.append(chars(text, nll))
    return documents, scores


LOCAL = MaskRule(window=2, ranking="local", neighbours=4)


def test_cutoffs_run_from_the_loosest_to_the_strictest() -> None:
    documents, scores = planted(0)
    cutoffs = selection_cutoffs(scores, LOCAL)
    assert cutoffs[0] == 100.0 and (np.diff(cutoffs) < 0).all() and cutoffs[-1] > 0
    calibration = SurpriseCalibration(documents, scores, LOCAL)
    recalls = [calibration.confusion(c).tpr for c in cutoffs]
    fprs = [calibration.confusion(c).fpr for c in cutoffs]
    assert all(a >= b for a, b in zip(recalls, recalls[1:])) and all(a >= b for a, b in zip(fprs, fprs[1:]))
    assert recalls[0] > recalls[-1]


def test_the_saved_rank_max_masks_what_calibration_counted() -> None:
    documents, scores = planted(1)
    entry = calibrate_surprise(documents, scores, rule=LOCAL, criterion="recall:0.9", folds=0)
    assert entry["rule"]["ranking"] == "local" and entry["rule"]["neighbours"] == 4
    rank_max = entry["threshold"]
    assert 0 < rank_max <= 100
    covered = 0
    for group in sorted({d.group for d in documents}):  # propagation runs within a group
        members = [i for i, d in enumerate(documents) if d.group == group]
        here = [scores[i] for i in members]
        masks = mask_group(here, [np.ones(len(s), dtype=bool) for s in here], LOCAL.at_cutoff(rank_max))
        covered += sum(int(m[slice(*documents[i].spans[0])].sum()) for i, m in zip(members, masks))
    assert covered / (4 * len(documents)) == pytest.approx(entry["validation"]["token"]["tpr"], abs=1e-4)
    assert entry["validation"]["token"]["tpr"] >= 0.9
    # A stricter cutoff than the saved one no longer reaches the recall asked for.
    stricter = [c for c in selection_cutoffs(scores, LOCAL) if c < rank_max]
    if stricter:
        assert SurpriseCalibration(documents, scores, LOCAL).confusion(max(stricter)).tpr < 0.9


def assignments(seed: int, count: int = 6) -> tuple[list[LabelledText], list[TokenScores]]:
    """Small config files, each assigning one surprising value among ordinary settings."""
    rng = np.random.default_rng(seed)
    documents, scores = [], []
    for i in range(count):
        value = "".join(rng.choice(list("qzxk7391"), 10))
        text = f"port = 8080\nname = service\nuser = \"{value}\"\nretries = 3\n"
        start = text.index(value)
        nll = rng.uniform(0.5, 3.0, len(text))
        nll[start : start + len(value)] += 5.0
        nll[0] = np.nan
        documents.append(LabelledText(f"g{i % 3}/d{i}", text, spans=((start, start + len(value)),), group=f"g{i % 3}"))
        scores.append(chars(text, nll))
    return documents, scores


def test_value_aware_calibration_chooses_a_local_code_cutoff() -> None:
    documents, scores = assignments(2)
    entry = calibrate_values(documents, scores, rule=LOCAL, criterion="best-f1", folds=0)
    assert entry["rule"]["ranking"] == "local" and entry["rule"]["masking"] == "values"
    assert entry["threshold"] in (1.0, 2.0, 5.0, 10.0)
    assert {row["threshold"] for row in entry["code_thresholds"]} <= {1.0, 2.0, 5.0, 10.0}
