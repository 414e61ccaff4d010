"""Credentials in every file type a repository holds, and the look-alikes beside them.

Each file of ``tests/data/credentials/`` is a small, real-looking file of one type (notes,
extensionless text, reST, SQL, shell, C, Java, Go, Rust, Ruby, PHP, C#, Haskell, Swift,
Kotlin, URLs, .env, INI, properties, TOML, YAML, JSON, XML, Dockerfile, CI, a notebook, a key
file, lock files); ``expected.json`` lists its credentials and its look-alikes. The files go
through the real detector with a ``FakeScorer`` giving every character the same NLL, so what is
reported is decided by the slots and the evidence alone, at the packaged threshold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.detectors.credential import CredentialDetector
from smscan.detectors.notebooks import notebook_cells
from tests.detectors.credential_fixtures import TAU, judged_values, reported_values
from tests.fakes import FakeScorer

DATA = Path(__file__).resolve().parents[1] / "data" / "credentials"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
# Surprise every random value has with the real model and more (nats per character): with the
# default evidence, a secret-named value or a vendor format reaches the threshold on it, an
# unnamed value or a bare token does not.
SURPRISE = 2.5


def reported(name: str, nll: float) -> list[str]:
    return reported_values((DATA / name).read_text(encoding="utf-8"), nll)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_credential_of_a_file_type_is_reported_and_nothing_else(name: str) -> None:
    assert sorted(reported(name, SURPRISE)) == sorted(EXPECTED[name]["secrets"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_evidence_alone_reports_nothing(name: str) -> None:
    # A predictable value (1 nat per character) is never reported, whatever its name or prefix.
    assert reported(name, 1.0) == []


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if EXPECTED[n]["lookalikes"]))
def test_look_alikes_are_judged_out_however_surprising(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    judged = judged_values(text)
    for value in EXPECTED[name]["lookalikes"]:
        assert value in text
        assert value not in judged


def test_a_notebook_finding_points_into_the_file_and_into_its_cell() -> None:
    text = (DATA / "explore.ipynb").read_text(encoding="utf-8")
    (secret,) = EXPECTED["explore.ipynb"]["secrets"]
    scores = FakeScorer(unit="char", default_nll=SURPRISE).score_texts([text])[0]

    (candidate,) = [c for c in CredentialDetector().candidates(text, scores) if c.score >= TAU]

    assert text[candidate.char_start : candidate.char_end] == secret
    cell = notebook_cells(text)[candidate.details["cell"]]
    assert candidate.details["cell"] == 1
    assert cell.text[candidate.details["cell_start"] : candidate.details["cell_end"]] == secret
    assert cell.text.splitlines()[1] == f'api_key = "{secret}"'


def test_a_notebook_value_with_escapes_maps_to_its_escaped_span() -> None:
    value = 'Zq8x"P1s\\V9kL2mN4b'
    cell_line = f"password = '{value}'\n"
    text = json.dumps({"cells": [{"cell_type": "code", "source": [cell_line]}], "nbformat": 4})
    scores = FakeScorer(unit="char", default_nll=SURPRISE).score_texts([text])[0]

    (candidate,) = CredentialDetector().candidates(text, scores)

    assert text[candidate.char_start : candidate.char_end] == json.dumps(value)[1:-1]
    assert candidate.details["cell_end"] - candidate.details["cell_start"] == len(value)


def test_explain_names_the_notebook_cell() -> None:
    text = (DATA / "explore.ipynb").read_text(encoding="utf-8")
    scores = FakeScorer(unit="char", default_nll=SURPRISE).score_texts([text])[0]
    detector = CredentialDetector()
    (candidate,) = [c for c in detector.candidates(text, scores) if c.score >= TAU]

    (reason,) = detector.reasons(candidate.score, candidate.details)

    assert "notebook cell 1 at " in reason


def test_a_random_password_in_a_test_folder_is_still_reported() -> None:
    # In a test file made-up values are dropped; a random password whose `%Eb` is no escape
    # must not be percent-decoded into a value too short to be a key.
    text = (DATA / "connections.json").read_text(encoding="utf-8")
    scores = FakeScorer(unit="char", default_nll=SURPRISE).score_texts([text])[0]
    found = CredentialDetector().candidates(text, scores, path="tests/fixtures/connections.json")

    assert [text[c.char_start : c.char_end] for c in found if c.score >= TAU] == EXPECTED["connections.json"]["secrets"]


def test_a_word_joined_passphrase_under_a_secret_name_needs_less_surprise() -> None:
    # The real model gives a passphrase 1.5-2.1 nats a character; its shape is evidence, as a
    # vendor's format is, so at 1.6 nats the passphrases are reported and a plain word is not.
    text = (DATA / "passwords.h").read_text(encoding="utf-8")
    plain = text.replace("jasmine_raven_192", "jasminerave").replace("eagle#river#177", "eagleriverx")
    for source, expected in ((text, ["jasmine_raven_192", "eagle#river#177"]), (plain, [])):
        scores = FakeScorer(unit="char", default_nll=1.6).score_texts([source])[0]
        found = CredentialDetector().candidates(source, scores)
        assert [source[c.char_start : c.char_end] for c in found if c.score >= TAU] == expected
