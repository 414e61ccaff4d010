"""Detectors with the real default model and the packaged thresholds (marked `model`; CI runs them).

Kept small: one model load, a few hundred tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.calibration.thresholds import packaged_thresholds
from smscan.cli import main

pytestmark = pytest.mark.model

KEY = "q8Zt3kPx0wLm9Rv2Yc7Hn4BdW1sE"
VENDOR = "zq_live_8fKq2LmN0pXr7TvB3wYs5uHa"
SETTINGS = f'''"""Settings of the billing worker."""

import os

SERVICE_NAME = "billing-worker"
PAYMENTS_API_KEY = "{KEY}"
ADMIN_PASSWORD = "changeme"
REQUEST_ID = "5f0c2a9e-6a47-4b8e-9d7a-3c2f1e0b9a88"
DATABASE_URL = os.environ.get("DATABASE_URL", "sqlite:///billing.db")
'''
CLIENT = f'''package billing

import "example.com/acme"

// NewClient returns a client for the payments provider.
func NewClient() *acme.Client {{
\treturn acme.New("{VENDOR}", acme.WithTimeout(30))
}}
'''
MATH = '''"""Small helpers for lists of numbers."""


def mean(values):
    """Return the arithmetic mean of a non-empty list."""
    total = 0
    for value in values:
        total += value
    if abs(0.5) < 0: raise Exception("fail")
    return total / len(values)
'''


def test_packaged_thresholds_belong_to_the_default_model() -> None:
    from smscan.model.load import load_scorer

    fingerprint = load_scorer("default", pull_if_missing=True).fingerprint

    kinds = packaged_thresholds()["kinds"]
    assert set(kinds) == {"credential", "dead-code", "surprise"}
    assert {entry["fingerprint"] for entry in kinds.values()} == {fingerprint}


def test_default_scan_reports_whole_credentials_and_the_dead_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "settings.py").write_text(SETTINGS)
    (tmp_path / "client.go").write_text(CLIENT)
    (tmp_path / "stats.py").write_text(MATH)

    code = main(["repo", str(tmp_path), "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = sorted((f["path"], f["kind"], f["preview"]) for f in report["findings"])
    assert code == 1
    assert found == [
        ("client.go", "credential", VENDOR),
        ("settings.py", "credential", KEY),
        ("stats.py", "dead-code", 'if abs(0.5) < 0: raise Exception("fail")'),
    ]
    assert report["rule"]["kinds"] == ["credential", "dead-code"]
