"""Bad input: one clear line on stderr, exit 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from smscan.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (lambda tmp: None, ["repo", "{tmp}/missing"], "no such directory"),
        (lambda tmp: _write(tmp / "f.txt", "x"), ["repo", "{tmp}/f.txt"], "not a directory"),
        (
            lambda tmp: _write(tmp / ".smscan.toml", "treshold = 5\n"),
            ["repo", "{tmp}"],
            "unknown key 'treshold'",
        ),
        (
            lambda tmp: _write(tmp / ".smscan.toml", "threshold = 'high'\n"),
            ["repo", "{tmp}"],
            "'threshold' must be a number",
        ),
        (
            lambda tmp: _write(tmp / "pyproject.toml", "[tool.smscan]\nwindow = 0\n"),
            ["repo", "{tmp}"],
            "window must be",
        ),
        (lambda tmp: _write(tmp / ".smscan.toml", "model = [\n"), ["repo", "{tmp}"], "not valid TOML"),
        (lambda tmp: _write(tmp / ".smscan.toml", "threads = -1\n"), ["repo", "{tmp}"], "threads must be"),
        (lambda tmp: _write(tmp / ".smscan.toml", "threads = 1.5\n"), ["repo", "{tmp}"], "'threads' must be an integer"),
        (lambda tmp: None, ["repo", "{tmp}", "--device", "tpu"], "device must be one of"),
        (lambda tmp: None, ["repo", "{tmp}", "--dtype", "int4"], "dtype must be one of"),
        (lambda tmp: None, ["repo", "{tmp}", "--format", "xml"], "Invalid value"),
        (lambda tmp: None, ["repo", "{tmp}", "--config", "{tmp}/nope.toml"], "config file not found"),
        (lambda tmp: None, ["no-such-command"], "No such command"),
        (
            lambda tmp: _write(tmp / "labels.jsonl", '{"code": "x = 1\\n", "poisoned_lines": []}\n'),
            ["eval", "--kind", "dead-code", "--labels", "{tmp}/labels.jsonl", "--format", "sarif"],
            "eval reports metrics, not findings",
        ),
    ],
)
def test_bad_input_exits_2_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup, args: list[str], message: str
) -> None:
    setup(tmp_path)
    code, out, err = run_cli([a.replace("{tmp}", str(tmp_path)) for a in args], capsys)
    assert code == 2, err
    assert message in err
    assert "Traceback" not in err + out


def test_empty_folder_is_a_clean_scan_that_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["repo", str(tmp_path)], capsys)
    assert code == 0, err
    assert "nothing to scan" in out


def test_help_does_not_import_torch() -> None:
    probe = (
        "import sys\n"
        "from smscan.cli import main\n"
        "import smscan.engine, smscan.judge.scan\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("repo", "[env: SMSCAN_MODEL]"),
        ("repo", "[tool.smscan]"),
        ("export", "[default: OUT.rejects.jsonl]"),
        ("calibrate", "[default: 4]"),
    ],
)
def test_help_keeps_square_brackets(command: str, shown: str) -> None:
    # Rich markup reads "[...]" as a style tag and drops it unless escaped.
    out = subprocess.run(
        [sys.executable, "-c", f"from smscan.cli import main; main([{command!r}, '--help'])"],
        capture_output=True, text=True,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"},
    )
    assert shown in out.stdout, out.stdout + out.stderr
