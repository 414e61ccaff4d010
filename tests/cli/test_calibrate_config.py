"""`smscan calibrate --kind surprise` calibrates the rule a scan or export of the same repository
masks with: the flags, else the config's window, consensus and propagation, else the defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_calibrate import KEYS
from tests.conftest import write_key_labels


@pytest.fixture
def span_labels(tmp_path: Path) -> Path:
    return write_key_labels(tmp_path / "labels.jsonl", KEYS)


def test_the_config_rule_is_calibrated(cli, tmp_path: Path, span_labels: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".smscan.toml").write_text("window = 2\nconsensus = 2\npropagate = false\n")
    result = cli("calibrate", "--kind", "surprise", "--labels", str(span_labels), "--folds", "2", "-o", "t.json",
                 "--score-cache", str(tmp_path / "cache"))
    assert result.code == 0, result.err
    entry = json.loads((tmp_path / "t.json").read_text())["kinds"]["surprise"]
    # The value-aware default adds its masking and value threshold to the rule.
    assert {k: v for k, v in entry["rule"].items() if k not in ("masking", "value_threshold")} == {
        "kind": "surprise", "ranking": "global", "window": 2, "consensus": 2, "propagate": False}
    assert entry["rule"]["masking"] == "values"


def test_a_flag_beats_the_config(cli, tmp_path: Path, span_labels: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".smscan.toml").write_text("window = 2\n")
    result = cli("calibrate", "--kind", "surprise", "--labels", str(span_labels), "--folds", "2", "--window", "4",
                 "-o", "t.json", "--score-cache", str(tmp_path / "cache"))
    assert result.code == 0, result.err
    assert json.loads((tmp_path / "t.json").read_text())["kinds"]["surprise"]["rule"]["window"] == 4
