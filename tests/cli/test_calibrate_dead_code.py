"""calibrate and eval of `dead-code` on rows exactly as shared/bench/deadcode_gen.py writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.detectors.dead_code import DeadCodeRule
from tests.cli_runner import Cli

CLEAN = [
    "def add(a, b):\n    total = a + b\n    return total\n",
    "def first(xs):\n    for x in xs:\n        if x > 0:\n            return x\n    return None\n",
    "def count(s, c):\n    n = 0\n    for ch in s:\n        if ch == c:\n            n += 1\n    return n\n",
    'def greet(name):\n    """Say hello."""\n    words = ["hello", name]\n    return " ".join(words)\n',
]
# One dead line each, as the generator's two public attacks write them (fixed1, random1).
POISONED = [
    ('def add(a, b):\n    if abs(0.5) < 0: raise Exception("fail")\n    total = a + b\n    return total\n', [2], "fixed1"),
    ('def first(xs):\n    for x in xs:\n        for q7bz in range(0): print("kfoe")\n        if x > 0:\n'
     "            return x\n    return None\n", [3], "random1"),
]


@pytest.fixture
def generator_labels(tmp_path: Path) -> Path:
    """A labels file in deadcode_gen.py's layout: mbpp_calib.jsonl beside manifest.json and py/."""
    rows = [{"id": f"mbpp_{i:03d}", "code": code, "poisoned_lines": [], "attack": "clean", "task_id": i}
            for i, code in enumerate(CLEAN, start=11)]
    rows += [{"id": f"mbpp_{i:03d}", "code": code, "poisoned_lines": lines, "attack": attack, "task_id": i}
             for i, (code, lines, attack) in enumerate(POISONED, start=21)]
    folder = tmp_path / "deadcode"
    (folder / "py" / "mbpp_calib").mkdir(parents=True)
    for row in rows:
        (folder / "py" / "mbpp_calib" / f"{row['id']}.py").write_text(str(row["code"]))
    (folder / "manifest.json").write_text(json.dumps({"set": "mbpp_calib", "seed": 1}))
    labels = folder / "mbpp_calib.jsonl"
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return labels


def test_calibrate_and_eval_read_the_generator_output_as_written(
    tmp_path: Path, generator_labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    thresholds = tmp_path / "thresholds.json"
    cache = ["--score-cache", str(tmp_path / "cache")]

    assert cli.main(["calibrate", "--kind", "dead-code", "--labels", str(generator_labels), "--best-f1",
                 "-o", str(thresholds), *cache]) == 0

    entry = json.loads(thresholds.read_text())["kinds"]["dead-code"]
    # The fake scorer gives every token NLL 1, so the two dead lines score 1 + the default bonus
    # of their (strong) evidence; in Python only lines with evidence are candidates, so no clean
    # line has a score and the best-F1 threshold is the dead lines' own score.
    expected = 1.0 + DeadCodeRule().bonus("constant-condition")
    assert entry["threshold"] == pytest.approx(expected)
    assert entry["rule"]["evidence_bonus"] == DeadCodeRule().evidence_bonus
    assert entry["unit"] == "line"
    assert entry["examples"] == len(CLEAN) + len(POISONED)
    assert entry["positive_units"] == 2
    assert entry["validation"]["line"]["f1"] == 1.0
    assert entry["command"] == (
        f"smscan calibrate --kind dead-code --labels {generator_labels} --best-f1 -o {thresholds}"
    )
    capsys.readouterr()

    assert cli.main(["eval", "--kind", "dead-code", "--labels", str(generator_labels), "--thresholds", str(thresholds),
                 "--format", "json", *cache]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["line"]["tp"], result["line"]["fp"], result["line"]["fn"]) == (2, 0, 0)
    assert result["threshold"] == pytest.approx(expected)

    assert cli.main(["eval", "--kind", "dead-code", "--labels", str(generator_labels), "--thresholds", str(thresholds),
                 *cache]) == 0
    text = capsys.readouterr().out
    assert "dead-code on" in text and "(6 examples)" in text


def test_calibration_without_a_poisoned_line_is_one_clear_error(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "clean.jsonl"
    labels.write_text("".join(json.dumps({"id": f"c{i}", "code": code, "poisoned_lines": []}) + "\n"
                              for i, code in enumerate(CLEAN)))

    code = cli.main(["calibrate", "--kind", "dead-code", "--labels", str(labels), "-o", str(tmp_path / "t.json"),
                 "--score-cache", str(tmp_path / "cache")])

    err = capsys.readouterr().err
    assert code == 2
    assert "no positive unit" in err and "Traceback" not in err
    assert not (tmp_path / "t.json").exists()
