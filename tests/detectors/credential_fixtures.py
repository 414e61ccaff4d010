"""Checks shared by the tests of the credential fixture folders (``tests/data/credentials/``,
``tests/data/credential_contexts/``): what a fake scorer reports, what survives the model-free
judgement, and what a real-model scan of a copied folder reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from smscan.rules.thresholds_file import packaged_thresholds
from smscan.cli import main
from smscan.detectors.credential import CredentialDetector, CredentialRule, judge_slot
from smscan.detectors.slots import find_slots
from tests.fakes import FakeScorer

TAU = packaged_thresholds()["kinds"]["credential"]["threshold"]


def reported_values(text: str, nll: float, *, path: str = "") -> list[str]:
    """The values of ``text`` reported at the packaged threshold when every character has ``nll``."""
    scores = FakeScorer(unit="char", default_nll=nll).score_texts([text])[0]
    found = CredentialDetector().candidates(text, scores, path=path)
    return [text[c.char_start : c.char_end] for c in found if c.score >= TAU]


def judged_values(text: str) -> set[str]:
    """The values of ``text`` that survive the model-free judgement (the model would score them)."""
    rule = CredentialRule()
    return {text[s.start : s.end] for s in find_slots(text) if judge_slot(text, s, rule) is not None}


def scan_copies(
    folder: Path, files: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[tuple[str, str]], list[tuple[str, str]]]:
    """Copy ``files`` of a fixture folder to ``tmp_path`` and scan it for credentials (unredacted):
    the exit code, the (path, value) findings, and the (path, value) the folder's expected.json lists."""
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(folder / name, tmp_path / name)

    code = main(["repo", str(tmp_path), "--kinds", "credential", "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = sorted((f["path"], f["preview"]) for f in report["findings"])
    return code, found, sorted((name, value) for name in files for value in expected[name]["secrets"])
