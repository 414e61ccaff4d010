"""Scan progress outside a terminal: plain lines every few seconds on stderr (never stdout), in
bytes with a measured rate and ETA, advanced per forward pass and naming the current file."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from smscan.model.passes import ForwardPass
from smscan.records import Document
from smscan.reports.progress import ScanProgress

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _document(path: str, size: int) -> Document:
    return Document(path=path, text="x" * size)


def test_plain_lines_advance_per_forward_pass_with_rate_eta_and_file() -> None:
    clock, stream = Clock(), io.StringIO()
    documents = [_document("a.py", 4000), _document("b.py", 4000), _document("c.py", 2000)]
    progress = ScanProgress(stream, documents=documents, terminal=False, interval=5.0, clock=clock)

    progress.batch(documents[:2], [1, 1])
    clock.now += 4.0
    progress.forward_pass(ForwardPass((0,), 500, 500, 1000))  # before the interval: nothing yet
    assert stream.getvalue() == ""
    clock.now += 1.0
    progress.forward_pass(ForwardPass((1,), 250, 750, 1000))  # 3/4 of the batch's 8 kB, 5 s in

    [line] = stream.getvalue().splitlines()
    assert line == "scanning  60%, 6.0 kB of 10.0 kB, 0/3 files, 1.2 kB/s, 150 tokens/s, ETA 3s: b.py"
    assert "\x1b" not in stream.getvalue()


def test_completed_files_and_the_closing_summary() -> None:
    clock, stream = Clock(), io.StringIO()
    documents = [_document("a.py", 3000), _document("dir/b.py", 1000)]
    progress = ScanProgress(stream, documents=documents, terminal=False, interval=2.0, clock=clock)
    with progress:
        progress.batch(documents, [2, 0])  # b.py is remembered: no text of its own
        clock.now += 2.0
        progress.item_done(documents[0])
        clock.now += 2.0
        progress.item_done(documents[1])

    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("scanning  75%, 3.0 kB of 4.0 kB, 1/2 files, 1.5 kB/s")
    assert lines[1].startswith("scanning 100%, 4.0 kB of 4.0 kB, 2/2 files, 1.0 kB/s")
    # The group's repeats and findings are decided after the last file: said, not silent.
    assert lines[2] == "scanning 100%: all 2 files scored; deciding findings (repeats, allow comments, baseline)"
    assert lines[3] == "scanning done: 2 files, 4.0 kB in 4s"


def test_a_short_scan_prints_nothing_and_a_terminal_line_is_erased() -> None:
    clock, stream = Clock(), io.StringIO()
    documents = [_document("a.py", 10)]
    with ScanProgress(stream, documents=documents, terminal=False, clock=clock) as progress:
        progress.item_done(documents[0])
    assert stream.getvalue() == ""

    with ScanProgress(stream, documents=documents, terminal=True, clock=clock) as progress:
        progress.batch(documents, [1])
        progress.forward_pass(ForwardPass((0,), 3, 3, 3))
    drawn = stream.getvalue()
    assert drawn.startswith("\rscanning 100%") and drawn.endswith("\r\x1b[K")


def test_control_characters_in_a_file_name_are_shown_not_sent() -> None:
    clock, stream = Clock(), io.StringIO()
    documents = [_document("esc\x1b[31mred.py", 100)]
    progress = ScanProgress(stream, documents=documents, terminal=False, interval=0.0, clock=clock)
    progress.batch(documents, [1])
    progress.forward_pass(ForwardPass((0,), 10, 10, 10))
    assert stream.getvalue().rstrip("\n").endswith(": esc\\x1b[31mred.py")


# The CLI with the stand-in scorer, slowed, reporting one forward pass per text as a real
# scorer does per batch of chunks, and plain lines every 0.2 s.
_CLI = """
import sys, time
sys.path.insert(0, {root!r})
from tests.scorers import install_fake_scorer
from smscan.model.passes import ForwardPass, report_pass
import smscan.reports.progress
smscan.reports.progress.INTERVAL_SECONDS = 0.2
scorer = install_fake_scorer()
original = scorer.score_texts
def by_pass(texts):
    out = []
    for index, text in enumerate(texts):
        time.sleep(0.03)
        out.extend(original([text]))
        report_pass(ForwardPass((index,), len(text), index + 1, len(texts)))
    return out
