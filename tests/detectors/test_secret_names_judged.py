"""Real credentials under secret names stay found while names of things stay unreported (review of
issue #12's detector changes: each case here was dropped by a rule meant for names of things)."""

from __future__ import annotations

import random
import string

import pytest

from smscan.detectors.credential import CredentialRule
from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.placeholders import is_stand_in
from smscan.detectors.secret_names import is_password_name, name_class

RULE = CredentialRule()


def secret_values(text: str, path: str = "") -> list[str]:
    """The values judged with a secret name's evidence."""
    return [text[s.start : s.end] for s in judged_slots(text, RULE, path=path) if s.evidence >= RULE.secret_bonus]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("jwt.secret.key=Xk9pQ2mZ7w\n", "Xk9pQ2mZ7w"),
        ("app.api.key=h7Gk2PzQ9x\n", "h7Gk2PzQ9x"),
        ("stripe.secret.key: Zq8xP1sV9kL\n", "Zq8xP1sV9kL"),
        ('jwt.secret.key = "Correct-Horse-Battery-Staple"\n', "Correct-Horse-Battery-Staple"),
        ('{"password": {"value": "hunter2Xy9"}}\n', "hunter2Xy9"),
        ('{"token": {"value": "Zq8xP1sV9kL"}}\n', "Zq8xP1sV9kL"),
    ],
)
def test_a_dotted_or_enclosing_secret_name_is_the_values_own(text: str, value: str) -> None:
    # A dotted key written in the file is the value's own name; an enclosing secret name passes
    # on to a leaf whose own name (`value`) says nothing of a thing.
    assert secret_values(text) == [value]


def test_a_setting_that_names_a_thing_under_a_secret_object_stays_a_name() -> None:
    text = (
        '{"credential": {"model": "SmolLM2-135M-Instruct", "criterion": "best-f1",\n'
        '  "scoring": "ctx512-stride384-fp32", "value": "Hb7Vq2Mx9LpR"}}\n'
    )
    assert secret_values(text) == ["Hb7Vq2Mx9LpR"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("DB_PASSWORD=sunny-meadow\n", "sunny-meadow"),
        ('password = "ab/cd9X.key"\n', "ab/cd9X.key"),
        ('admin_pw = "Kp4/Tx8@mVb"\n', "Kp4/Tx8@mVb"),
    ],
)
def test_two_words_a_path_or_a_ref_under_a_password_name_are_a_password(text: str, value: str) -> None:
    assert secret_values(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "auth: client-credentials\n",  # a setting under a secret name: never a key of two words
        "ssl_key: certs/server.key\n",  # where the key is kept
        "deploy_token: actions/checkout@main\n",
        "max_tokens = 1_000_000\n",  # a number, under any name
        "tokens: 13,785,482\n",
        'password = "--shared"\n',  # a flag is never its value
        "api_key: std::sync::Arc<Mutex>\n",  # a field's type
    ],
)
def test_names_of_things_under_key_and_token_names_stay_unreported(text: str) -> None:
    assert secret_values(text) == []


def test_a_path_of_word_names_bound_to_a_password_word_in_prose_stays_a_path() -> None:
    text = "after each forward pass (`smscan/model/passes.py`, a\n| `ID:{u},PW:{v}` | `credentials/ops-notes.txt` |\n"
    assert secret_values(text, "docs/architecture.md") == []


@pytest.mark.parametrize(
    "text",
    [
        'adminpwd = "jMH3WyojU.Kr"\n',
        'curl_easy_setopt(c, CURLOPT_PROXYUSERPWD, "jMH3WyojU.Kr");\n',
        'admin_pwd = "jMH3WyojU.Kr"\n',
    ],
)
def test_a_run_together_password_name_holds_a_password_with_a_dot(text: str) -> None:
    # `name_class` reads `adminpwd` as secret; the password judgement must read it alike, or
    # the password is taken for a file name.
    assert secret_values(text, "src/connect.c") == ["jMH3WyojU.Kr"]


@pytest.mark.parametrize("name", ["adminpwd", "CURLOPT_PROXYUSERPWD", "dbPassword", "ROOTPWD", "user_passwd", "PW"])
def test_every_password_name_is_a_secret_name(name: str) -> None:
    assert is_password_name(name) and name_class(name) == "secret"


def test_a_docker_secret_spec_is_no_secret_value() -> None:
    # `--secret` takes a spec (`type=env,id=NPM_TOKEN`): the id names a variable, it holds no secret.
    assert secret_values("RUN --mount=type=secret,id=npm npm ci\ndocker build --secret type=env,id=NPM_TOKEN .\n") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('pw = "a{bcdefg}Q7!"\n', "a{bcdefg}Q7!"),
        ('password = "Ab{cdefgh}1.x"\n', "Ab{cdefgh}1.x"),
        ('secret = "XyZ...q8Zt3kPx0wLm"\n', "XyZ...q8Zt3kPx0wLm"),
        ('token = "Zq8x{Pk2}mV"\n', "Zq8x{Pk2}mV"),
    ],
)
def test_braces_and_dots_inside_a_password_are_its_own(text: str, value: str) -> None:
    assert secret_values(text) == [value]


@pytest.mark.parametrize(
    "value", ["{user}:{password}@db", "https://{db_host}/v1", "user:${PASSWORD}", "${BIN}/pip", "$(cat key)-ro",
              "123e4567-...", "...~-L=?3T...", "q8Zt…[24 chars]", "q8Zt…[24", "lyE=Dw7...`", "contextlib.suppress(...)",
              "Stopping ${SCRIPT_NAME}... ", "{{ .Values.token }}-ro"],
)
def test_references_and_excerpts_stay_stand_ins(value: str) -> None:
    assert is_stand_in(value)


def test_random_passwords_are_seldom_taken_for_stand_ins() -> None:
    # Passwords drawn from a generator's alphabet with brackets, braces and dots: d1e1ca3 took
    # 1 in 5,000 of these for a stand-in (a `MY` opening read as "my ..."); rules that read any
    # `{...}` or `...` as a reference or a cut took 7.
    rng = random.Random(12)
    alphabet = string.ascii_letters + string.digits + "!#$%&()*+,-./:;<=>?@[]^_{|}~"
    values = ["".join(rng.choice(alphabet) for _ in range(rng.randint(12, 40))) for _ in range(5000)]
    assert sum(is_stand_in(value) for value in values) <= 3  # 0.06%
