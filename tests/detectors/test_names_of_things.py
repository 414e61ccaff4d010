"""Names of things (models, packages with versions, images, fonts, CSS classes, products) are no
credentials under a neutral name; random keys of the same outline still are (issue #12: the
default model's own name was reported seven times on smscan's repository)."""

from __future__ import annotations

import random
import string

import pytest

from smscan.detectors.credential import CredentialRule, judge_slot
from smscan.detectors.placeholders import is_stand_in
from smscan.detectors.slots import find_slots
from smscan.detectors.value_shapes import is_name_of_thing, is_other_identifier

NAMES = [
    "SmolLM2-135M-Instruct", "HuggingFaceTB/SmolLM2-135M-Instruct", "Llama-3.1-8B-Instruct",
    "Qwen2.5-Coder-7B-Instruct-GGUF", "bootstrap-5.3.3", "python:3.12-slim-bookworm", "node:20.11-alpine",
    "redis:7.2.4-alpine3.19", "ghcr.io/astral-sh/uv:0.4.18-python3.12-bookworm-slim", "registry.example.com:5000/app:2.8.0",
    ".btn-outline-primary", "#main-nav", ".col-md-6", "Noto-Sans-CJK-JP",
]
IDENTIFIERS = ["@babel/preset-env@7.24.0", "requests==2.32.3", "Chrome/126.0.6478.127", "left-pad@1.3.0"]
# Credentials written with the same separators: no name of a thing.
KEYS = ["admin:Zq8xP1sV9kL2", "deploy:7Hq2xZ-Lm9", ".Zq8xP1sV9kL2mN", "#Rk7vQ2pLx9", "app:2Zq8xP1sV9kL",
        "garden-dragon-578", "K7MDENG-bPxRfiCY-2Lq", "YJRA915@8m2g7a"]


@pytest.mark.parametrize("value", NAMES)
def test_names_of_things_are_names(value: str) -> None:
    assert is_name_of_thing(value)


@pytest.mark.parametrize("value", IDENTIFIERS)
def test_package_references_and_product_tokens_are_identifiers(value: str) -> None:
    assert is_other_identifier(value)


@pytest.mark.parametrize("value", KEYS)
def test_keys_of_the_same_outline_are_not_names(value: str) -> None:
    assert not is_name_of_thing(value)
    assert not is_other_identifier(value)


@pytest.mark.parametrize("separator", ["-", ":", "/", "."])
def test_random_keys_joined_like_names_are_not_names(separator: str) -> None:
    rng = random.Random(12)
    alphabet = string.ascii_letters + string.digits
    keys = [separator.join("".join(rng.choice(alphabet) for _ in range(rng.randint(6, 12))) for _ in range(3))
            for _ in range(2000)]
    # Letters alone joined by dots or colons read as a dotted name (`pkg.module:attr`), whatever
    # this signal says: only keys holding a digit are the question here.
    keys = [key for key in keys if any(c.isdigit() for c in key)]
    assert len(keys) > 1900
    named = [key for key in keys if is_name_of_thing(key) or is_other_identifier(key)]
    assert len(named) <= 2, named[:5]


def test_a_name_beside_a_key_under_config_keys_leaves_only_the_key() -> None:
    text = (
        "model: HuggingFaceTB/SmolLM2-135M-Instruct\n"
        "image: python:3.12-slim-bookworm\n"
        "theme: bootstrap-5.3.3\n"
        "button: .btn-outline-primary\n"
        "api_key: tW3RePSdQVsRNP9AiD2ZOy231MnM\n"
    )
    rule = CredentialRule()
    judged = [text[s.start : s.end] for s in find_slots(text) if judge_slot(text, s, rule) is not None]
    assert judged == ["tW3RePSdQVsRNP9AiD2ZOy231MnM"]


def test_a_secret_name_still_takes_a_value_shaped_like_a_name() -> None:
    # The signal holds under neutral names only: under `password` a value is judged by its surprise.
    text = "password: Summer-2024.1-Alpine\n"
    rule = CredentialRule()
    assert [text[s.start : s.end] for s in find_slots(text) if judge_slot(text, s, rule) is not None] == [
        "Summer-2024.1-Alpine"
    ]


# Found on smscan's own docs and bench scripts and on multi-format dev hosts (docs/BENCHMARKS.md,
# "Keep what works"): each was judged a candidate and some were reported.
OTHER_THINGS = ["--shared", "=1.5.0", "13,785,482", "1_000_000", "smscan/model/passes.py", "$DATA/secrets/labels.jsonl",
                "pkg{d}/sub/m{i}.py", "OWNER/smscan@REF", "held-out", "&pyo3::Bound<", "std::sync::Arc<Mutex>",
                "X-Amz-Credential="]
NAMED_THINGS = ["ctx512-stride384-fp32", "fp32,bf16,autocast", "ECDHE+AESGCM", "secevent+jwt"]
STAND_INS = ["bob:${env:API_KEY}", "${PYBIN}/pip", "{i}<{kc}>{v}</{kc}>", "123e4567-...", "q8Zt…[24 chars]"]
# Keys holding the same characters.
KEYS_ALIKE = ["-pZFFZ341x", "QUJDRA1x=", "Zq8x-P1sV=", "TQmo57+Lw3xE", "Zq8x::P1sV", "f2/wE4q74E6zIJEtWaHKaf5wv", "K4v~-L=?9mTq2Rx8wPz",
              "Zq8xP1sV9kL2${SUFFIX}", "Zq8x{ab}P1sV9kL2mN", "garden-dragon-578", "hj@pmAszz.Jdsjp0WaoV"]


@pytest.mark.parametrize("value", OTHER_THINGS)
def test_options_pins_numbers_paths_refs_and_code_are_identifiers(value: str) -> None:
    assert is_other_identifier(value)


@pytest.mark.parametrize("value", NAMED_THINGS)
def test_settings_ids_and_lists_of_names_are_names(value: str) -> None:
    assert is_name_of_thing(value)


@pytest.mark.parametrize("value", STAND_INS)
def test_values_around_a_reference_or_cut_short_stand_in(value: str) -> None:
    assert is_stand_in(value)


@pytest.mark.parametrize("value", KEYS_ALIKE)
def test_keys_holding_the_same_characters_are_none_of_these(value: str) -> None:
    assert not (is_other_identifier(value) or is_name_of_thing(value) or is_stand_in(value))


def test_a_name_of_a_thing_under_an_object_named_credential_is_still_a_name() -> None:
    # smscan's own thresholds file: the model's name sits in the `credential` kind's object; a
    # short setting there is judged as if it had no name, a long random value still by the name.
    text = (
        '{\n  "kinds": {\n    "credential": {\n      "model": "SmolLM2-135M-Instruct",\n'
        '      "scoring": "ctx512-stride384-fp32",\n      "criterion": "best-f1",\n'
        '      "password": "Jx4~Qm8-Tz2Lw9Rv5Kp"\n    }\n  },\n'
        '  "credentials": {"production": "Hb7Vq2Mx9LpR4tZw8Nk3"}\n}\n'
    )
    rule = CredentialRule()
    judged = [text[s.start : s.end] for s in find_slots(text) if judge_slot(text, s, rule) is not None]
    assert judged == ["Jx4~Qm8-Tz2Lw9Rv5Kp", "Hb7Vq2Mx9LpR4tZw8Nk3"]
