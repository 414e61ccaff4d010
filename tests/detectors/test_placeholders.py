from __future__ import annotations

import pytest

from smscan.detectors.placeholders import (
    is_documented_example,
    is_placeholder,
    is_reference,
    is_stand_in,
)


@pytest.mark.parametrize(
    "value",
    ["${DB_PASSWORD}", "${TOKEN:-x}", "$API_KEY", "%APPDATA%", "%(password)s", "{{ secrets.TOKEN }}",
     "{token}", "os.environ['TOKEN']", "process.env.API_KEY", "vault:secret/data/app", "$(cat key)"],
)
def test_references(value: str) -> None:
    assert is_reference(value)


@pytest.mark.parametrize(
    "value",
    ["changeme", "CHANGE_ME", "<YOUR_API_KEY>", "your-token-here", "xxxxxxxxxxxx", "********",
     "REPLACE_ME", "dummy", "TODO", "test", "placeholder", "[api key]", "insert_key", "secret",
     "my-secret-password", "0000-0000-0000", "MyToken", "your_license_key",
     "--my-argument", "${MY_ENV_VAR}/test3.sh"],
)
def test_placeholders(value: str) -> None:
    assert is_placeholder(value)


@pytest.mark.parametrize(
    "value",
    ["Zq8xP1sV9kL2", "Kettle1999-", "lantern_anchor_765", "ghp_NA7zdlzGGfJtfAAjaJJXSghq",
     "V!-RYPn98*CIW", "sk_live_fdn0YwNeW8XGqINg", "e3b0c44298fc1c149afbf4c8996fb924",
     "3MY8N-WGW78-8MUBP-Z9QHW-B172B", "7YOUR2-QX9PL"],
)
def test_real_looking_values_are_not_stand_ins(value: str) -> None:
    assert not is_stand_in(value)


def test_documented_examples() -> None:
    assert is_documented_example("AKIAIOSFODNN7EXAMPLE")
    assert is_documented_example("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert is_documented_example(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    assert not is_documented_example("AKIAZQ3P8VX2M4N6B7C9")
    # copies that edit the end of AWS's documented keys, never their start
    assert is_documented_example("wJalrXUtnFEMI/K7MDENG/bPxRfiCYESAMPLEKEY")
    assert is_documented_example("AKIAIOSFODNN7TESTING")
    assert not is_documented_example("wJalrXUtnFEMI/Zq8xP1sV9kL2mN4bW7cRHb7Vq2Mx9LpR")
    assert not is_documented_example("wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETSKEY")  # an edit that says nothing


@pytest.mark.parametrize(("value", "expected"), [
    ("ZHVtbXkgdGV4dCBkYXRhIGRhdGEgZGF0YQ==", True),  # "dummy text data data data"
    ("YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=", True),  # the alphabet
    ("cGFzc3dvcmQxMjM=", True),  # "password123"
    ("U3VtbWVyMjAyNCE=", False),  # "Summer2024!": a password a person chose
    ("WnE4clQybVg5dkw0a1A3d04zYlk=", False),  # a drawn key, encoded
])
def test_base64_of_a_stand_in_is_a_stand_in(value: str, expected: bool) -> None:
    assert is_stand_in(value) is expected


def test_my_opens_a_stand_in_unless_its_letters_are_swapped_for_digits() -> None:
    assert is_placeholder("mySecret2024") and is_placeholder("my_api_key_123") and is_placeholder("yourT0ken")
    assert not is_placeholder("myC0mpl3xPwd") and not is_placeholder("myR3alP@ssw0rd")
