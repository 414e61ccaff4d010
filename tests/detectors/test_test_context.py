from __future__ import annotations

import base64
import random
import string

import pytest

from smscan.detectors.credential import CredentialDetector
from smscan.detectors.test_context import is_made_up, is_test_path
from tests.detectors.scores import surprising_values

# python-dotenv 1.0.1, tests/test_utils.py line 11: a keyboard mash written as a secret.
DOTENV_LINE = "    assert c(action='set', key='SECRET', value='=@asdfasf') == 'dotenv set SECRET =@asdfasf'\n"
# A realistic random key (32 characters, letters and digits).
RANDOM_KEY = "Vq3XmR8kPz2LwN7tYb5HcJ4sQe9Df6Gu"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_utils.py", True), ("test_main.py", True), ("src/pkg/tests/helpers.py", True),
        ("tests/keys/jwk_rsa_key.json", True), ("conftest.py", True), ("pkg/auth_test.go", True),
        ("web/src/login.test.ts", True), ("web/src/login.spec.jsx", True), ("testdata/config.yaml", True),
        ("src/test/java/AuthTests.java", True), ("spec/models/user_spec.rb", True),
        ("__tests__/app.js", True), ("fixtures/settings.env", True),
        ("allauth/socialaccount/providers/apple/tests.py", True), ("pyotp/test.py", True), ("pkg/testing.py", False),
        ("jwcrypto/tests-cookbook.py", True), ("pkg/tests_helpers.py", True), ("pkg/testimony.py", False),
        ("src/dotenv/main.py", False), ("docs/testimonials.md", False), ("latest.py", False),
        ("contest/config.py", False), ("tests.py.bak/config", False), ("", False), ("settings.py", False),
    ],
)
def test_what_counts_as_a_test_file(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


@pytest.mark.parametrize(
    "value",
    [
        "=@asdfasf", "qwerqwer", "zxcvbnm123", "aaaaaaaa1", "hunter2", "Password123!", "supersecretkey",
        "my-api-key-123", "test-token-123", "fake_token_a8f3kq9zQ", "correcthorsebatterystaple",
        "!@#$%^&*", "s3cr3t", "p@ssw0rd!", "adm1n1strat0r", "abcdefgh12345678", "pa%20ssword",
        "abc123%40%20%25",
        base64.b64encode(b"test:test").decode(), base64.b64encode(b"user:").decode(),
        base64.urlsafe_b64encode(b'{"hello": "world"}').decode().rstrip("="),
        "." + base64.urlsafe_b64encode(b'{"some":"payload"}').decode().rstrip("="),
        base64.b64encode(b"example-username:example-password").decode(),
    ],
)
def test_values_typed_by_hand_are_made_up(value: str) -> None:
    assert is_made_up(value)


@pytest.mark.parametrize(
    "value",
    [
        RANDOM_KEY, "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "ghp_R8nX2vQpL5tY7wK3mZ9aB4cD6eF1gH0jI2kL",
        "test_Vq3XmR8kPz2LwN7tYb5HcJ4s", "5ee8e3a1c8f14c0b9d2e7f60a1b3c4d5",
        "tvagLDLoaiJKxOKqpBXSEGy7SYSifZhjntgm9ctpyj8",
        # `%Eb` / `%Da` are no UTF-8 escapes: read as percent-encoding they ate two characters
        "Rk^%Eb4*uzx@#*--@7", "gt^%Da7*ovy@#*--@8",
        # words whose letters lie on one keyboard row far apart are words, not a mash
        "valley-pepper-443", "tower-puppet-871",
    ],
)
def test_random_values_are_not_made_up_even_beside_a_word(value: str) -> None:
    assert not is_made_up(value)


@pytest.mark.parametrize(
    ("alphabet", "length"),
    [(string.ascii_letters + string.digits, 16), (string.ascii_letters + string.digits, 32),
     ("0123456789abcdef", 32), (string.ascii_letters + string.digits + "-_", 43),
     (string.ascii_lowercase, 20)],
)
def test_random_keys_are_almost_never_made_up(alphabet: str, length: int) -> None:
    rng = random.Random(length)
    keys = ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(2000)]

    assert sum(is_made_up(key) for key in keys) == 0


def candidates(text: str, path: str, values: list[str]) -> list[tuple[str, float]]:
    scores = surprising_values(text, values)
    found = CredentialDetector().candidates(text, scores, path=path)
    return [(text[c.char_start : c.char_end], round(c.score, 6)) for c in found]


def test_a_keyboard_mash_in_a_test_file_is_test_data() -> None:
    assert candidates(DOTENV_LINE, "tests/test_utils.py", ["=@asdfasf"]) == []
    assert CredentialDetector().regions(DOTENV_LINE, "tests/test_utils.py") == []


def test_the_same_mash_outside_tests_is_still_judged() -> None:
    # Weak real passwords leak from settings files: only a test file lowers the weight.
    # The keyword argument, and the expected output's `SECRET =@asdfasf` read as an assignment.
    expected = [("=@asdfasf", 10.0), ("@asdfasf", 10.0)]
    assert candidates(DOTENV_LINE, "src/dotenv/cli.py", ["=@asdfasf"]) == expected
    assert candidates(DOTENV_LINE, "", ["=@asdfasf"]) == expected


def test_one_row_words_are_not_a_mash_but_one_row_stretches_are() -> None:
    from smscan.detectors.test_context import _is_row_mash

    assert [_is_row_mash(run) for run in ("asdfasf", "qwerqwer", "jkljkl", "pepper", "power")] == [
        True, True, True, False, False,
    ]


def test_a_random_key_in_a_test_file_scores_as_anywhere_else() -> None:
    text = f"def test_client():\n    client = Client(api_key='{RANDOM_KEY}')\n"

    in_tests = candidates(text, "tests/test_client.py", [RANDOM_KEY])

    assert in_tests == [(RANDOM_KEY, 10.0)]
    assert in_tests == candidates(text, "src/client.py", [RANDOM_KEY])


def test_a_private_key_block_in_a_test_fixture_is_still_a_credential() -> None:
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 2
    text = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"

    found = candidates(text, "tests/certs/server.key", [body])

    assert len(found) == 1


def explained_reasons(path: str) -> list[tuple[bool, tuple[str, ...]]]:
    from smscan.decide.explain import explain_document
    from smscan.rules.resolve import Rules
    from smscan.records import Document
    from tests.reports.scans import fixture_rules
    from tests.scorers import RandomWordScorer

    surprise, detections = fixture_rules()
    [scores] = RandomWordScorer().score_texts([DOTENV_LINE])
    explanation = explain_document(
        Document(path, DOTENV_LINE, group="g"), scores, Rules(surprise, detections), window=4, threshold=3.0,
        consensus=1, first_line=1, last_line=1, model="random-word-scorer",
    )
    start = DOTENV_LINE.index("=@asdfasf") + 1  # 1-based column of the keyword argument's value
    return [(v.reported, v.reasons) for v in explanation.spans if v.kind == "credential" and v.column == start]


def test_explain_says_a_test_files_mash_is_test_data() -> None:
    [(reported, reasons)] = explained_reasons("tests/test_utils.py")

    assert not reported and "test data" in reasons[0]
    assert all("test data" not in " ".join(r) for _, r in explained_reasons("src/dotenv/cli.py"))
