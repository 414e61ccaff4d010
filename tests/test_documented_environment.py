"""The environment variables the documentation names are the ones the code reads.

The score cache was documented as ``SMSCAN_CACHE_DIR`` while scans read ``SMSCAN_SCORE_CACHE``;
this keeps every ``SMSCAN_*`` name in README.md and docs/ tied to code that reads it.
"""

from __future__ import annotations

import re
from pathlib import Path

from smscan.scoring.cache import default_cache_dir

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"\bSMSCAN_[A-Z0-9_]+\b")


def _names(paths: list[Path]) -> set[str]:
    return {name for path in paths for name in NAME.findall(path.read_text(encoding="utf-8"))}


def test_every_documented_variable_is_read_by_the_code() -> None:
    documented = _names([ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    code = [*(ROOT / "smscan").rglob("*.py"), *(ROOT / "hooks").iterdir(), ROOT / "action.yml", *(ROOT / "tests").rglob("*.py")]
    read = _names([path for path in code if path.is_file() and path != Path(__file__)])
    assert "SMSCAN_SCORE_CACHE" in documented
    assert documented - read == set()


def test_the_score_cache_variable_moves_the_cache(tmp_path: Path) -> None:
    assert default_cache_dir({"SMSCAN_SCORE_CACHE": str(tmp_path)}) == tmp_path
    assert default_cache_dir({"SMSCAN_CACHE_DIR": str(tmp_path)}) != tmp_path
