"""Look-alikes that a general, checkable property rules out, and keys that a name or the words before them
make plain (the shapes of round s10: tuned on the foreign sources noseyparker, titus and kingfisher)."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from smscan.detectors.credential import CredentialRule
from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.named_tokens import name_bare_tokens, words_before
from smscan.detectors.placeholders import is_hollow_jwt, is_patterned, is_stand_in
from smscan.detectors.secret_names import value_name_class
from smscan.detectors.slot_kinds import LABEL, TOKEN, Slot
from smscan.detectors.value_shapes import has_digest_name_before, is_encoded_text, is_other_identifier, key_runs

RULE = CredentialRule()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(obj: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def judged(text: str, path: str = "notes.txt") -> dict[str, float]:
    return {text[s.start : s.end]: s.evidence for s in judged_slots(text, RULE, path=path)}


@pytest.mark.parametrize(
    "value",
    ["m1n2o3p4q5r6s7t8u9v0", "K9j8I7h6G5f4E3d2C1b0", "hhhhiiiijjjjkkkk5555666677778888",
     "xyz789-pqr123", "mno456", "4567-4567-4567", "QWE0123456789ab", "Tz0Qm_FGHIJKLMNOPQ_x81k",
     "v2e-h1-i2j3-k4l5-m6n7-o8p9-q0r1"],
)
def test_typed_patterns_are_stand_ins(value: str) -> None:
    assert is_patterned(value) and is_stand_in(value)


@pytest.mark.parametrize(
    "value",
    ["Zq8xP1sV9kL2mN4bT7wR", "e3b0c44298fc1c149afbf4c8996fb924", "pass4321x", "Vo8qrs*.tuvwA", "a{bcdefg}Q7!",
     "20240101", "73914628"],
)
def test_values_with_a_short_run_are_not_patterned(value: str) -> None:
    assert not is_patterned(value)


def test_random_keys_are_almost_never_patterned() -> None:
    # 20,000 random values of each alphabet and length: a pattern covers 85% of one almost never.
    rng = random.Random(7)
    for alphabet in ("0123456789abcdef", string.ascii_letters + string.digits, string.digits):
        for length in (12, 20, 40):
            values = ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(20000)]
            assert sum(map(is_patterned, values)) <= 2, (alphabet, length)


def test_a_counting_run_of_nine_makes_a_long_value_typed() -> None:
    assert is_patterned("Pq7RfT2wKs9LmX" + "RSTUVWXYZ")
    assert is_patterned("k2Jm8Q" + "123456789" + "rTe4Wq")
    assert not is_patterned("k2Jm8Q" + "1234567" + "rTe4Wq")


def test_a_jwt_header_alone_or_signed_by_a_word_is_hollow() -> None:
    header = b64url({"alg": "HS256", "typ": "JWT"})
    payload = b64url({"sub": "42", "iat": 1700000000})
    assert is_hollow_jwt(header) and is_stand_in(header)
    assert is_hollow_jwt(f"{header}.{payload}.sig")
    real = f"{header}.{payload}.Qm9xR2kLp0sVtY7wZ3nA8cD1eF4gH6jK"
    assert not is_hollow_jwt(real) and not is_stand_in(real)
    assert not is_hollow_jwt(b64url({"user": "x", "n": 1}))  # base64 JSON that is no JOSE header


def test_base64_of_text_is_text_and_base64_of_a_key_is_a_key() -> None:
    assert is_encoded_text(b64("the quick brown fox jumps over it"))
    assert is_encoded_text(b64('{"name": "backups", "id": 1}'))
    assert not is_encoded_text(b64("AIzaQm9xR2kLp0sVtY7wZ3nA8cD1eF4g"))  # a key wrapped in base64
    assert not is_encoded_text(b64('{"k":"Qm9xR2kLp0sVtY7wZ3nA8cD1","n":"ci","id":3}'))
    # A key that is itself a stand-in keeps its wrapper a stand-in: documented example, pattern.
    assert is_stand_in(b64('{"k":"EXAMPLEQm9xR2kLp0sVtY7wZ","n":"x"}'))
    assert is_encoded_text(b64("abcdefghijklmnopqrstuvwxyz0123456789"))
    # Text with two bytes garbled is still text; a login pair garbled so stays a credential.
    assert is_encoded_text(b64("aws-acc`\x08<\rkey-id test string"))
    assert not is_encoded_text(b64("deploy\x07:Qm9xR2kLp0sVtY7wZ3nA"))
    assert key_runs("plain words and SomeCamelCaseWords only") == []


@pytest.mark.parametrize(
    "value",
    ["&lt;YOUR_DB_PASSWORD&gt;", "not-set", "not-a-valid-token", "tok_INVALIDinvalidINVALID_x9", "sk-REPLACE_WITH_KEY",
     "$API_BASE_URL/login/#/reset_password"],
)
def test_values_that_say_they_are_not_keys_are_stand_ins(value: str) -> None:
    assert is_stand_in(value)


@pytest.mark.parametrize(
    "value",
    ["arn:aws:iam::123456789012:role/DeployPassword", "base64", "utf-8", "admin/users/passwords#update",
     "bucket-name.s3.amazonaws.com/9f8a7c6b2e1d", "HostKeyAlgorithmName=", "SERVICE_CLIENT_SECRET=",
     "Ed25519.signature_length", "auth_provider_x509_cert_url"],
)
def test_names_of_things_are_other_identifiers(value: str) -> None:
    assert is_other_identifier(value)


@pytest.mark.parametrize("value", ["Kp4T.xQ8m", "qR7tYp2Lw9Zx=", "uURFg5ovf.fxEuQIqU.lqHjfmuJde", "development#product"])
def test_random_values_with_dots_or_padding_are_no_names(value: str) -> None:
    assert not is_other_identifier(value)


def test_hex_after_an_archive_name_is_its_digest() -> None:
    assert has_digest_name_before("left-pad-1.3.0.tgz#")
    text = "resolved: https://registry.example.org/left-pad/-/left-pad-1.3.0.tgz#5b4f0fd5c3e8d2a1b7f6e9c0d4a3b2c1e0f9a8b7\n"
    assert "5b4f0fd5c3e8d2a1b7f6e9c0d4a3b2c1e0f9a8b7" not in judged(text)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("acme_key", "6f1d2c3b-4a59-4e8f-b7a6-1c2d3e4f5a6b", "secret"),
        ("key", "9c41f7e2b8a05d36e1f4c7a29b8d0e53", "secret"),
        ("vendor-api", "Zq8xP1sV9kL2mN4bT7wR", "secret"),
        ("key", "title", "neutral"),
        ("sort_key", "6f1d2c3b-4a59-4e8f-b7a6-1c2d3e4f5a6b", "neutral"),
        ("site_key", "6LcQm9xR2kLp0sVtY7wZ3nA8cD1eF4gH6jK", "neutral"),
        ("public_key", "Qm9xR2kLp0sVtY7wZ3nA8cD1eF4gH6jK", "identifier"),  # a public key is public
        ("DOTENV_PUBLIC_KEY", "037cfbfc90234cfdab7eb54050566293789efaa1a35dc420749662db400dc9c4b2", "identifier"),
        ("timeout", "9c41f7e2b8a05d36e1f4c7a29b8d0e53", "neutral"),
    ],
)
def test_a_key_name_says_secret_for_a_key_shaped_value(name: str, value: str, expected: str) -> None:
    assert value_name_class(name, value) == expected


def test_a_uuid_under_a_vendor_key_name_is_judged_as_a_key() -> None:
    assert judged("acme_key: 6f1d2c3b-4a59-4e8f-b7a6-1c2d3e4f5a6b\n", "config.yaml") == {
        "6f1d2c3b-4a59-4e8f-b7a6-1c2d3e4f5a6b": RULE.secret_bonus
    }
    assert judged("row_key: 6f1d2c3b-4a59-4e8f-b7a6-1c2d3e4f5a6b\n", "config.yaml") == {}


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("acmebot TOKEN 9c41f7e2b8a05d36e1f4c7a29b8d0e53c2a1", "acmebot TOKEN"),
        ("  personal access token qz_9c41f7e2b8a05d36e1f4c7a29b8d0e53", "access token"),
        ("widget PRIVATE KEY Zq8xP1sV9kL2mN4bT7wRaa", "widget PRIVATE KEY"),
        ("Secret: Zq8xP1sV9kL2mN4bT7wRaa", "Secret"),
    ],
)
def test_a_bare_token_after_words_saying_secret_is_named(line: str, name: str) -> None:
    token = line.split()[-1]
    start = line.index(token)
    (slot,) = name_bare_tokens(line, [Slot(start, len(line), "", TOKEN)])
    assert slot.where == LABEL and slot.key.endswith(name.split()[-1]) and name in line[: start]


@pytest.mark.parametrize(
    "line",
    ["#define SNMP_AUTH_PROTO usmHMACMD5AuthProtocolXYZ", "see the docs Zq8xP1sV9kL2mN4bT7wRaa",
     "https://host.example.net/a/Zq8xP1sV9kL2mN4bT7wRaa", "token is Zq8xP1sV9kL2mN4bT7wRaa"],
)
def test_tokens_after_other_words_stay_bare(line: str) -> None:
    assert words_before(line, line.rindex(line.split("/")[-1].split()[-1])) == ""


def test_a_webhook_urls_path_token_is_named_and_other_urls_are_not() -> None:
    hook = "notify: https://hooks.chat.example.net/services/T0AB12CD3/B0CD45EF6/Zq8xP1sV9kL2mN4bT7wRaa\n"
    assert judged(hook) == {"Zq8xP1sV9kL2mN4bT7wRaa": RULE.secret_bonus}
    api = "see https://api.example.net/v2/keys/T0AB12CD3/Zq8xP1sV9kL2mN4bT7wRaa\n"
    assert judged(api) == {"Zq8xP1sV9kL2mN4bT7wRaa": -RULE.token_penalty}
    # A path under no word that says secret (a guide, a document, a video) holds an id.
    page = "see https://docs.example.net/guides/T0AB12CD3/Zq8xP1sV9kL2mN4bT7wRaa\n"
    assert judged(page) == {}


def test_letters_in_a_random_mix_of_cases_are_a_key_not_a_name() -> None:
    from smscan.detectors.value_shapes import is_random_case

    # Where a password is written, they are a password; elsewhere a name-shaped value stays a name.
    assert is_random_case("wkTPzqRbHnYvcLeA") and not is_other_identifier("wkTPzqRbHnYvcLeA", words=False)
    assert judged("curl -u deploy:wkTPzqRbHnYvcLeA https://ci.example.org\n", "run.sh") == {
        "wkTPzqRbHnYvcLeA": RULE.secret_bonus
    }
    assert judged("https://deploy:qyPWkRmT@git.example.org/x.git\n") == {"qyPWkRmT": RULE.secret_bonus}
    assert judged("mode = wkTPzqRbHnYvcLeA\n", "config.ini") == {}
    # Names of code stay names: capitals at word starts or in acronyms.
    for name in ("getHTTPResponseCode", "XMLHttpRequest", "assertDictContainsSubset", "SIGKILL"):
        assert not is_random_case(name) and is_other_identifier(name)


def test_a_call_after_a_secret_word_stays_an_expression() -> None:
    line = "    token = self._lexer.next_token_from_buffer(node, col)"
    start = line.index("self")
    end = line.index("(")
    assert name_bare_tokens(line, [Slot(start, end, "", TOKEN)]) == [Slot(start, end, "", TOKEN)]
    line = "api token: Zq8xP1sV9kL2mN4bT7wRaa (rotate monthly)"
    start = line.index("Zq8x")
    assert name_bare_tokens(line, [Slot(start, start + 22, "", TOKEN)])[0].where == LABEL


@pytest.mark.parametrize("value", ["A,.:-\u00a8@*\u00bf?!", "a#$%^&*()!x", "Valid#2024x", "not#Qz8!pL"])
def test_a_lone_letter_or_word_among_symbols_is_no_stand_in(value: str) -> None:
    # Only `not` followed by stand-in words (`not-set`, `not-a-valid-key`) says a value is none.
    assert not is_stand_in(value)
