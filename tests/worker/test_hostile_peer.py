"""Whoever answers at the worker's socket cannot make a planted key pass (issue 28).

Each test plants a key in a staged file and puts a stand-in process (``standin.py``) at the
worker's socket. A hanging, trickling, nested, non-finite, malformed or huge answer is refused
within a bounded time: the scan scores in its own process, says in one line that the worker
was ignored, and reports the key. A well-formed forged answer from a process of our own user is
out of scope for that run (such a process could edit our hooks), but it never reaches the score
cache: the next run, without the stand-in, reports the key.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.scoring.worker_address import worker_key
from tests.conftest import init_repo, stage_files
from tests.worker.conftest import REPO, Workers, wait_for_hello

KEY = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
SCAN = ("staged", "--kinds", "surprise", "--threshold", "3", "-f", "json")


@pytest.fixture
def planted(git_env: Path, workers: Workers) -> Workers:  # git_env first: workers copies its environment
    init_repo(workers.cwd)
    # Not staged: these scans must not start a worker of their own (the hook's default, "auto").
    (workers.cwd / ".smscan.toml").write_text('worker = "use"\n', encoding="utf-8")
    stage_files(workers.cwd, {"app.py": f"import os\nKEY = '{KEY}'\n", "util.py": "def f(x):\n    return x + 1\n"})
    return workers


@pytest.fixture
def standin(planted: Workers) -> Iterator[callable]:  # type: ignore[valid-type]
    started: list[subprocess.Popen[bytes]] = []

    def start(mode: str) -> subprocess.Popen[bytes]:
        path = planted.path()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        key = worker_key(Settings(), environ=planted.env)
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.worker.standin", mode, str(path), key],
            cwd=REPO, env={**planted.env, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
        )
        started.append(process)
        assert process.stdout is not None and process.stdout.readline() == b"listening\n"
        wait_for_hello(path, process)
        return process

    yield start
    for process in started:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def reports_the_key(run: subprocess.CompletedProcess[str]) -> bool:
    return run.returncode == 1 and '"surprise"' in run.stdout and "app.py" in run.stdout


@pytest.mark.parametrize("mode", ["nan", "neginf", "hang", "trickle", "nested", "huge", "garbage"])
def test_a_bad_answer_is_ignored_and_the_key_is_reported(planted: Workers, standin, mode: str) -> None:  # type: ignore[no-untyped-def]
    standin(mode)
    started = time.monotonic()
    run = planted.smscan(*SCAN, fake=True, timeout=120)
    elapsed = time.monotonic() - started
    assert reports_the_key(run), (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    notices = [line for line in run.stderr.splitlines() if "warm worker was ignored" in line]
    assert len(notices) == 1, run.stderr
    assert elapsed < 40  # one deadline for the whole answer, not one per read


def test_a_forged_answer_never_reaches_the_score_cache(planted: Workers, standin) -> None:  # type: ignore[no-untyped-def]
    process = standin("zeros")
    forged = planted.smscan(*SCAN, fake=True)
    assert forged.returncode in (0, 1), forged.stderr  # what a same-user process says in its own run is out of scope
    process.kill()
    process.wait()
    for _ in range(2):  # the stand-in is gone: nothing it said is remembered
        run = planted.smscan(*SCAN, fake=True)
        assert reports_the_key(run), (run.returncode, run.stdout, run.stderr)


def test_a_real_worker_fills_the_cache_with_what_it_scored(planted: Workers) -> None:
    from smscan.scoring.cache import ScoreCache, default_cache_dir

    planted.start()
    first = planted.smscan(*SCAN, fake=True)
    assert reports_the_key(first), first.stderr
    assert "ignored" not in first.stderr
    # The client stored nothing the worker sent; the worker stored what it scored.
    assert ScoreCache(default_cache_dir(planted.env), max_bytes=1 << 30).info().entries > 0
    again = planted.smscan(*SCAN, fake=True)
    assert reports_the_key(again), again.stderr
