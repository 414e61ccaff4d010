from __future__ import annotations

import numpy as np
import pytest

from smscan.calibration.calibrate import (
    calibrate_kind,
    choose_threshold,
    cross_validate,
    evaluate_kind,
    parse_criterion,
)
from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import sweep
from smscan.calibration.units import score_units
from smscan.detectors import make_detector
from smscan.errors import SmscanError
from tests.detectors.scores import surprising_values

INF = np.inf
# The paper's window statistic with whole-nat evidence: scores that are easy to follow by hand.
WINDOW = {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}


def test_named_operating_points_are_recall_targets() -> None:
    assert parse_criterion("SM90") == "recall:0.9"
    assert parse_criterion("best-f1") == "best-f1"
    assert parse_criterion("fpr:0.001") == "fpr:0.001"
    with pytest.raises(SmscanError, match="unknown criterion"):
        parse_criterion("recall:2")


@pytest.mark.parametrize(
    ("criterion", "expected"),
    [
        ("best-f1", 1.0),  # F1 at 1: 6/8 = 0.75; at 2: 4/7; at 3: 4/6; at 4: 0
        ("recall:1.0", 1.0),
        ("recall:0.6", 2.5),  # score 3 reaches it: halfway down to the next score, 2
        ("fpr:0.34", 2.5),
        ("fpr:0.7", 1.0),
    ],
)
def test_choose_threshold(criterion: str, expected: float) -> None:
    scores = np.array([1.0, 2.0, 3.0, 3.0, 4.0, -INF])
    labels = np.array([True, False, True, True, False, False])
    # tp/fp at 1: 3/2, at 2: 2/2, at 3: 2/1, at 4: 0/1; 3 negatives

    assert choose_threshold(sweep(scores, labels), criterion) == expected


def test_no_positive_units_cannot_be_calibrated() -> None:
    with pytest.raises(SmscanError, match="no positive"):
        choose_threshold(sweep(np.array([1.0]), np.array([False])), "best-f1")


def test_an_unreachable_false_positive_rate_is_an_error() -> None:
    points = sweep(np.array([1.0, 2.0]), np.array([True, False]))

    with pytest.raises(SmscanError, match="false-positive rate"):
        choose_threshold(points, "fpr:0.0")


def test_unreachable_recall_says_the_most_there_is() -> None:
    points = sweep(np.array([2.0, -INF]), np.array([True, True]))

    with pytest.raises(SmscanError, match="the most is 0.500"):
        choose_threshold(points, "recall:0.9")


def _credential_documents() -> tuple[list[LabelledText], list]:
    texts = [
        'API_KEY = "Zq8xP1sV9kL2mN4b"\nname = "plain-words-here"\n',
        'token = "Wv7Tq2Lm9Xc4Rb8K"\n',
        'password = "hunter2hunter"\nlabel = "Xy7Pq2Lm9Tc4Rb8Z"\n',
    ]
    spans = [((11, 27),), ((9, 25),), ((12, 25),)]
    documents = [
        LabelledText(name=f"d{i}", text=t, spans=s, categories=("key",) * len(s), group=f"g{i}")
        for i, (t, s) in enumerate(zip(texts, spans))
    ]
    # The first two values and an unlabelled one surprise the "model"; the password does not.
    scores = [
        surprising_values(texts[0], ["Zq8xP1sV9kL2mN4b"]),
        surprising_values(texts[1], ["Wv7Tq2Lm9Xc4Rb8K"]),
        surprising_values(texts[2], ["Xy7Pq2Lm9Tc4Rb8Z"]),
    ]
    return documents, scores


def test_units_score_each_character_by_its_candidate() -> None:
    documents, scores = _credential_documents()

    units = score_units(make_detector("credential", WINDOW), documents, scores)

    first = units.char_scores[units.char_bounds[0][0] : units.char_bounds[0][1]]
    # A value inside a 9-nat run: its windows reach 9.0, plus the secret-name bonus (2.0).
    assert first[11:27].tolist() == [11.0] * 16
    assert first[:11].tolist() == [-INF] * 11
    assert units.char_labels.sum() == 16 + 16 + 13
    assert units.line_labels.tolist() == [True, False, True, True, False]
    assert units.line_scores.tolist() == [11.0, -INF, 11.0, 3.0, 9.0]


def test_calibrate_picks_the_threshold_and_reports_what_it_achieves() -> None:
    documents, scores = _credential_documents()

    entry = calibrate_kind("credential", documents, scores, criterion="best-f1", folds=3, rule=WINDOW)

    # Scores: the two keys 9 + 2 (secret-name bonus), the password 1 + 2, the unlabelled
    # value 9 (a neutral name). F1 at 3: 90/106; at 9: 64/93; at 11: 64/77: 3 is best.
    assert entry["threshold"] == 3.0
    assert entry["validation"]["char"]["tp"] == 45
    assert entry["validation"]["char"]["fp"] == 16
    assert entry["validation"]["char"]["f1"] == round(90 / 106, 4)
    assert entry["operating_points"]["SM50"]["threshold"] == 10.0  # halfway between 11 and 9
    assert entry["operating_points"]["SM95"]["threshold"] == 3.0
    assert entry["examples"] == 3
    assert entry["rule"]["rule"] == "credential-slots"


def test_evaluate_reports_per_category_recall() -> None:
    documents, scores = _credential_documents()

    result = evaluate_kind("credential", documents, scores, threshold=11.0, rule=WINDOW)

    assert result["per_category_recall"] == {"key": round(2 / 3, 4)}
    assert result["line"]["tp"] == 2
    assert result["line"]["fn"] == 1


def test_cross_validation_keeps_groups_in_one_fold() -> None:
    documents, scores = _credential_documents()
    units = score_units(make_detector("credential", WINDOW), documents, scores)

    result = cross_validate(units, "char", "best-f1", folds=3, groups=["a", "a", "b"])

    # Two groups in three folds: one fold stays empty, and `folds` counts the two evaluated.
    assert result["folds"] == 2
    assert len(result["thresholds"]) == 2


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        (["a", "a", "a"], "the labelled rows form 1 group, and at least 2 are needed"),
        # Group b alone holds no target, so only the fold holding b has something to train on.
        (["a", "a", "b"], "only 1 of 2 folds could be evaluated"),
    ],
)
def test_cross_validation_with_fewer_than_two_evaluated_folds_is_an_error(groups: list[str], message: str) -> None:
    documents, scores = _credential_documents()
    documents[2] = LabelledText(name="d2", text=documents[2].text, group="g2")  # no target
    units = score_units(make_detector("credential", WINDOW), documents, scores)

    with pytest.raises(SmscanError, match=message):
        cross_validate(units, "char", "best-f1", folds=5, groups=groups)


def test_calibrating_a_single_group_says_there_is_no_estimate() -> None:
    documents, scores = _credential_documents()
    one_group = [LabelledText(d.name, d.text, spans=d.spans, categories=d.categories, group="pkg") for d in documents]

    with pytest.raises(SmscanError, match="no cross-validated estimate: the labelled rows form 1 group"):
        calibrate_kind("credential", one_group, scores, criterion="best-f1", folds=5, rule=WINDOW)
