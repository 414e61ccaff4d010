"""A drawn value is surprising throughout; a surprising name only in places. Without a secret name,
place or vendor format, a value the model partly predicts is no credential (session 12: the names
behind the blind noise rounds' ordinary-text alarms)."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.detectors.credential import CredentialDetector, CredentialRule
from smscan.detectors.value_surprise import predictable_share
from smscan.engine.windows import fixed_windows
from smscan.errors import SmscanError
from smscan.records import TokenScores
from tests.detectors.scores import char_scores

VALUE = "Qx7vbbpos_wisepad3Lk"
THRESHOLD = 3.0
# The characters of `bbpos_wisepad3` inside VALUE: 14 of its 20.
NAME_PART = (VALUE.index("bbpos"), VALUE.index("Lk"))


def spans(text: str, *, predicted: tuple[int, int] | None) -> np.ndarray:
    """NLL per character for ``text``: VALUE surprising (9 nats) but for ``predicted`` (0.2)."""
    start = text.index(VALUE)
    scores = char_scores(text, [(start, start + len(VALUE))])
    nll = scores.nll.copy()
    if predicted is not None:
        nll[start + predicted[0] : start + predicted[1]] = 0.2
    return nll


def scored(text: str, *, predicted: tuple[int, int] | None) -> TokenScores:
    scores = char_scores(text)
    return TokenScores(scores.token_ids, scores.char_starts, scores.char_ends, spans(text, predicted=predicted))


def candidates(text: str, *, predicted: tuple[int, int] | None, rule: CredentialRule | None = None) -> list[str]:
    """The values whose score reaches a threshold of 3 nats (the default one is 2.99)."""
    found = CredentialDetector(rule).candidates(text, scored(text, predicted=predicted))
    return [text[c.char_start : c.char_end] for c in found if c.score >= THRESHOLD]


def test_share_counts_the_characters_of_predicted_tokens_inside_the_value() -> None:
    starts, ends = np.array([0, 4, 6, 10]), np.array([4, 6, 10, 14])
    nll = np.array([12.0, 0.4, 8.0, 1.0])  # 3, 0.2, 2 and 0.25 nats a character
    assert predictable_share(nll, starts, ends, 0, 14) == pytest.approx(6 / 14)
    # A predicted token half outside the value counts with its characters inside only.
    assert predictable_share(nll, starts, ends, 5, 14) == pytest.approx(5 / 9)
    assert predictable_share(nll, starts, ends, 6, 10) == 0.0
    # A token under 1% is never predicted, however many characters it covers.
    assert predictable_share(np.array([12.0]), np.array([0]), np.array([20]), 0, 20) == 0.0


def test_share_is_zero_without_scored_tokens() -> None:
    empty = np.array([], dtype=np.int64)
    assert predictable_share(np.array([]), empty, empty, 0, 5) == 0.0


def test_an_unnamed_value_the_model_partly_predicts_scores_its_evidence_alone() -> None:
    text = f"# {VALUE}\n"  # an unnamed token
    assert candidates(text, predicted=None) == [VALUE]
    assert candidates(text, predicted=NAME_PART) == []
    # Under a quarter predicted, the value is still surprising throughout.
    assert candidates(text, predicted=(4, 8)) == [VALUE]


def test_a_value_its_place_calls_secret_is_judged_by_surprise_alone() -> None:
    # A password people type is words: the share never drops a value under a secret name.
    text = f'password = "{VALUE}"\n'
    assert candidates(text, predicted=NAME_PART) == [VALUE]


def test_the_check_turns_off() -> None:
    text = f"# {VALUE}\n"  # an unnamed token
    for rule in (CredentialRule(max_predictable_share=None), CredentialRule(max_predictable_share=0.9)):
        (candidate,) = CredentialDetector(rule).candidates(text, scored(text, predicted=NAME_PART))
        assert "predicted" not in candidate.details
        assert candidate.score == pytest.approx(candidate.details["surprise"] - rule.token_penalty)


def test_the_rule_keeps_and_checks_its_limit() -> None:
    assert CredentialRule.from_dict({}).max_predictable_share == 0.25
    assert CredentialRule.from_dict({"max_predictable_share": None}).max_predictable_share is None
    assert CredentialRule.from_dict(CredentialRule(max_predictable_share=0.5).as_dict()).max_predictable_share == 0.5
    for bad in (0, 1.5, -0.1, True, "0.25"):
        with pytest.raises(SmscanError, match="max_predictable_share"):
            CredentialRule.from_dict({"max_predictable_share": bad})


def test_explain_says_the_value_is_surprising_in_places_only() -> None:
    text = f"# {VALUE}\n"  # an unnamed token
    scores = scored(text, predicted=NAME_PART)
    dropped = CredentialDetector().dropped(text, scores, fixed_windows(scores.nll, size=4), tau=3.0, near=1.0)
    reasons = [reason for item in dropped for reason in item.reasons]
    assert any(reason.startswith("surprising in places only: 70% of it") for reason in reasons), reasons
    # Surprising throughout, the value is a candidate, and explain shows it as no dropped slot.
    scores = scored(text, predicted=None)
    assert CredentialDetector().dropped(text, scores, fixed_windows(scores.nll, size=4), tau=3.0, near=1.0) == []


def test_the_candidate_stays_for_propagation_and_says_why() -> None:
    # Its surprise does not count, but a copy of a value found as a credential elsewhere in its
    # group is raised to that score (smscan.engine.propagate), so the value stays a candidate.
    text = f"# {VALUE}\n"  # an unnamed token
    detector = CredentialDetector()
    (candidate,) = detector.candidates(text, scored(text, predicted=NAME_PART))
    assert candidate.score == -1.0 and candidate.details["predicted"] == 0.7  # a bare token's penalty
    (reason,) = detector.reasons(candidate.score, candidate.details)
    assert reason.startswith("surprising in places only: 70% of it lies in tokens the model predicts")
