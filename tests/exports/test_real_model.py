"""One export with the real default model (marked `model`; CI runs it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.cli import main

SECRET = "q8Zt3xLw9PvK2mRbX7nH"


@pytest.mark.model
def test_real_model_masks_a_random_secret_and_labels_it(tmp_path: Path, capsys) -> None:
    from smscan.model.pull import pull_default_model

    model_dir = pull_default_model()
    text = f"import os\n\nAPI_TOKEN = '{SECRET}'\n\n\ndef main():\n    return os.getcwd()\n"
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n")
    code = main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--device", "cpu",
                 "--deterministic", "--threshold", "3.8", "--tokenizer", str(model_dir)])
    assert code == 0, capsys.readouterr().err
    (record,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    spans = record["smscan"]["masked_spans"]
    start = text.index(SECRET)
    covered = sum(max(0, min(b, start + len(SECRET)) - max(a, start)) for a, b in spans)
    assert covered >= len(SECRET) // 2
    assert record["smscan"]["masked_fraction"] < 0.9
    assert record["smscan"]["model"]["dtype"] == "fp32"
    assert -100 in record["labels"] and len(record["labels"]) == len(record["input_ids"])


@pytest.mark.model
def test_packaged_operating_point_needs_no_thresholds_file(tmp_path: Path, capsys) -> None:
    from smscan.rules.thresholds_file import packaged_thresholds

    paper = packaged_thresholds()["kinds"]["surprise"]
    text = f"import os\n\nAPI_TOKEN = '{SECRET}'\n"
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n")
    # Each masking reads its own operating point (calibration/maskings.py): the default (values)
    # its code and value thresholds, --masking paper the raw rule's threshold.
    for masking, entry in (("values", paper["values"]), ("paper", paper)):
        sm90 = entry["operating_points"]["SM90"]
        code = main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--device", "cpu",
                     "--operating-point", "SM90", "--masking", masking])
        assert code == 0, capsys.readouterr().err
        (record,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
        rule = record["smscan"]["rule"]["surprise"]
        assert rule["threshold"] == sm90["threshold"]
        assert rule.get("value_threshold") == sm90.get("value_threshold")
        assert record["smscan"]["masked_spans"]
