"""One surprise entry per masking: --operating-point means the same recall under --masking values and paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.rules.maskings import with_other_masking
from smscan.rules.thresholds_file import (
    OPERATING_POINTS,
    packaged_thresholds,
    write_entry,
)
from smscan.config.settings import Settings
from smscan.errors import ThresholdsError
from smscan.rules.flags import RuleFlags
from smscan.rules.resolve import resolve_surprise
from tests.cli_runner import Cli
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


def paper_entry(fingerprint: str = "fp") -> dict:
    return {"fingerprint": fingerprint, "rule": {"window": 2, "consensus": 1, "propagate": True}, "threshold": 3.5,
            "operating_points": {"SM95": {"threshold": 2.5}}}


def values_entry(fingerprint: str = "fp") -> dict:
    return {"fingerprint": fingerprint, "threshold": 12.0,
            "rule": {"window": 4, "consensus": 1, "propagate": True, "masking": "values", "value_threshold": 2.7},
            "operating_points": {"SM95": {"threshold": 11.0, "value_threshold": 3.1}}}


def test_the_packaged_points_differ_by_masking() -> None:
    surprise = packaged_thresholds()["kinds"]["surprise"]
    fingerprint = surprise["fingerprint"]
    paper = resolve_surprise(Settings(), root=Path("/nonexistent"), fingerprint=fingerprint,
                             flags=RuleFlags(operating_point="SM95", masking="paper"))
    values = resolve_surprise(Settings(), root=Path("/nonexistent"), fingerprint=fingerprint,
                              flags=RuleFlags(operating_point="SM95", masking="values"))
    assert paper.threshold == surprise["operating_points"]["SM95"]["threshold"] and paper.value_threshold is None
    point = surprise["values"]["operating_points"]["SM95"]
    # Value-aware masking picks its own point: a far stricter code threshold and a value threshold.
    assert (values.threshold, values.value_threshold) == (point["threshold"], point["value_threshold"])
    assert values.threshold > paper.threshold + 5
    # Each point was chosen for its recall under its own masking.
    for name, recall in OPERATING_POINTS.items():
        assert surprise["operating_points"][name]["tpr"] >= recall
        assert surprise["values"]["operating_points"][name]["tpr"] >= recall
        assert surprise["values"]["operating_points"][name]["fpr"] < surprise["operating_points"][name]["fpr"]


def test_calibrating_one_masking_keeps_the_others_entry(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    write_entry(path, "surprise", paper_entry())
    write_entry(path, "surprise", with_other_masking(path, values_entry()))
    saved = json.loads(path.read_text())["kinds"]["surprise"]
    assert saved["rule"]["masking"] == "values" and saved["paper"]["threshold"] == 3.5
    # Calibrating the paper's rule again replaces it and keeps the value-aware entry nested.
    write_entry(path, "surprise", with_other_masking(path, {**paper_entry(), "threshold": 4.0}))
    saved = json.loads(path.read_text())["kinds"]["surprise"]
    assert saved["threshold"] == 4.0 and saved["values"]["threshold"] == 12.0 and "paper" not in saved
    for masking, expected in (("paper", (2.5, None)), ("values", (11.0, 3.1))):
        resolved = resolve_surprise(Settings(), root=tmp_path, fingerprint="fp",
                                    flags=RuleFlags(thresholds=path, operating_point="SM95", masking=masking))
        assert (resolved.threshold, resolved.value_threshold) == expected


def test_a_value_aware_entry_alone_is_refused_for_the_papers_rule(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    write_entry(path, "surprise", values_entry())
    with pytest.raises(ThresholdsError, match="calibrated for --masking values, not --masking paper"):
        resolve_surprise(Settings(), root=tmp_path, fingerprint="fp", flags=RuleFlags(thresholds=path, masking="paper"))
    # With --threshold the entry's threshold is not used: its window still is.
    flagged = resolve_surprise(Settings(), root=tmp_path, fingerprint="fp",
                               flags=RuleFlags(thresholds=path, masking="paper", threshold=3.0))
    assert (flagged.threshold, flagged.window) == (3.0, 4)
    # A paper entry alone still serves value-aware masking: its threshold holds the code.
    write_entry(path, "surprise", paper_entry())
    resolved = resolve_surprise(Settings(), root=tmp_path, fingerprint="fp", flags=RuleFlags(thresholds=path, masking="values"))
    assert (resolved.threshold, resolved.value_threshold) == (3.5, None)


def test_export_picks_the_point_of_its_masking(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "t.json"
    write_entry(path, "surprise", {**values_entry(RandomWordScorer.fingerprint), "paper": paper_entry(RandomWordScorer.fingerprint)})
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": f"k = '{KEY}'\n"}) + "\n")
    args = ["export", str(tmp_path / "in.jsonl"), "--thresholds", str(path), "--operating-point", "SM95"]
    for masking, threshold in (("values", 11.0), ("paper", 2.5)):
        out = tmp_path / f"{masking}.jsonl"
        assert cli.main([*args, "-o", str(out), "--masking", masking]) == 0
        rule = json.loads(out.read_text())["smscan"]["rule"]["surprise"]
        assert rule["threshold"] == threshold and rule["masking"] == masking
        assert rule.get("value_threshold") == (3.1 if masking == "values" else None)
