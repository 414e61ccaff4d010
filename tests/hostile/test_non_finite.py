"""NaN and infinities are refused wherever numbers are read, naming the file and the key.

Python's json reads ``NaN``, ``Infinity``, ``-Infinity`` (and ``1e999`` as infinity) and TOML
has ``nan``/``inf``; with NaN every comparison is false, so a NaN threshold would switch a
detector off without a word.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.fileio.finite import find_non_finite
from tests.cli_runner import Cli
from tests.conftest import commit_files
from tests.scorers import RandomWordScorer

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e999"]


def thresholds_text(threshold: str) -> str:
    entry = {
        "fingerprint": RandomWordScorer.fingerprint,
        "rule": {"rule": "credential-slots"},
        "threshold": "@",
    }
    document = {"format": "smscan-thresholds", "version": 1, "kinds": {"credential": entry}}
    return json.dumps(document).replace('"@"', threshold)


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    commit_files(git_repo, {"a.py": f"key = '{SECRET}'\n"})
    monkeypatch.chdir(git_repo)
    return git_repo


def run(cli: Cli, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.err


@pytest.mark.parametrize("value", NON_FINITE)
def test_a_non_finite_threshold_in_a_thresholds_file_is_refused(cli: Cli, repo: Path, capsys, value: str) -> None:
    (repo / "t.json").write_text(thresholds_text("3.5"))
    code, err = run(cli, capsys, "repo", ".", "--kinds", "credential", "--thresholds", "t.json", "--format", "json")
    assert code != 2, err  # the same file with a finite threshold is read
    (repo / "t.json").write_text(thresholds_text(value))
    code, err = run(cli, capsys, "repo", ".", "--kinds", "credential", "--thresholds", "t.json")
    assert code == 2
    assert "t.json" in err and "'kinds.credential.threshold' is not a finite number" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("file", "text", "key"),
    [
        (".smscan.toml", "threshold = nan\n", "'threshold'"),
        (".smscan.toml", "threshold = -inf\n", "'threshold'"),
        ("pyproject.toml", "[tool.smscan]\nthreshold = inf\n", "'threshold'"),
    ],
)
def test_a_non_finite_number_in_config_is_refused(cli: Cli, repo: Path, capsys, file: str, text: str, key: str) -> None:
    (repo / file).write_text(text)
    code, err = run(cli, capsys, "repo", ".")
    assert code == 2 and file in err and f"key {key} is not a finite number" in err


def test_another_tools_table_in_pyproject_may_hold_nan(cli: Cli, repo: Path, capsys) -> None:
    (repo / "pyproject.toml").write_text("[tool.other]\nx = nan\n[tool.smscan]\nthreshold = 3.0\nkinds = ['surprise']\n")
    code, err = run(cli, capsys, "repo", ".")
    assert code == 1, err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
@pytest.mark.parametrize(
    "args",
    [
        ["repo", ".", "--threshold"],
        ["staged", "--threshold"],
        ["export", "data.jsonl", "--rank-max"],
        ["calibrate", "credential", "--max-fpr"],
    ],
)
def test_a_non_finite_number_on_the_command_line_is_refused(cli: Cli, repo: Path, capsys, args: list[str], value: str) -> None:
    code, err = run(cli, capsys, *args, value)
    assert code == 2 and "is not a finite number" in err


def test_a_non_finite_number_in_labels_is_refused(repo: Path, capsys) -> None:
    from smscan.sources.labels import read_labels
    from smscan.errors import SmscanError

    path = repo / "labels.jsonl"
    path.write_text('{"text": "k = 1", "spans": [{"start": 0, "end": 1}]}\n{"text": "k", "spans": [], "weight": NaN}\n')
    with pytest.raises(SmscanError, match=r"labels.jsonl:2: key 'weight' is not a finite number"):
        read_labels(path)


def test_a_non_finite_number_in_a_baseline_is_refused(cli: Cli, repo: Path, capsys) -> None:
    (repo / "b.json").write_text('{"smscan_baseline": 1, "salt": "00", "entries": [], "x": -Infinity}')
    code, err = run(cli, capsys, "repo", ".", "--baseline", "b.json")
    assert code == 2 and "b.json: key 'x' is not a finite number" in err


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": [1.0, {"b": float("inf")}]}, "a[1].b"),
        ([float("nan")], "[0]"),
        (float("-inf"), "(the top-level value)"),
        ({"a": 1, "b": [2.5, "nan"], "c": None, "d": True}, None),
    ],
)
def test_find_non_finite_names_the_key(value: object, expected: str | None) -> None:
    assert find_non_finite(value) == expected


@pytest.mark.parametrize("key", ["baseline", "thresholds"])
@pytest.mark.parametrize("value", ["/etc/passwd", "../outside.json", "a/../../b.json", "C:/x.json", "\\\\\\\\host\\\\share\\\\x"])
def test_config_paths_must_stay_inside_the_repository(cli: Cli, repo: Path, capsys, key: str, value: str) -> None:
    """A repository's config cannot point smscan at a file elsewhere (`smscan baseline` writes
    the baseline where the config says)."""
    (repo / ".smscan.toml").write_text(f"{key} = {json.dumps(value)}\n")
    for args in (["repo", "."], ["baseline"]):
        code, err = run(cli, capsys, *args)
        assert code == 2 and f"key {key!r} must be a path inside the repository" in err
    assert not (repo.parent / "outside.json").exists()


def test_config_paths_inside_the_repository_are_fine(cli: Cli, repo: Path, capsys) -> None:
    (repo / ".smscan.toml").write_text('baseline = "ci/../ci/b.json"\nthreshold = 3.0\nkinds = ["surprise"]\n')
    code, err = run(cli, capsys, "baseline")
    assert code == 0 and (repo / "ci" / "b.json").is_file(), err
