"""`--thresholds FILE` gives a scan the file's raw surprise entry, as it gives an export."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write_files
from tests.scorers import RandomWordScorer
from tests.test_rules import KEY, write_thresholds


def test_a_scan_reads_the_surprise_entry_of_the_thresholds_flag(cli, tmp_path: Path) -> None:
    # A random word's windows average 3.75 nats: found at the file's 3.0, not at the default 6.0.
    write_files(tmp_path / "project", {"a.py": f"token = '{KEY}'\nprint(token)\n"})
    thresholds = write_thresholds(tmp_path / "t.json", RandomWordScorer.fingerprint, threshold=3.0)
    result = cli("repo", str(tmp_path / "project"), "--kinds", "surprise", "--format", "json", "--thresholds", str(thresholds))
    assert result.code == 1, result.err
    rule = json.loads(result.out)["rule"]["surprise"]
    assert rule["threshold"] == 3.0


def test_the_threshold_flag_still_beats_the_file(cli, tmp_path: Path) -> None:
    write_files(tmp_path / "project", {"a.py": f"token = '{KEY}'\n"})
    thresholds = write_thresholds(tmp_path / "t.json", RandomWordScorer.fingerprint, threshold=3.0)
    result = cli("repo", str(tmp_path / "project"), "--kinds", "surprise", "--format", "json",
                 "--thresholds", str(thresholds), "--threshold", "5")
    assert result.code == 0, result.err
    assert json.loads(result.out)["rule"]["surprise"]["threshold"] == 5.0
