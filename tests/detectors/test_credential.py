from __future__ import annotations

import pytest

from smscan.detectors.credential import (
    CredentialDetector,
    CredentialRule,
    is_encoded_text,
    judge_slot,
    name_class,
)
from smscan.detectors.slots import find_slots
from tests.detectors.scores import surprising_values

KEY = "Zq8xP1sV9kL2mN4bT7wR"
# The paper's window statistic with whole-nat evidence, for tests about windows.
WINDOW = CredentialRule(statistic="window", secret_bonus=2.0, token_penalty=2.0)


def found(text: str, values: list[str], rule: CredentialRule | None = None) -> list[tuple[str, float]]:
    scores = surprising_values(text, values)
    return [(text[c.char_start : c.char_end], round(c.score, 6))
            for c in CredentialDetector(rule).candidates(text, scores)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("password", "secret"), ("DB_PASSWD", "secret"), ("stripeSecretKey", "secret"), ("apiKey", "secret"),
        ("api_key", "secret"), ("X-Auth-Token", "secret"), ("aws_access_key_id", "secret"),
        ("gitSha", "identifier"), ("integrity", "identifier"), ("request_id", "identifier"),
        ("commit", "identifier"), ("key", "neutral"), ("sort_key", "neutral"), ("value", "neutral"),
        ("timeout", "neutral"), ("nextPageToken", "identifier"), ("device_token", "identifier"),
        ("pushToken", "identifier"), ("deviceAuthToken", "secret"),
    ],
)
def test_what_a_name_says(name: str, expected: str) -> None:
    assert name_class(name) == expected


def test_a_surprising_value_under_a_secret_name_scores_surprise_plus_bonus() -> None:
    text = f'API_KEY = "{KEY}"\n'

    # One token per character: every window holding a key character that lies wholly inside
    # the key averages 9.0; the bonus is 2.0.
    assert found(text, [KEY], WINDOW) == [(KEY, 11.0)]


def test_the_rate_statistic_is_nats_per_character() -> None:
    text = f'API_KEY = "{KEY}"\n'

    # 20 tokens of 9 nats over 20 characters, plus the default bonus 1.
    assert found(text, [KEY]) == [(KEY, 10.0)]


@pytest.mark.parametrize(
    "text",
    [
        'password = "changeme"\n',
        'token = "${API_TOKEN}"\n',
        'api_key = "<YOUR_API_KEY>"\n',
        'secret = os.environ["SECRET"]\n',
        'aws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n',
        'request_id = "5f0c2a9e-6a47-4b8e-9d7a-3c2f1e0b9a88"\n',
        'gitSha = "c8fb809f22d53c6030457f64fcc2a6720cdd2f45"\n',
        '# fixed upstream in commit f3615a67afdd0b31e8b450895944e999becde542\n',
        'integrity = "sha512-w833TvFqvZ/t42tqyaVMiwRw3v4tlIwrkW6q45ymKAQew=="\n',
        'homepage = "https://api.example.com/v2/status"\n',
        'version = "v2.33.18"\n',
        'payload = "aGVsbG8gd29ybGQgZnJvbSBoZXJl"\n',
        'icon = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"\n',
        'auth = "Zm9vOmJhcg=="\n',
        'exclude = "*/build/*.py"\n',
        'share = "\\\\\\\\fileserver\\\\share"\n',
        'uses: "actions/checkout@v4.1.7"\n',
        '# golang.org/x/net v0.21.0 h1:AQyQV4dYCvJ7vGmJyKki9+PBdyvhkSd8EIx/qb0AYv4=\n',
    ],
)
def test_stand_ins_and_other_identifiers_are_never_candidates(text: str) -> None:
    value = text.split('"')[1] if '"' in text else text.split()[-1]
    assert found(text, [value]) == []


def test_formats_no_rule_knows_are_candidates_like_any_other() -> None:
    text = 'client = acme.Client("zq_live_8fKq2LmN0pXr7TvB3wYs")\nlicence = "7NIG2-CKRMQ-VCSFM-7P8CU-23MMR"\n'

    values = [v for v, _ in found(text, ["zq_live_8fKq2LmN0pXr7TvB3wYs", "7NIG2-CKRMQ-VCSFM-7P8CU-23MMR"])]

    assert values == ["zq_live_8fKq2LmN0pXr7TvB3wYs", "7NIG2-CKRMQ-VCSFM-7P8CU-23MMR"]


def test_a_bare_token_pays_the_penalty() -> None:
    text = f"# rotated {KEY}Ab12 last week\n"

    assert found(text, [f"{KEY}Ab12"], WINDOW) == [(f"{KEY}Ab12", 7.0)]
    assert found(text, [f"{KEY}Ab12"]) == [(f"{KEY}Ab12", 8.0)]


def test_short_values_need_a_secret_name() -> None:
    rule = CredentialRule()
    text = 'pwd = "Zq8!x1"\nlabel = "Zq8!x1"\n'
    judged = [judge_slot(text, slot, rule) for slot in find_slots(text)]

    assert judged == [1.0, None]


