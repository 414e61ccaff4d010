"""Names of things beside credentials, and context forms the fake-scorer tests cover, with the real
default model and the packaged threshold (marked `model`): model ids, package pins, images, fonts
and CSS classes under config keys and in prose, a Rust type after `m:` and a user name beside
a `${env:...}` reference are not reported, the keys beside them are
(``tests/data/credential_contexts/``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from smscan.cli import main
from tests.detectors.credential_fixtures import scan_copies

pytestmark = pytest.mark.model

DATA = Path(__file__).resolve().parents[1] / "data" / "credential_contexts"
FILES = ["models.yaml", "names.md", "runbook.md", "Main.kt", "notebooks/export.ipynb", "main.rs", "mirror.php"]


def test_names_of_things_are_not_reported_and_the_keys_beside_them_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found, expected = scan_copies(DATA, FILES, tmp_path, capsys)

    assert code == 1
    assert found == expected


def test_smscans_own_thresholds_file_reports_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The default model's name sits in the `credential` kind's object there (issue #12).
    packaged = Path(__file__).resolve().parents[2] / "smscan" / "rules" / "default_thresholds.json"
    shutil.copy(packaged, tmp_path / "default_thresholds.json")

    code = main(["repo", str(tmp_path), "--kinds", "credential", "--format", "json"])

    assert json.loads(capsys.readouterr().out)["findings"] == []
    assert code == 0
