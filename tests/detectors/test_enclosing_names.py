"""JSON values named by the object or array around them (``smscan/detectors/enclosing_names.py``)."""

from __future__ import annotations

import pytest

from smscan.detectors.enclosing_names import share_enclosing_names
from smscan.detectors.slots import find_slots


def names(text: str) -> dict[str, str]:
    return {text[s.start : s.end]: s.key for s in find_slots(text)}


def test_a_value_takes_the_secret_name_of_its_object() -> None:
    text = '{\n  "credentials": {\n    "production": "Jx4~Qm8-Tz2Lw9Rv5Kp"\n  }\n}\n'
    assert names(text)["Jx4~Qm8-Tz2Lw9Rv5Kp"] == "credentials.production"


def test_every_element_of_a_secret_named_array_is_named() -> None:
    text = '{\n  "apiKeys": [\n    "Pw3Zk8Rt5Lm2Xv9Qb7Nd4Ja",\n    "Tz6Mq1Vx8Kc3Rw5Lp9Hs2Gb"\n  ]\n}\n'
    found = names(text)
    assert found["Pw3Zk8Rt5Lm2Xv9Qb7Nd4Ja"] == "apiKeys"
    assert found["Tz6Mq1Vx8Kc3Rw5Lp9Hs2Gb"] == "apiKeys"


def test_objects_in_a_secret_named_array_pass_the_name_on() -> None:
    text = '{"secrets": [{"name": "ledger", "value": "Hb7Vq2Mx9LpR4tZw8Nk3"}]}'
    assert names(text)["Hb7Vq2Mx9LpR4tZw8Nk3"] == "secrets.ledger.value"  # its record names it, the array says secret


@pytest.mark.parametrize(
    ("text", "value", "key"),
    [
        # an own name that says identifier, describes the secret or holds the account keeps its name
        ('{"token": {"id": "3f2b8c1e-9d4a-4b7e-8f6a-2c1d5e9b7a30"}}', "3f2b8c1e-9d4a-4b7e-8f6a-2c1d5e9b7a30", "id"),
        ('{"password": {"pattern": "^[A-Za-z0-9]{12,}$"}}', "^[A-Za-z0-9]{12,}$", "pattern"),
        ('{"credentials": {"username": "billing-worker"}}', "billing-worker", "username"),
        # only the nearest named container counts: a section two levels up says little
        ('{"auth": {"github": {"org": "Zq8xP1sV9kL2mN4bR7tY"}}}', "Zq8xP1sV9kL2mN4bR7tY", "org"),
        # an array of names under a schema's `required` is not an array of secrets
        ('{"Credentials": {"required": ["CredentialsParameterXYZ"]}}', "CredentialsParameterXYZ", "required"),
    ],
)
def test_names_that_say_something_else_are_kept(text: str, value: str, key: str) -> None:
    assert names(text).get(value, "") == key


def test_keys_are_never_taken_for_values() -> None:
    text = '{\n "ExpressGatewayRepositoryCredentials": {\n  "additionalProperties": false\n }\n}\n'
    assert "additionalProperties" not in {k for k, v in names(text).items() if v}


def test_text_that_is_not_a_json_document_is_left_alone() -> None:
    text = 'credentials = {"prod": "Jx4~Qm8-Tz2Lw9Rv5Kp"}\n'
    slots = find_slots(text)
    assert share_enclosing_names(text, slots) == slots
    unbalanced = '{"token": {"value": "Jx4~Qm8-Tz2Lw9Rv5Kp"}}}'
    assert share_enclosing_names(unbalanced, find_slots(unbalanced)) == find_slots(unbalanced)
