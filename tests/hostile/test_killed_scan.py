"""A scan killed with SIGKILL while it writes the score cache leaves nothing corrupt: the next
scan gives the same findings as an uninterrupted one, scoring again only what was not stored
(real processes, real signals)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.test_concurrent_scans import FILES, _findings, _project

ROOT = Path(__file__).resolve().parents[2]

# The CLI with the stand-in scorer, each batch slowed so the scan can be killed mid-way; it
# writes how many texts it scored to SCORED at exit (a killed run writes nothing).
_SCAN = """
import atexit, os, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.scorers import install_fake_scorer
import smscan.judge.stages
smscan.judge.stages.SCORE_CHARS = 0  # one scoring call per planned group of files, so the kill lands between calls
scorer = install_fake_scorer()
original = scorer.score_texts
def slow(texts):
    time.sleep(float(os.environ["DELAY"]))
    return original(texts)
scorer.score_texts = slow
atexit.register(lambda: Path(os.environ["SCORED"]).write_text(str(len(scorer.texts))))
from smscan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def start(tmp_path: Path, project: Path, name: str, *, scores: Path, delay: float) -> subprocess.Popen[str]:
    script = tmp_path / "scan.py"
    script.write_text(_SCAN.format(root=str(ROOT)))
    config = tmp_path / "smscan.toml"
    config.write_text('threshold = 3.0\nkinds = ["surprise"]\nworker = "off"\n')
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "SMSCAN_CACHE": str(tmp_path / "cache"),
        "SMSCAN_SCORE_CACHE": str(scores), "SCORED": str(tmp_path / f"{name}.scored"), "DELAY": str(delay),
    }
    env.pop("CI", None)
    command = [sys.executable, str(script), "repo", str(project), "--config", str(config), "--format", "json"]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str], tmp_path: Path, name: str) -> tuple[list[tuple[str, int, int]], int]:
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 1 and "Traceback" not in stderr, stderr
    return _findings(stdout), int((tmp_path / f"{name}.scored").read_text())


def stored_entries(scores: Path) -> int:
    try:
        with sqlite3.connect(f"file:{scores / 'scores.sqlite3'}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_scan_killed_while_writing_the_cache_then_rerun(tmp_path: Path) -> None:
    from smscan.scoring.cache_database import DATABASE_NAME

    assert DATABASE_NAME == "scores.sqlite3"
    project = _project(tmp_path)
    reference = finish(start(tmp_path, project, "reference", scores=tmp_path / "fresh", delay=0), tmp_path, "reference")
    scores = tmp_path / "scores"
    killed = start(tmp_path, project, "killed", scores=scores, delay=0.4)
    deadline = time.monotonic() + 120
    while stored_entries(scores) == 0 and time.monotonic() < deadline and killed.poll() is None:
        time.sleep(0.05)
    os.kill(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    stored = stored_entries(scores)
    assert 0 < stored < FILES  # killed mid-way, some entries written
    with sqlite3.connect(scores / DATABASE_NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    findings, scored = finish(start(tmp_path, project, "rerun", scores=scores, delay=0), tmp_path, "rerun")
    assert findings == reference[0]  # the same result as an uninterrupted scan
    assert scored == FILES - stored  # only what the killed run had not stored
