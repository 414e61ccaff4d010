"""--labels: target coverage and collateral masking of an export, in code points, reference tokens
and downstream tokens (paper figure 4)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from smscan.sources.labels import LabelledText
from smscan.errors import SmscanError
from smscan.exports.coverage import coverage_report, measure, measure_tokens, target_spans
from tests.scorers import TOKEN

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
TEXT = f"x = 1\ntoken = '{KEY}'\ny = 2\n"


def write_labels(path: Path, texts: list[str]) -> Path:
    rows = []
    for text in texts:
        start = text.index(KEY)
        rows.append({"text": text, "spans": [{"start": start, "end": start + len(KEY)}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_measure_counts_target_and_collateral_code_points() -> None:
    assert measure(10, [(2, 6)], [(4, 8)]) == (4, 2, 6, 2)
    assert measure(5, [], []) == (0, 0, 5, 0)


def test_measure_tokens_counts_overlapping_tokens_and_skips_zero_width_ones() -> None:
    offsets = np.array([[0, 0], [0, 2], [2, 4], [4, 6], [6, 8]])
    # Token [2, 4) overlaps the target by one code point; the special token [0, 0) counts nowhere.
    counts = measure_tokens(offsets, [(3, 5), (4, 6)], np.array([True, False, True, False, True]))
    assert counts == (2, 1, 2, 1)


def test_dead_code_lines_become_their_visible_content() -> None:
    document = LabelledText("x", "a = 1\n    dead()  \nb\n", lines=(2,), shape="lines")
    assert target_spans(document) == [(10, 16)]


def test_export_reports_coverage_in_code_points_and_reference_tokens(tmp_path: Path, cli, capsys) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n" + json.dumps({"text": "z = 3\n"}) + "\n")
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT])
    code = cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3",
                 "--labels", str(labels)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched_texts"] == 1 and report["target_coverage"] == 1.0 and report["unit"] == "code point"
    assert 0 < report["collateral_rate"] < 1
    # The fake tokens: the key is one token; the four 4-token windows holding it reach the
    # threshold, so it and the three tokens on each side are masked.
    tokens = [m.group() for m in TOKEN.finditer(TEXT)]
    assert report["reference_tokens"] == {
        "targets": 1, "others": len(tokens) - 1, "masked": 7,
        "target_coverage": 1.0, "collateral_rate": round(6 / (len(tokens) - 1), 6),
    }
    assert "downstream_tokens" not in report


def test_chats_are_matched_on_supervised_messages_only(tmp_path: Path, cli, capsys) -> None:
    # The user repeats the labelled text; only the assistant's copy is trained on, so only it counts.
    chat = {"messages": [{"role": "user", "content": TEXT}, {"role": "assistant", "content": TEXT}]}
    (tmp_path / "in.jsonl").write_text(json.dumps(chat) + "\n")
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT])
    assert cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3",
                 "--labels", str(labels)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched_texts"] == 1 and report["reference_tokens"]["target_coverage"] == 1.0


def test_downstream_tokens_are_counted_from_the_written_labels(
    tmp_path: Path, cli, tiny_model_dir: Path, capsys
) -> None:
    from transformers import AutoTokenizer

    other = f"import os\n\nsecret = '{KEY}'\nprint(secret)\n"
    (tmp_path / "in.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in (TEXT, other)))
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT, other])
    args = ["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3",
            "--tokenizer", str(tiny_model_dir), "--labels", str(labels)]
    assert cli.main(args) == 0
    report = json.loads(capsys.readouterr().out)["downstream_tokens"]

    # The same figures, counted here token by token from the written records.
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_model_dir))
    target = covered = other_tokens = collateral = 0
    for line in (tmp_path / "out.jsonl").read_text().splitlines():
        record = json.loads(line)
        start = record["text"].index(KEY)
        offsets = tokenizer(record["text"], return_offsets_mapping=True)["offset_mapping"]
        for (a, b), label in zip(offsets, record["labels"]):
            if a == b:
                continue
            is_target = a < start + len(KEY) and b > start
            target += is_target
            covered += is_target and label == -100
            other_tokens += not is_target
            collateral += (not is_target) and label == -100
    assert report["tokenizer"] == str(tiny_model_dir)
    assert (report["targets"], report["others"]) == (target, other_tokens)
    assert report["target_coverage"] == round(covered / target, 6) == 1.0
    assert report["collateral_rate"] == round(collateral / other_tokens, 6) > 0


def test_downstream_figures_need_the_tokenizer_the_export_used(
    tmp_path: Path, cli, tiny_model_dir: Path, capsys
) -> None:
    from smscan.exports.labels import DownstreamLabeler

    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT])
    assert cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3"]) == 0
    with pytest.raises(SmscanError, match="were not written by --tokenizer"):
        coverage_report(tmp_path / "out.jsonl", labels, downstream=DownstreamLabeler(str(tiny_model_dir)))


def test_parquet_exports_are_measured_like_jsonl(tmp_path: Path, cli, capsys) -> None:
    pytest.importorskip("pyarrow")
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT])
    for name in ("out.jsonl", "out.parquet"):
        assert cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / name), "--threshold", "3"]) == 0
    assert coverage_report(tmp_path / "out.parquet", labels) == coverage_report(tmp_path / "out.jsonl", labels)


def test_no_matching_text_is_an_error(tmp_path: Path, cli, capsys) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": "z = 3\n"}) + "\n")
    labels = write_labels(tmp_path / "labels.jsonl", [TEXT])
    code = cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3",
                 "--labels", str(labels)])
    err = capsys.readouterr().err
    assert code == 2 and "no exported text matches a labelled text" in err and "Traceback" not in err
