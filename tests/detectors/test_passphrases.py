"""Word-joined passphrases: the shape that adds evidence under a secret name."""

from __future__ import annotations

import pytest

from smscan.detectors.credential import CredentialRule, judge_slot
from smscan.detectors.passphrases import is_passphrase
from smscan.detectors.slots import find_slots


@pytest.mark.parametrize(
    "value",
    ["violet-purple-violet83", "jasmine_raven_192", "eagle#river#177", "Zephyr!Sierra37", "tundra.tango.760", "lantern-candle-aspen2"],
)
def test_words_joined_by_one_separator_and_digits_are_a_passphrase(value: str) -> None:
    assert is_passphrase(value)


@pytest.mark.parametrize(
    "value",
    [
        "db_password_2",  # the name of a secret, a reference to it
        "api_key_1",  # one word of four letters: a name with a number
        "violet-purple_violet83",  # two separators
        "correct-horse-battery",  # no digits
        "release-2024-05-01",  # a date
        "my-app-2",
        "v1.2.3",
        "Xk9-qP2vLm3",
    ],
)
def test_other_values_are_not(value: str) -> None:
    assert not is_passphrase(value)


def test_the_shape_adds_evidence_only_under_a_secret_name() -> None:
    rule = CredentialRule()
    text = 'password = "violet-purple-violet83"\nbranch = "violet-purple-violet83"\n'
    judged = [judge_slot(text, slot, rule) for slot in find_slots(text)]
    assert judged == [rule.secret_bonus + rule.vendor_bonus, 0.0]
