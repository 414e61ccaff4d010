"""`smscan serve` bad input, and scans with no worker running (in-process, as before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.cli.serve import parse_duration
from tests.cli_runner import Cli
from tests.scorers import THRESHOLD_ARGS


@pytest.mark.parametrize(("text", "seconds"), [("900", 900.0), ("90s", 90.0), ("15m", 900.0), ("1h", 3600.0), ("0.5", 0.5)])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("args", "config", "message"),
    [
        (["serve", "--idle-timeout", "soon"], None, "give a positive duration"),
        (["serve", "--idle-timeout", "0"], None, "give a positive duration"),
        (["serve", "--stop", "--status"], None, "choose one of"),
        (["serve", "--status"], 'worker = "always"\n', "worker must be one of off, use, auto"),
        (["files", "a.py"], "worker = 1\n", "'worker' must be a string"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli: Cli, args: list[str], config: str | None, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    if config is not None:
        (tmp_path / ".smscan.toml").write_text(config, encoding="utf-8")
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_status_with_no_worker_says_so(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["serve", "--status"]) == 1
    assert "no worker running for model default" in capsys.readouterr().out


def test_a_scan_without_a_worker_scores_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text("KEY = 'AKIA0123456789abcdefXYZ0123'\n", encoding="utf-8")
    assert cli.main(["files", "app.py", *THRESHOLD_ARGS]) == 1
    assert cli.scorer.texts  # scored here: no worker runs (the run dir does not exist)
