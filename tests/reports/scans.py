"""A fixed scan for report tests: the real pipeline on fixture files, with the fake scorer.

``fixture_scan()`` scans three small files with :class:`tests.scorers.RandomWordScorer`, raw
surprise at threshold 3 and the credential and dead-code detectors at thresholds chosen for the
fake scorer, plus one skipped file; its time is pinned so reports are reproducible.
"""

from __future__ import annotations

from typing import Any

from smscan.detectors import make_detector
from smscan.engine.masking import MaskRule as SurpriseRule
from smscan.judge.scan import scan
from smscan.records import Detection, ScanResult
from smscan.records import Document, Skip
from tests.scorers import RandomWordScorer

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
LONG_LINE_SECRET = "Zx81Kq0pLm3Nr7Tv5Wc2Yb9"

SETTINGS_PY = f'''import os

DATABASE_URL = os.environ.get("DATABASE_URL")
api_key = "{SECRET}"


def connect(retries):
    return open_connection(api_key, retries)
    print("unreachable")
'''

WIDE_PY = (
    "def wide():\n"
    "    return configure(alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6, eta=7, theta=8, "
    f'token="{LONG_LINE_SECRET}", iota=9, kappa=10, lambda_=11, mu=12, nu=13, xi=14, omicron=15)\n'
)

PLAIN_PY = "def add(a, b):\n    return a + b\n"

MODEL: dict[str, Any] = {"name": "random-word-scorer", "fingerprint": "sha256:random-word-scorer", "device": "cpu"}


def fixture_documents() -> list[Document | Skip]:
    return [
        Document("app/plain.py", PLAIN_PY, group="repo"),
        Document("app/settings.py", SETTINGS_PY, group="repo"),
        Document("app/wide.py", WIDE_PY, group="repo"),
        Skip("assets/logo.png", "binary"),
    ]


def fixture_rules() -> tuple[SurpriseRule, tuple[Detection, ...]]:
    return (
        SurpriseRule(window=4, threshold=3.0),
        (
            # The window statistic with whole-nat evidence: the numbers the goldens were drawn with.
            Detection(make_detector("credential", {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}), 3.0, "test"),
            Detection(make_detector("dead-code", {"evidence_bonus": 2.0}), 2.8, "test"),
        ),
    )


def rule_dict() -> dict[str, Any]:
    """The report's ``rule`` object, written out (reports only copy it; goldens stay put when a
    detector gains a parameter)."""
    return {
        "kinds": ["surprise", "credential", "dead-code"],
        "surprise": {"kind": "surprise", "rule": "global", "window": 4, "threshold": 3.0, "consensus": 1, "propagate": True},
        "credential": {"kind": "credential", "rule": "credential-slots", "threshold": 3.0, "thresholds": "test"},
        "dead-code": {"kind": "dead-code", "rule": "line-mean-nll", "evidence_bonus": 2.0, "threshold": 2.8, "thresholds": "test"},
    }


def fixture_scan(documents: list[Document | Skip] | None = None) -> ScanResult:
    """The scan of the fixture files (or of ``documents``), with 2.0 seconds recorded."""
    surprise, detections = fixture_rules()
    result = scan(documents or fixture_documents(), RandomWordScorer(), surprise, detections=detections)
    result.stats.seconds = 2.0
    return result
