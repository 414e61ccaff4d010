"""Names of things (models, packages with versions, images, fonts, CSS classes, products) are no
credentials under a neutral name; random keys of the same outline still are (issue #12: the
default model's own name was reported seven times on smscan's repository)."""

from __future__ import annotations

import random
import string

import pytest

from smscan.detectors.credential import CredentialRule, judge_slot
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
