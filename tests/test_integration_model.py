"""The foundation end to end with the real default model (marked `model`; CI runs these)."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import numpy as np
import pytest

from smscan.cli import main
from smscan.engine import fixed_windows
from smscan.reports.json import VERSION as REPORT_VERSION

pytestmark = pytest.mark.model

SETTINGS_TEMPLATE = '''"""Service settings for the billing worker."""

import os

SERVICE_NAME = "billing-worker"
TIMEOUT_SECONDS = 30
PAYMENTS_API_KEY = "{secret}"
DATABASE_URL = os.environ.get("DATABASE_URL", "sqlite:///billing.db")


def headers() -> dict[str, str]:
    """HTTP headers for calls to the payments API."""
    return {{"Authorization": f"Bearer {{PAYMENTS_API_KEY}}", "Accept": "application/json"}}
'''

CLEAN = '''"""Small helpers for working with lists of numbers."""

from __future__ import annotations


def mean(values: list[float]) -> float:
    """Return the arithmetic mean of a non-empty list."""
    if not values:
        raise ValueError("mean() of an empty list")
    return sum(values) / len(values)


def clamp(value: float, low: float, high: float) -> float:
    """Limit value to the closed interval [low, high]."""
    return max(low, min(high, value))


def moving_average(values: list[float], width: int) -> list[float]:
    """Average every run of `width` consecutive values."""
    return [mean(values[i : i + width]) for i in range(len(values) - width + 1)]
'''


def random_secret(seed: int) -> str:
    alphabet = string.ascii_letters + string.digits
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(32))


@pytest.fixture(scope="module")
def scorer():  # type: ignore[no-untyped-def]
    from smscan.model.load import load_scorer

    return load_scorer(device="cpu", pull_if_missing=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_secret_is_far_more_surprising_than_the_code_around_it(scorer, seed: int) -> None:  # type: ignore[no-untyped-def]
    secret = random_secret(seed)
    text = SETTINGS_TEMPLATE.format(secret=secret)
    (scores,) = scorer.score_texts([text])
    windows = fixed_windows(scores.nll, size=4)
    start = text.index(secret)
    end = start + len(secret)
    first_char = scores.char_starts[windows.starts]
    last_char = scores.char_ends[windows.ends - 1]
    inside = (first_char >= start) & (last_char <= end)
    outside = (last_char <= start) | (first_char >= end)
    code = windows.scores[outside & np.isfinite(windows.scores)]
    secret_max = np.nanmax(windows.scores[inside])
    assert secret_max > np.percentile(code, 95) + 1.5, (secret_max, np.percentile(code, 95))


def test_repo_reports_a_planted_secret_and_leaves_clean_code_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = random_secret(7)
    (tmp_path / "settings.py").write_text(SETTINGS_TEMPLATE.format(secret=secret), encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    report_path = tmp_path.parent / f"{tmp_path.name}-report.json"

    code = main(["repo", str(tmp_path), "--device", "cpu", "--format", "json", "-o", str(report_path)])
    assert code == 1, capsys.readouterr().err
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["version"] == REPORT_VERSION
    assert report["model"]["fingerprint"]
    assert report["stats"]["files_scanned"] == 2
    findings = report["findings"]
    assert {f["path"] for f in findings} == {"settings.py"}
    text = SETTINGS_TEMPLATE.format(secret=secret)
    start = text.index(secret)
    assert any(f["char_start"] <= start and f["char_end"] >= start + len(secret) for f in findings)
    # Machine output never holds the value in full by default.
    assert secret not in report_path.read_text(encoding="utf-8")

    capsys.readouterr()
    code = main(["repo", str(tmp_path), "--device", "cpu"])
    out = capsys.readouterr().out
    assert code == 1
    assert "settings.py" in out and "clean.py" not in out
    assert "files scanned" in out
