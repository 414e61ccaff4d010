"""Two smscan processes scanning at once share one score cache without corrupting it or counting
anything twice, and a damaged entry is scored again, never a crash (real processes)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from smscan.scoring.cache_database import DATABASE_NAME

ROOT = Path(__file__).resolve().parents[1]
KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
FILES = 120

# The CLI with the stand-in scorer, slowed so two runs overlap; it starts when GO exists and
# writes how many texts it scored to SCORED at exit.
_SCAN = """
import atexit, os, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.scorers import install_fake_scorer
scorer = install_fake_scorer()
original = scorer.score_texts
def slow(texts):
    time.sleep(0.05)
    return original(texts)
scorer.score_texts = slow
atexit.register(lambda: Path(os.environ["SCORED"]).write_text(str(len(scorer.texts))))
while not Path(os.environ["GO"]).exists():
    time.sleep(0.01)
from smscan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(FILES):
        value = KEY[i % 7 :] + KEY[: i % 7] if i % 4 == 0 else f"plain {i}"
        (project / f"m{i:03}.py").write_text(f"# module {i}\nvalue = '{value}'\nn = {i}\n", encoding="utf-8")
    return project


def _start(tmp_path: Path, project: Path, name: str) -> subprocess.Popen[str]:
    script = tmp_path / "scan.py"
    script.write_text(_SCAN.format(root=str(ROOT)))
    config = tmp_path / "smscan.toml"
    config.write_text('threshold = 3.0\nkinds = ["surprise"]\nworker = "off"\n')
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "SMSCAN_CACHE": str(tmp_path / "cache"),
        "SMSCAN_SCORE_CACHE": str(tmp_path / "scores"), "GO": str(tmp_path / "go"),
        "SCORED": str(tmp_path / f"{name}.scored"),
    }
    env.pop("CI", None)
    command = [sys.executable, str(script), "repo", str(project), "--config", str(config), "--format", "json"]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _findings(stdout: str) -> list[tuple[str, int, int]]:
    return sorted((f["path"], f["char_start"], f["char_end"]) for f in json.loads(stdout)["findings"])


def _run(tmp_path: Path, project: Path, *names: str) -> dict[str, tuple[list[tuple[str, int, int]], int]]:
    (tmp_path / "go").unlink(missing_ok=True)
    processes = {name: _start(tmp_path, project, name) for name in names}
    time.sleep(0.5)  # both interpreters up and waiting; then they start together
    (tmp_path / "go").touch()
    out = {}
    for name, process in processes.items():
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 1, stderr  # findings
        assert "Traceback" not in stderr
        out[name] = (_findings(stdout), int((tmp_path / f"{name}.scored").read_text()))
    return out


def _database(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "scores" / DATABASE_NAME)


def test_two_scans_at_once_share_the_score_cache_then_a_damaged_entry_is_rescored(tmp_path: Path) -> None:
    project = _project(tmp_path)

    racing = _run(tmp_path, project, "a", "b")

    (findings_a, scored_a), (findings_b, scored_b) = racing["a"], racing["b"]
    assert findings_a == findings_b and len(findings_a) == FILES // 4
    assert FILES <= scored_a + scored_b <= 2 * FILES  # each text scored at least once, by either
    db = _database(tmp_path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    entries, stored = db.execute("SELECT COUNT(*), SUM(size) FROM entries").fetchone()
    (kept,) = db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()
    assert entries == FILES  # one entry per text, however many processes wrote it
    assert kept == stored  # the kept total counts no entry twice

    # A third run answers everything from the cache; then one damaged entry is scored again.
    assert _run(tmp_path, project, "c")["c"] == (findings_a, 0)
    db.execute("UPDATE entries SET value = ? WHERE rowid = (SELECT MIN(rowid) FROM entries)", (b"smc1 torn",))
    db.commit()
    db.close()
    assert _run(tmp_path, project, "d")["d"] == (findings_a, 1)


def test_a_scan_over_a_garbled_cache_database_rebuilds_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    first = _run(tmp_path, project, "a")["a"]
    for path in (tmp_path / "scores").iterdir():
        path.unlink()
    (tmp_path / "scores" / DATABASE_NAME).write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)

    assert _run(tmp_path, project, "b")["b"] == first  # same findings, every text scored again
    assert _run(tmp_path, project, "c")["c"] == (first[0], 0)  # and the rebuilt cache serves them
