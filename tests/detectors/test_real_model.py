"""Detectors with the real default model and the packaged thresholds (marked `model`; CI runs them).

Kept small: one model load, a few hundred tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.rules.thresholds_file import packaged_thresholds
from smscan.cli import main
from smscan.detectors import js_syntax

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


# A two-line injection: the dead `if` and its body are one finding, reported whole.
MATH_TWO_LINES = MATH.replace(
    'if abs(0.5) < 0: raise Exception("fail")', 'if abs(0.5) < 0:\n        raise Exception("fail")'
)


def test_packaged_thresholds_belong_to_the_default_model() -> None:
    from smscan.rules.thresholds_file import is_same_scores
    from smscan.model.load import load_scorer

    fingerprint = load_scorer("default", pull_if_missing=True).fingerprint

    kinds = packaged_thresholds()["kinds"]
    assert set(kinds) == {"credential", "dead-code", "surprise"}
    # The default runtime (CTranslate2 fp32) computes the same scores as the bare weights.
    assert all(is_same_scores(entry["fingerprint"], fingerprint) for entry in kinds.values())


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


def test_a_two_line_injection_is_found_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "stats.py").write_text(MATH_TWO_LINES)

    code = main(["repo", str(tmp_path), "--kinds", "dead-code", "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = [(f["start"]["line"], f["end"]["line"], f["preview"], f["details"]["evidence"]) for f in report["findings"]]
    assert code == 1
    assert found == [(9, 10, 'if abs(0.5) < 0:\n        raise Exception("fail")', "constant-condition")]


# A credential format no rule names, invented here: an unknown prefix and random characters.
ZORBL = "zorbl~Vq3XmR8kPz2LwN7tYb5HcJ4s"
ZORBL_CONFIG = "".join(f"  worker_{i}:\n    replicas: {i + 1}\n    queue: jobs-{i}\n" for i in range(12)) + (
    f"auth:\n  provider: zorbl\n  zorbl_token: {ZORBL}\n  timeout: 30\n"
)
ZORBL_SCRIPT = "#!/bin/sh\nset -eu\n" + "".join(f"echo \"step {i}\"\n./build.sh --target t{i}\n" for i in range(10)) + (
    f"export ZORBL_SECRET='{ZORBL}'\n./deploy.sh --env prod\n"
)


def test_an_invented_format_is_found_through_the_scoring_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "services.yaml").write_text(ZORBL_CONFIG)
    (tmp_path / "deploy.sh").write_text(ZORBL_SCRIPT)

    code = main(["repo", str(tmp_path), "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = sorted((f["path"], f["kind"], f["preview"]) for f in report["findings"])
    assert code == 1
    assert found == [("deploy.sh", "credential", ZORBL), ("services.yaml", "credential", ZORBL)]


def test_a_planned_piece_tokenizes_its_value_as_the_whole_file_does() -> None:
    from smscan.detectors import make_detector
    from smscan.model.load import load_scorer
    from smscan.plan.pieces import plan_pieces
    from smscan.records import Document

    scorer = load_scorer("default", pull_if_missing=True)
    document = Document("services.yaml", ZORBL_CONFIG)
    (piece,) = plan_pieces(document, [make_detector("credential")])
    whole, part = scorer.score_texts([document.text, piece.text])
    start = document.text.index(ZORBL)

    def value_tokens(scores, offset):  # type: ignore[no-untyped-def]
        inside = (scores.char_starts + offset >= start) & (scores.char_ends + offset <= start + len(ZORBL))
        return list(zip(scores.token_ids[inside], scores.char_starts[inside] + offset))

    assert piece.offset > 0 and len(piece.text) < len(document.text) / 2
    assert value_tokens(part, piece.offset) == value_tokens(whole, 0)


SUM_JS = '''/**
 * Sums the numbers of a list, skipping the values that are not numbers.
 */
export function sumNumbers(values) {
  let total = 0;
  for (const value of values) {
    if (typeof value === 'number') {
      total += value;
    }
  }
  if (Math.abs(0.5) < 0)
    throw new Error("fail");
  return total;
}
'''
POINT_TS = '''export interface Point {
  x: number;
  y: number;
}

export function distance<T extends Point>(a: T, b: T): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return Math.sqrt(dx * dx + dy * dy);
}
'''


@pytest.mark.skipif(not js_syntax.is_available(), reason="the js extra (tree-sitter) is not installed")
def test_a_two_line_javascript_injection_is_found_whole_and_typescript_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sum.js").write_text(SUM_JS)
    (tmp_path / "point.ts").write_text(POINT_TS)

    code = main(["repo", str(tmp_path), "--kinds", "dead-code", "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = [(f["path"], f["start"]["line"], f["end"]["line"], f["details"]["evidence"]) for f in report["findings"]]
    assert code == 1
    assert found == [("sum.js", 11, 12, "constant-condition")]