@pytest.mark.parametrize(
    ("value", "encoded"),
    [("aGVsbG8gd29ybGQ=", True), ("eyJvayI6dHJ1ZX0=", True), ("PGh0bWw+PC9odG1sPg==", True),
     ("YWRtaW46czNjcjN0", False), ("q8Zt3kPx0wLm9Rv2", False), ("3uzLBk1vBrrDu7oRtwzWgTVFvfv6MH+gxb40xQ==", False)],
)
def test_base64_of_readable_text_is_data(value: str, encoded: bool) -> None:
    assert is_encoded_text(value) is encoded


def test_a_hex_key_wrapped_in_base64_is_a_key_under_a_secret_name_and_data_elsewhere() -> None:
    rule = CredentialRule()
    wrapped = "OJk4ZWE2MjYyYzFhNDM2ZjlhYzE2ZTRjYjk3NmQ5YWFi"  # base64 of two bytes and 8ea6262c1a436f9a...
    stand_in = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="  # base64 of 0123456789abcdef twice
    text = f"INTRINIO_API_KEY={wrapped}\nPAYLOAD={wrapped}\nAPI_KEY={stand_in}\nAPI_KEY=aGVsbG8gd29ybGQgZnJvbSBoZXJl\n"

    judged = [judge_slot(text, slot, rule, path=".env") for slot in find_slots(text)]

    assert judged == [1.0, None, None, None]


@pytest.mark.parametrize(
    "text",
    ['revision("52804033910e", down="2d30d79c4093")\n', 'deps = ["furo>=2024.7.18", "numpy>=1.24,<2"]\n'],
)
def test_short_unnamed_hex_and_requirements_are_not_credentials(text: str) -> None:
    values = [v for v in text.split('"')[1::2]]
    assert found(text, values) == []


@pytest.mark.parametrize(
    "text",
    [
        '# E: incompatible type; expected "[Ll]ist\\[int\\]"\n',
        'pattern = "Foo\\.bar\\(\\w+\\)"\n',
        'label = "Voorbeelden:"\n',
        "default = \"boshlang'ich\"\n",
        'required = "requi-yar-ed"\n',
        'hint = "没有提供足够的参数"\n',
    ],
)
def test_regexes_and_words_of_other_languages_are_not_credentials(text: str) -> None:
    value = text.split('"')[1]
    assert found(text, [value]) == []


@pytest.mark.parametrize(
    "value",
    [
        "XA8dcZq1**uN*=Lm",  # a random password may hold a glob's `**`
        "AKIAQZLRMEUDXJIWGOCR",  # letters only: no digit was drawn
        "Pässwörter-Grün-42",  # non-ASCII, but under a secret name
    ],
)
def test_random_values_under_a_secret_name_stay_candidates(value: str) -> None:
    text = f'SMTP_PASSWORD = "{value}"\n'
    assert [v for v, _ in found(text, [value])] == [value]


def test_a_run_of_letters_needs_a_secret_name_and_length() -> None:
    rule = CredentialRule()
    text = 'label = "QZLRMEUDXJIWGOCRTBNA"\npassword = "Authorization"\n'

    assert [judge_slot(text, slot, rule) for slot in find_slots(text)] == [None, None]


def test_an_aws_key_id_of_letters_is_a_vendor_format_under_any_name() -> None:
    rule = CredentialRule()
    text = 'label = "AKIAQZLRMEUDXJIWGOCR"\n'

    assert [judge_slot(text, slot, rule) for slot in find_slots(text)] == [rule.vendor_bonus]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("password = open_sesame\n", "notes.txt"),
        ('password = "super$ecret"\n', "settings.py"),
        ("  db_password: tiger_lily42\n", "config.yaml"),
        ("PASSWORD=summer_sun\n", "deploy.sh"),
    ],
)
def test_a_typed_word_where_a_password_goes_reaches_the_model(text: str, path: str) -> None:
    # Shaped like an identifier, but written as a literal where a password goes.
    rule = CredentialRule()
    (evidence,) = [judge_slot(text, slot, rule, path=path) for slot in find_slots(text)]
    assert evidence is not None and evidence >= rule.secret_bonus


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("password = open_sesame\n", "app/settings.py"),  # a variable in code
        ('password = "db_password"\n', "settings.py"),  # its own name's words
        ('password = "DB_PASSWORD"\n', "settings.py"),  # a constant's name
        ('password_source = "environment"\n', "notes.txt"),  # one word: a setting
        ("    # Do not pass real_modname and use the module's name\n", "pkg/autodoc.py"),  # `pass` the verb
    ],
)
def test_names_where_a_password_goes_stay_names(text: str, path: str) -> None:
    # Judged no credential, or (`pass` after `not`) never read as a label's value at all.
    rule = CredentialRule()
    assert [judge_slot(text, slot, rule, path=path) for slot in find_slots(text)] in ([None], [])
