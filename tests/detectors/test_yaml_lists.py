"""Items of a YAML block list named by a secret-saying key (``smscan.detectors.yaml_lists``)."""

from __future__ import annotations

import pytest

from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.slots import find_slots

SECRET = "Zq8xP1sV9kL2mN4b"


def named(text: str) -> dict[str, str]:
    return {text[s.start:s.end]: s.key for s in find_slots(text)}


@pytest.mark.parametrize(
    "text",
    [
        f"api_tokens:\n  - {SECRET}\n",
        f'api_tokens:\n  - "{SECRET}"\n',
        f"api_tokens:\n- {SECRET}  # rotated monthly\n",
        f"service:\n  api_tokens:\n    - Hb7Vq2Mx9LpR4\n    - {SECRET}\n",
        f"02_api_tokens:\n  - {SECRET}\n",
    ],
)
def test_items_of_a_secret_named_list_take_its_name(text: str) -> None:
    assert named(text)[SECRET].endswith("api_tokens")


@pytest.mark.parametrize(
    "text",
    [
        f"hosts:\n  - {SECRET}\n",                                  # a name that says nothing of secrets
        f"api_tokens:\n  prod: x\n  other:\n  - {SECRET}\n",          # the list belongs to another key
        f"api_tokens:\nregions:\n  - {SECRET}\n",
        f"Tokens:\n- must be rotated\n- {SECRET}\n",                  # prose under a heading
    ],
)
def test_other_lists_are_not_named_by_a_secret(text: str) -> None:
    assert named(text).get(SECRET, "") != "api_tokens" and named(text).get(SECRET, "") != "Tokens"


def test_a_secret_list_item_is_judged_as_a_secret() -> None:
    rule = CredentialRule()
    text = f"api_tokens:\n  - {SECRET}\nhosts:\n  - db1.internal\n"
    evidence = {text[j.start:j.end]: j.evidence for j in judged_slots(text, rule, path="config/app.yaml")}
    assert evidence == {SECRET: rule.secret_bonus}