scorer.score_texts = by_pass
from smscan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_json_scan_outside_a_terminal_logs_progress_on_stderr_only(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(40):
        (project / f"m{i:02}.py").write_text(f"value = {i}\n" * 20, encoding="utf-8")
    config = tmp_path / "smscan.toml"
    config.write_text('threshold = 3.0\nkinds = ["surprise"]\nworker = "off"\n')
    script = tmp_path / "cli.py"
    script.write_text(_CLI.format(root=str(ROOT)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SMSCAN_CACHE": str(tmp_path / "cache"),
           "SMSCAN_SCORE_CACHE": str(tmp_path / "scores")}
    result = subprocess.run([sys.executable, str(script), "repo", str(project), "--config", str(config), "--format", "json"],
                            env=env, capture_output=True, text=True, timeout=300)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["findings"] == []  # stdout holds the report alone
    lines = [line for line in result.stderr.splitlines() if line.startswith("scanning")]
    assert len(lines) >= 3, result.stderr
    assert "\x1b" not in result.stderr
    pattern = re.compile(r"scanning +\d+%, [\d.]+ k?B of [\d.]+ kB, \d+/40 files(, .*/s, [\d,]+ tokens/s, ETA \w+)?: m\d\d\.py")
    assert all(pattern.fullmatch(line) for line in lines[:-2]), lines
    percents = [int(line.split()[1].rstrip("%,")) for line in lines[:-2]]
    assert percents == sorted(percents) and percents[0] < 100
    # Mid-batch lines: some line names a file while fewer files than that are done.
    assert any(int(line.split(", ")[2].split("/")[0]) < int(line.rsplit("m", 1)[1][:2]) for line in lines[:-2])
    assert lines[-2].startswith("scanning 100%: all 40 files scored; deciding findings")
    assert lines[-1].startswith("scanning done: 40 files, ")


def test_pull_stages_show_sizes_and_rate_outside_a_terminal() -> None:
    from smscan.reports.progress import StageProgress

    clock, stream = Clock(), io.StringIO()
    labels = {"download": "downloading", "convert": "converting"}
    with StageProgress(stream, labels=labels, byte_stages=frozenset({"download"}), terminal=False,
                       interval=5.0, clock=clock) as progress:
        progress.update("download", 0, None)
        progress.update("download", 0, 517_000_000)
        clock.now += 2.0
        progress.update("download", 20_000_000, 517_000_000)  # within the interval: no line
        clock.now += 3.0
        progress.update("download", 50_000_000, 517_000_000)
        clock.now += 5.0
        progress.update("download", 517_000_000, 517_000_000)
        progress.update("convert", 0, None)
        progress.update("convert", 1, 1)

    assert stream.getvalue().splitlines() == [
        "downloading ...",
        "downloading: 50.0 MB of 517.0 MB, 10.0 MB/s",
        "downloading: 517.0 MB of 517.0 MB, 51.7 MB/s",
        "converting ...",
        "converting: done",
    ]
    assert progress.stages == ["download", "convert"]


def test_an_export_outside_a_terminal_logs_progress_lines(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": f"value = {i}\n" * 10}) + "\n" for i in range(40)))
    script = tmp_path / "cli.py"
    script.write_text(_CLI.format(root=str(ROOT)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SMSCAN_CACHE": str(tmp_path / "cache"),
           "SMSCAN_SCORE_CACHE": str(tmp_path / "scores")}
    result = subprocess.run([sys.executable, str(script), "export", str(source), "-o", str(tmp_path / "out.jsonl"),
                             "--threshold", "3"], env=env, capture_output=True, text=True, timeout=300)

    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("exporting")]
    assert len(lines) >= 2, result.stderr
    pattern = re.compile(r"exporting \d+% of the input, \d+ records written, [\d,]+ tokens/s")
    assert all(pattern.fullmatch(line) for line in lines), lines
    assert "\x1b" not in result.stderr
