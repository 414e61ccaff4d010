"""--labels: target coverage and collateral masking of an export, in code points."""

from __future__ import annotations

import json
from pathlib import Path

from smscan.calibration.labels import LabelledText
from smscan.cli import main
from smscan.exports.coverage import coverage_report, measure, target_spans

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


def test_measure_counts_target_and_collateral_code_points() -> None:
    assert measure(10, [(2, 6)], [(4, 8)]) == (4, 2, 6, 2)
    assert measure(5, [], []) == (0, 0, 5, 0)


def test_dead_code_lines_become_their_visible_content() -> None:
    document = LabelledText("x", "a = 1\n    dead()  \nb\n", lines=(2,), shape="lines")
    assert target_spans(document) == [(10, 16)]


def test_export_reports_coverage_against_labels(tmp_path: Path, fake_scorer, capsys) -> None:
    text = f"x = 1\ntoken = '{KEY}'\ny = 2\n"
    start = text.index(KEY)
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n" + json.dumps({"text": "z = 3\n"}) + "\n")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"text": text, "spans": [{"start": start, "end": start + len(KEY)}]}) + "\n")
    code = main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3",
                 "--labels", str(labels)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched_texts"] == 1 and report["target_coverage"] == 1.0
    assert 0 < report["collateral_rate"] < 1
    assert report == coverage_report(tmp_path / "out.jsonl", labels)
