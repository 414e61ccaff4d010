"""calibrate, eval, and a scan with the thresholds they made, through `main` with the fake scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.cli import main
from tests.scorers import RandomWordScorer

KEYS = ["q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7", "Hn4Bd0wLm9Rv2q8Zt3kPxYc7"]


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    rows = []
    for index, key in enumerate(KEYS):
        text = f'import os\napi_key = "{key}"\nname = "plain words"\n'
        start = text.index(key)
        rows.append({"text": text, "path": f"pkg{index}/a.py",
                     "spans": [{"start": start, "end": start + len(key), "category": "token"}]})
    rows.append({"text": "x = 1\ny = 'no secret here'\n", "path": "pkg9/b.py", "spans": []})
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_calibrate_then_eval_then_scan(
    tmp_path: Path, labels: Path, fake_scorer: RandomWordScorer, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    thresholds = tmp_path / "thresholds.json"
    cache = ["--score-cache", str(tmp_path / "cache")]

    assert main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(thresholds), *cache]) == 0

    entry = json.loads(thresholds.read_text())["kinds"]["credential"]
    # The key: one token of NLL 12 over 24 characters (0.5 nats/char) plus the secret-name bonus 1.
    assert entry["threshold"] == 1.5
    assert entry["fingerprint"] == RandomWordScorer.fingerprint
    assert entry["validation"]["char"]["f1"] == 1.0
    assert entry["examples"] == 4
    assert entry["command"].startswith("smscan calibrate --kind credential")
    capsys.readouterr()

    assert main(["eval", "--kind", "credential", "--labels", str(labels), "--thresholds", str(thresholds),
                 "--format", "json", *cache]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["char"]["tpr"] == 1.0 and result["char"]["fp"] == 0
    assert result["per_category_recall"] == {"token": 1.0}

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "settings.py").write_text(f'TOKEN = "{KEYS[0]}"\n')
    code = main(["repo", str(tmp_path / "src"), "--kinds", "credential", "--thresholds", str(thresholds), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(f["kind"], f["char_start"], f["char_end"]) for f in report["findings"]] == [("credential", 9, 33)]
    assert report["rule"]["kinds"] == ["credential"]
    assert report["rule"]["credential"]["threshold"] == 1.5


def test_a_thresholds_file_for_another_model_is_refused(
    tmp_path: Path, labels: Path, fake_scorer: RandomWordScorer, capsys: pytest.CaptureFixture[str]
) -> None:
    thresholds = tmp_path / "t.json"
    thresholds.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {
        "credential": {"fingerprint": "sha256:someothermodel", "rule": {}, "threshold": 5.0}}}))
    (tmp_path / "a.py").write_text("x = 1\n")

    code = main(["repo", str(tmp_path), "--thresholds", str(thresholds), "--kinds", "credential"])

    err = capsys.readouterr().err
    assert code == 2
    assert "sha256:someothermodel" in err and RandomWordScorer.fingerprint in err
    assert "smscan calibrate --kind credential" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "secrets"], "--kind must be one of credential, dead-code"),
        (["--kind", "credential"], "exactly one of --labels FILE and --synthetic PATH"),
        (["--kind", "credential", "--best-f1", "--target-recall", "0.9", "--labels", "x"], "at most one of"),
        (["--kind", "credential", "--target-recall", "1.5", "--labels", "x"], "unknown criterion"),
    ],
)
def test_bad_calibrate_arguments(
    tmp_path: Path, args: list[str], message: str, fake_scorer: RandomWordScorer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", *args, "-o", str(tmp_path / "t.json")]) == 2
    assert message in capsys.readouterr().err


def test_dead_code_labels_are_refused_for_the_credential_kind(
    tmp_path: Path, fake_scorer: RandomWordScorer, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "dead.jsonl"
    labels.write_text(json.dumps({"code": "def f():\n    return 1\n", "poisoned_lines": [2]}) + "\n")

    assert main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(tmp_path / "t.json")]) == 2
    assert "needs credential rows" in capsys.readouterr().err
