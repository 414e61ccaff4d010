"""The hook's thin client (issue 29, with issue 28's checks): with a worker running, `smscan staged`,
`hook` and `diff` are answered by the worker and printed here without importing the scanning
library; a worker that is gone, busy, of another version, another user's or lying about its
inputs is ignored and the command runs in this process, with the same findings.

Every command runs as a real process through the console entry (``python -m smscan``), in a real
git repository, against a real worker process scoring with ``RandomWordScorer``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.scoring.worker_address import open_run_dir, worker_key
from smscan.scoring.worker_client import WorkerClient
from smscan.scoring.worker_protocol import encode_texts, send_message
from smscan.worker.scan_request import parse_thin_arguments
from smscan.worker.server import WorkerServer
from smscan.worker.thin_client import JSON_REPORT_VERSION
from tests.conftest import commit_files, init_repo, run_git, stage_files
from tests.scorers import TEST_CONFIG
from tests.worker.conftest import REPO, Workers, wait_for_hello
from tests.worker.test_bounded import SlowScorer

KEY = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
HEAVY = ("numpy", "git", "typer", "rich", "torch", "transformers", "ctranslate2", "tokenizers", "smscan.detectors", "smscan.judge", "smscan.cli.app", "smscan.model.source", "smscan.model.store")
PROBE = (
    "import sys\nfrom smscan.cli import main\ncode = main()\n"
    f"heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
    "print('HEAVY', heavy, file=sys.stderr)\nsys.exit(code)\n"
)


@pytest.fixture
def planted(git_env: Path, workers: Workers) -> Workers:  # git_env first: workers copies its environment
    init_repo(workers.cwd)
    config = TEST_CONFIG + 'worker = "use"\n'  # no scan here starts a worker of its own
    commit_files(workers.cwd, {".smscan.toml": config, "util.py": "def f(x):\n    return x + 1\n"})
    stage_files(workers.cwd, {"app.py": f"import os\nKEY = '{KEY}'\n"})
    return workers


def entry(workers: Workers, *args: str, fake: bool = True) -> subprocess.CompletedProcess[str]:
    """``smscan ARGS`` through the console entry, reporting which heavy modules it imported."""
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=workers.cwd, env=workers.fake_env if fake else workers.env,
        capture_output=True, text=True, timeout=120, check=False,
    )


def heavy_modules(run: subprocess.CompletedProcess[str]) -> list[str]:
    line = next(line for line in run.stderr.splitlines() if line.startswith("HEAVY "))
    return list(json.loads(line[len("HEAVY ") :].replace("'", '"')))


def findings(run: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return list(json.loads(run.stdout)["findings"])


def scans_served(workers: Workers) -> int:
    return int(WorkerClient(workers.path()).status()["scans"])


def test_parse_thin_arguments_takes_only_what_it_can_send() -> None:
    assert parse_thin_arguments(["staged"]) is not None
    assert parse_thin_arguments(["hook", "a.py", "--format=json"]) is not None
    assert parse_thin_arguments(["diff", "HEAD~1", "HEAD", "--config", "c.toml"]) is not None
    for argv in (["repo"], ["staged", "--no-redact"], ["staged", "-f", "sarif"], ["staged", "x"], ["diff"], ["staged", "--help"]):
        assert parse_thin_arguments(argv) is None, argv


def test_with_a_worker_the_hook_imports_nothing_heavy_and_reports_as_without(planted: Workers) -> None:
    alone = entry(planted, "staged", "-f", "json")  # no worker: the full command line, in this process
    assert alone.returncode == 1, alone.stderr
    planted.start()
    thin = entry(planted, "staged", "-f", "json", fake=False)  # the client could not even load a model
    assert thin.returncode == 1, thin.stderr
    assert heavy_modules(thin) == []
    assert scans_served(planted) == 1
    assert findings(thin) == findings(alone)
    assert findings(thin)[0]["preview"] != KEY and KEY not in thin.stdout + thin.stderr  # redacted here
    from smscan.reports.json import VERSION

    assert json.loads(thin.stdout)["version"] == JSON_REPORT_VERSION == VERSION
    assert "commit blocked" in thin.stderr
    text = entry(planted, "hook", "app.py", fake=False)
    assert text.returncode == 1 and "app.py:2:5" in text.stdout and KEY not in text.stdout
    assert heavy_modules(text) == []


def test_diff_through_the_worker_matches_the_full_command(planted: Workers) -> None:
    run_git(planted.cwd, "commit", "-q", "-m", "add the key")
    alone = entry(planted, "diff", "HEAD~1", "HEAD", "-f", "json")
    planted.start()
    thin = entry(planted, "diff", "HEAD~1", "HEAD", "-f", "json", fake=False)
    assert thin.returncode == alone.returncode == 1, thin.stderr
    assert findings(thin) == findings(alone) and heavy_modules(thin) == []


def test_the_hook_starts_a_worker_unless_the_config_says_otherwise(planted: Workers) -> None:
    (planted.cwd / ".smscan.toml").write_text(TEST_CONFIG, encoding="utf-8")  # worker not set
    first = entry(planted, "staged", "-f", "json")
    assert first.returncode == 1 and len(findings(first)) == 1, first.stderr
    wait_for_hello(planted.path(), timeout=60)  # started in the background by that commit's hook
    second = entry(planted, "staged", "-f", "json", fake=False)
    assert second.returncode == 1 and heavy_modules(second) == [] and scans_served(planted) == 1
    WorkerClient(planted.path()).stop()


def test_a_clean_commit_exits_0_through_the_worker(planted: Workers) -> None:
    run_git(planted.cwd, "reset", "-q")
    stage_files(planted.cwd, {"ok.py": "def g(y):\n    return y * 2\n"})
    planted.start()
    thin = entry(planted, "staged", fake=False)
    assert thin.returncode == 0, thin.stderr
    assert heavy_modules(thin) == [] and scans_served(planted) == 1


def test_a_commit_writing_another_index_is_scanned_from_that_index(planted: Workers) -> None:
    # `git commit -a` gives the hook GIT_INDEX_FILE; the worker must read that index, not the default one.
    run_git(planted.cwd, "reset", "-q")
    planted.start()
    index = planted.cwd / ".git" / "other-index"
    env = {**planted.env, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=planted.cwd, env=env, check=True)
    subprocess.run(["git", "add", "app.py"], cwd=planted.cwd, env=env, check=True)
    run = subprocess.run(
        [sys.executable, "-c", PROBE, "staged", "-f", "json"], cwd=planted.cwd, env={**env, "GIT_INDEX_FILE": ".git/other-index"},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 1 and heavy_modules(run) == [], run.stderr
    assert [finding["path"] for finding in findings(run)] == ["app.py"]


def test_a_worker_that_is_gone_leaves_the_command_as_without_one(planted: Workers) -> None:
    path = planted.path()
    path.parent.mkdir(mode=0o700, parents=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))  # a worker killed with SIGKILL leaves its socket behind
    run = entry(planted, "staged", "-f", "json")
    assert run.returncode == 1 and len(findings(run)) == 1
    assert "ignored" not in run.stderr  # nothing listens: nothing to say
    assert "numpy" in heavy_modules(run)  # the full command line ran here


@pytest.mark.parametrize("mode", ["other-version", "zeros"])
def test_a_worker_of_another_version_or_lying_about_its_inputs_is_ignored(planted: Workers, mode: str) -> None:
    path = planted.path()
    path.parent.mkdir(mode=0o700, parents=True)
    key = worker_key(Settings(), environ=planted.env)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.worker.standin", mode, str(path), key], cwd=REPO,
        env={**planted.env, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == b"listening\n"
        run = entry(planted, "staged", "-f", "json")
        assert run.returncode == 1 and len(findings(run)) == 1, run.stderr
        notices = [line for line in run.stderr.splitlines() if "warm worker was ignored" in line]
        assert len(notices) == 1, run.stderr
        assert ("another smscan version" if mode == "other-version" else "other inputs") in notices[0]
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_a_busy_worker_is_not_waited_for_past_the_busy_wait(planted: Workers, short_run_root: Path) -> None:
    scorer = SlowScorer(0.5)
    key = worker_key(Settings(), environ=planted.env)
    run = open_run_dir(planted.path().parent, create=True)
    server = WorkerServer(scorer, run=run, key=key, model="default", idle_timeout=60, log=lambda line: None)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        wait_for_hello(planted.path(), timeout=10)
        busy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        busy.connect(str(planted.path()))
        lengths, payload = encode_texts([f"x{i} = {i}\n" for i in range(60)])  # 30 s of scoring
        send_message(busy, {"op": "score", "lengths": lengths, "wait_s": 1}, payload)
        time.sleep(0.5)
        started = time.monotonic()
        result = entry(planted, "staged", "-f", "json")
        assert result.returncode == 1 and len(findings(result)) == 1, result.stderr
        assert "warm worker was ignored (busy)" in result.stderr
        assert time.monotonic() - started < 20
        busy.close()
    finally:
        server.stop()
        thread.join(timeout=10)
        run.close()


def test_another_users_worker_is_never_asked(planted: Workers, other_uid: int) -> None:
    from tests.worker.standin import served_by_another_user

    with served_by_another_user(planted.path(), worker_key(Settings(), environ=planted.env), other_uid):
        run = entry(planted, "staged", "-f", "json")
        assert run.returncode == 1 and len(findings(run)) == 1, run.stderr
        assert "served by another user" in run.stderr
