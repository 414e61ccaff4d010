"""Classic credential files end to end: ``smscan files`` with the real default model and the
packaged threshold reports every secret of ``tests/data/classic_credentials/`` with its exact
span, and nothing else (marked `model`; CI runs it). The files and their answer key are
described in ``test_classic_files.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from smscan.cli import main

pytestmark = pytest.mark.model

DATA = Path(__file__).resolve().parents[1] / "data" / "classic_credentials"


def test_smscan_files_reports_every_classic_credential_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
    shutil.copytree(DATA, tmp_path / "classic", ignore=shutil.ignore_patterns("expected.json"))
    monkeypatch.chdir(tmp_path / "classic")

    code = main(["files", *sorted(expected), "--kinds", "credential", "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = sorted((f["path"], f["preview"]) for f in report["findings"])
    assert code == 1
    assert found == sorted((name, secret) for name, entry in expected.items() for secret in entry["secrets"])
    # Each finding is the secret's own span in its file (the preview is not cut from elsewhere).
    for finding in report["findings"]:
        text = (DATA / finding["path"]).read_bytes().decode("utf-8")
        assert text[finding["char_start"] : finding["char_end"]] == finding["preview"]
