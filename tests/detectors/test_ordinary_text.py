"""Ordinary text of this repository's own code and docs that its scan once reported as
credentials: each line is no candidate at all (no slot survives the model-free judgement), so
no model score can report it."""

from __future__ import annotations

import pytest

from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule


@pytest.mark.parametrize(
    "line",
    [
        # A lower-case "token" in prose is a word, not an Authorization scheme.
        "            out the reference-token figures.",
        "# log_probs[k] is log p(token start+k+1 | tokens start..start+k): (end - start - 1,)",
        # A metavar and a regular expression's source are no values.
        'target: Annotated[str, typer.Argument(metavar="FILE[:LINE[-LINE]]", help="FILE, FILE:LINE.")],',
        '_DIRECTIVE_START = re.compile(r"smscan:|pragma:|gitleaks:allow", re.IGNORECASE)',
        '_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_\\-.~]{20,}")',
        # A quoted format under a plain option is a format.
        '/usr/bin/time -f "%e s wall, %M KB maxrss" env PYTHONPATH=CHECKOUT python -m smscan repo .',
        # A plural subject describes things in general.
        "tokens fed are exact):",
    ],
)
def test_ordinary_text_is_no_candidate(line: str) -> None:
    assert judged_slots(line, CredentialRule()) == []


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("Authorization: token ghp_x8Zq2Lm4Rv7Tk9Wn3Bc6Hd1Fg5Js0Ya2UeNc4", "ghp_x8Zq2Lm4Rv7Tk9Wn3Bc6Hd1Fg5Js0Ya2UeNc4"),
        ('headers = {"Authorization": "token Zq8xP1sV9kL2mN4b"}', "Zq8xP1sV9kL2mN4b"),
        ('mysql --password "correct horse battery" -u app', "correct horse battery"),
        ("the password is Zq8xP1sV9 for now", "Zq8xP1sV9"),
        ("login frank password Zq8xP1sV9kL2", "Zq8xP1sV9kL2"),
    ],
)
def test_the_forms_beside_them_still_give_their_secret(line: str, secret: str) -> None:
    assert secret in [line[j.start : j.end] for j in judged_slots(line, CredentialRule())]


def test_a_define_quoted_in_prose_names_a_constant() -> None:
    line = "seed, `#define SNMP_DEFAULT_AUTH_PROTO usmHMACMD5AuthProtocol` in pyparsing's `snmp_api.h`;"
    assert "usmHMACMD5AuthProtocol" not in [line[j.start : j.end] for j in judged_slots(line, CredentialRule()) if j.where == "label"]


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        # A note quoted in docs: the password after its label, not the whole code span.
        ("- `ID:deploy,PW:Vw=^ub6M2EOi` was cut by the assignment finder", "Vw=^ub6M2EOi"),
        ('>>> line = "ID:master,PW:Zq8xP1sV9"', "Zq8xP1sV9"),
        # A quote or backtick closing the literal is not part of the password.
        ('>>> line = "Monitoring ID/Password=zabbix/Gv4tKp9sLw7N"', "Gv4tKp9sLw7N"),
        ("``mysql -u root -pS3cr3tXw9`` (a password glued to ``-p``)", "S3cr3tXw9"),
    ],
)
def test_a_password_quoted_in_docs_is_its_own_span(line: str, secret: str) -> None:
    assert secret in [line[j.start : j.end] for j in judged_slots(line, CredentialRule())]
