"""Ctrl-C (a real SIGINT to a real smscan process) during a scan and an export: exit 130, one
line and no traceback, nothing half-written in place of a good file, and an export that
``--resume`` finishes into exactly what an uninterrupted run writes, summary included."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smscan.exports import writer as export_writer
from tests.cli_runner import Cli

ROOT = Path(__file__).resolve().parents[1]
KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
RAW = ["--threshold", "3"]

# The CLI with the stand-in scorer, each scoring call slowed by DELAY seconds; MARK (a file) is
# created when the second call starts, so a test interrupts a run that has stored scores and is
# surely scoring more. A shell starts a background job with SIGINT ignored, and smscan leaves an
# ignored SIGINT alone, so the stand-in takes Ctrl-C as a terminal's foreground run does.
_CLI = """
import os, signal, sys, time
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, even when started as a background job
sys.path.insert(0, {root!r})
from tests.scorers import install_fake_scorer
import smscan.judge.stages
smscan.judge.stages.SCORE_CHARS = 0  # one scoring call per planned group of files, so there are several
scorer = install_fake_scorer()
original = scorer.score_texts
def slow(texts):
    if scorer.texts:
        Path(os.environ["MARK"]).touch()
    result = original(texts)
    time.sleep(float(os.environ["DELAY"]))
    return result
scorer.score_texts = slow
from smscan.cli import main
sys.exit(main(sys.argv[1:]))
"""
_PROGRESS = re.compile(r"^(scanning|exporting) ")


def _env(tmp_path: Path, delay: float) -> dict[str, str]:
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "SMSCAN_CACHE": str(tmp_path / "cache"),
        "SMSCAN_SCORE_CACHE": str(tmp_path / "scores"), "MARK": str(tmp_path / "mark"), "DELAY": str(delay),
    }
    env.pop("CI", None)
    return env


def _command(tmp_path: Path, *args: str) -> list[str]:
    script = tmp_path / "cli.py"
    script.write_text(_CLI.format(root=str(ROOT)))
    return [sys.executable, str(script), *args]


def _interrupt(tmp_path: Path, command: list[str], ready) -> tuple[int, list[str]]:
    """Start ``command`` slowed down, send SIGINT once ``ready()``, return its code and stderr lines."""
    (tmp_path / "mark").unlink(missing_ok=True)
    process = subprocess.Popen(command, env=_env(tmp_path, 0.3), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not ready():
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run never got going"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    return process.returncode, [line for line in stderr.splitlines() if line.strip() and not _PROGRESS.match(line)]


def _project(tmp_path: Path, files: int = 80) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(files):
        value = KEY if i % 5 == 0 else f"plain {i}"
        (project / f"m{i:03}.py").write_text(f"# {i}\nvalue = '{value}'\n", encoding="utf-8")
    return project


def test_ctrl_c_during_a_scan_exits_130_with_one_line_and_keeps_the_old_report(tmp_path: Path) -> None:
    project = _project(tmp_path)
    config = tmp_path / "smscan.toml"
    config.write_text('threshold = 3.0\nkinds = ["surprise"]\nworker = "off"\n')
    report = tmp_path / "report.json"
    report.write_text('{"the": "previous report"}\n')
    scan = _command(tmp_path, "repo", str(project), "--config", str(config), "--format", "json", "-o", str(report))

    code, lines = _interrupt(tmp_path, scan, (tmp_path / "mark").exists)

    assert code == 130
    assert lines == ["smscan: interrupted"]
    assert report.read_text() == '{"the": "previous report"}\n'  # never a partial report
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    with sqlite3.connect(tmp_path / "scores" / "scores.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # The next run completes from a consistent cache, as an uninterrupted one would.
    again = subprocess.run(scan, env=_env(tmp_path, 0.0), capture_output=True, text=True, timeout=300)
    assert again.returncode == 1, again.stderr
    findings = json.loads(report.read_text())["findings"]
    assert sorted(f["path"] for f in findings) == [f"m{i:03}.py" for i in range(0, 80, 5)]


def _summary(stderr: str) -> str:
    [line] = [line for line in stderr.splitlines() if line.startswith("exported ")]
    return line


def test_ctrl_c_during_an_export_says_how_to_resume_and_resume_counts_every_record(tmp_path: Path) -> None:
    records = [{"text": f"n = {i}\nkey = '{KEY if i % 3 else 'short'}'\n", "i": i} for i in range(160)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    full, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    export = ["export", str(source), "--deterministic", "--no-cache", *RAW]
    complete = subprocess.run(_command(tmp_path, *export, "-o", str(full)), env=_env(tmp_path, 0.0),
                              capture_output=True, text=True, timeout=300)
    assert complete.returncode == 0, complete.stderr
    state = tmp_path / ".out.jsonl.state.json"

    def some_written() -> bool:
        try:
            return json.loads(state.read_text())["done"] >= 32
        except (OSError, ValueError):
            return False

    code, lines = _interrupt(tmp_path, _command(tmp_path, *export, "-o", str(out)), some_written)

    assert code == 130
    assert lines == [
        f"smscan: interrupted; the finished part of {out} is kept: run the same command with --resume to continue"
    ]
    assert not out.exists()
    done = json.loads(state.read_text())["done"]
    assert 32 <= done < 160
    resumed = subprocess.run(_command(tmp_path, *export, "-o", str(out), "--resume"), env=_env(tmp_path, 0.0),
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == full.read_bytes()
    assert f"resumed after {done} input records" in resumed.stderr
    # The summary counts every record, the resumed ones included, as the uninterrupted run did.
    assert _summary(resumed.stderr) == _summary(complete.stderr).replace(str(full), str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.py", "full.jsonl", "in.jsonl", "mark", "out.jsonl"]


def test_an_interrupted_parquet_conversion_leaves_no_output_and_resume_converts(
    tmp_path: Path, cli: Cli, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": f"k = '{KEY}{i}'\n", "i": i}) + "\n" for i in range(40)))
    out = tmp_path / "out.parquet"
    out.write_bytes(b"the previous export")
    real = export_writer.jsonl_to_parquet

    def convert_then_die(jsonl: Path, target: Path) -> None:
        target.write_bytes(b"PAR1 half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(export_writer, "jsonl_to_parquet", convert_then_die)
    assert cli.main(["export", str(source), "-o", str(out), *RAW]) == 130
    assert "run the same command with --resume" in capsys.readouterr().err
    assert out.read_bytes() == b"the previous export"
    assert not list(tmp_path.glob(".out.parquet.parquet.tmp"))
    monkeypatch.setattr(export_writer, "jsonl_to_parquet", real)
    assert cli.main(["export", str(source), "-o", str(out), "--resume", *RAW]) == 0
    assert "mean masked fraction" in capsys.readouterr().err
    assert pq.read_table(out).column("i").to_pylist() == list(range(40))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.parquet"]
