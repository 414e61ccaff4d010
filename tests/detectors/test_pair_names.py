"""A value field named by its record's name field (``smscan.detectors.pair_names``)."""

from __future__ import annotations

import pytest

from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.slots import find_slots

SECRET = "Zq8xP1sV9kL2mN4b"


def key_of(text: str, value: str) -> str:
    start = text.index(value)
    return next(s.key for s in find_slots(text) if s.start == start)


@pytest.mark.parametrize(
    "text",
    [
        f"env:\n  - name: DB_PASSWORD\n    value: {SECRET}\n",                      # Kubernetes
        f'{{"environment": [{{"name": "DB_PASSWORD", "value": "{SECRET}"}}]}}\n',     # ECS, one line
        f'[\n  {{\n    "value": "{SECRET}",\n    "name": "DB_PASSWORD"\n  }}\n]\n',   # value first
        f"<entry>\n  <key>DB_PASSWORD</key>\n  <value>{SECRET}</value>\n</entry>\n",  # XML key/value
        f'        - Key: "DB_PASSWORD"\n          Value: "{SECRET}"\n',             # CloudFormation
    ],
)
def test_a_value_field_takes_its_records_name(text: str) -> None:
    assert key_of(text, SECRET) == "DB_PASSWORD.value"


@pytest.mark.parametrize(
    "text",
    [
        f"- name: DB_PASSWORD\n- value: {SECRET}\n",                            # two list items
        f"name: DB_PASSWORD\nconfig:\n  value: {SECRET}\n",                       # another mapping
        f'[{{"name": "DB_PASSWORD"}}, {{"value": "{SECRET}"}}]\n',                # two objects
        f"<key>DB_PASSWORD</key>\n<other>x</other>\n<value>{SECRET}</value>\n",   # not adjacent
    ],
)
def test_fields_of_two_records_stay_apart(text: str) -> None:
    assert key_of(text, SECRET) == "value"


def test_a_neutral_record_name_says_nothing() -> None:
    assert key_of(f"- name: LOG_LEVEL\n  value: {SECRET}\n", SECRET) == "LOG_LEVEL.value"


def test_a_kubernetes_secret_value_is_judged_as_a_password() -> None:
    rule = CredentialRule()
    text = f"env:\n  - name: LOG_LEVEL\n    value: Debug4Verbose\n  - name: DB_PASSWORD\n    value: {SECRET}\n"
    evidence = {text[j.start:j.end]: j.evidence for j in judged_slots(text, rule, path="deploy/app.yaml")}
    assert evidence[SECRET] == rule.secret_bonus
    assert evidence.get("Debug4Verbose", 0.0) < rule.secret_bonus
