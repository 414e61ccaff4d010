"""A near-repeat of a credential later in its file takes the first one's score
(``smscan.detectors.near_repeats``): the model predicts the second from the first."""

from __future__ import annotations

from smscan.detectors.credential import CredentialDetector
from tests.detectors.scores import char_scores

THRESHOLD = 2.99
FIRST = "Vb8qTm2zKx5RwP4n"


def reported(text: str, surprising: list[str]) -> list[str]:
    spans = [(text.index(value), text.index(value) + len(value)) for value in surprising]
    found = CredentialDetector().candidates(text, char_scores(text, spans))
    return [text[c.char_start:c.char_end] for c in found if c.score >= THRESHOLD]


def test_a_rotated_key_beside_the_old_one_is_reported_with_it() -> None:
    text = f'old_api_key = "{FIRST}"\napi_key = "{FIRST[:-2]}Zq"\n'
    # Only the first value is surprising to the model; the second repeats 14 of its 16 characters.
    assert reported(text, [FIRST]) == [FIRST, f"{FIRST[:-2]}Zq"]


def test_one_token_body_under_two_prefixes_is_reported_twice() -> None:
    body = "fK8UXjzPM1Lzf356hwgGym4JAfnQ7rT2"
    text = f"personal: ghp_{body}\noauth: gho_{body}\n"
    assert reported(text, [f"ghp_{body}"]) == [f"ghp_{body}", f"gho_{body}"]


def test_values_that_share_a_vendor_prefix_only_stay_apart() -> None:
    second = "sk_live_Hn4Wq9Zr2Lc7Tm5Xb8Pd"
    text = f'STRIPE_KEY = "sk_live_{FIRST}"\nSTRIPE_OTHER_KEY = "{second}"\n'
    assert reported(text, [f"sk_live_{FIRST}"]) == [f"sk_live_{FIRST}"]


def test_a_near_repeat_without_a_secret_name_is_not_raised() -> None:
    text = f'api_key = "{FIRST}"\nbuild_label = "{FIRST[:-2]}Zq"\n'
    assert reported(text, [FIRST]) == [FIRST]


def test_explain_says_which_value_a_near_repeat_repeats() -> None:
    text = f'old_api_key = "{FIRST}"\napi_key = "{FIRST[:-2]}Zq"\n'
    start = text.index(FIRST)
    detector = CredentialDetector()
    found = detector.candidates(text, char_scores(text, [(start, start + len(FIRST))]))
    (reason,) = detector.reasons(found[1].score, found[1].details)
    assert reason.startswith(f"a near-repeat of the credential at character {start} of this file")
