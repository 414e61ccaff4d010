"""The run dir and the socket's peer: another user never reaches the client or the worker's files.

The other-user cases create a real second user (``useradd``) and so run only as root; elsewhere
they are skipped with the reason. A same-user plant (a symlink where the log or lock goes) is
never written through.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.scoring.worker_address import WorkerPlaceError, open_run_dir, run_dir, worker_key
from smscan.scoring.worker_client import connect_worker
from tests.conftest import init_repo, stage_files
from tests.scorers import RandomWordScorer
from tests.worker.conftest import Workers

KEY = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
SCAN = ("staged", "--kinds", "surprise", "--threshold", "3", "-f", "json")


@pytest.fixture
def planted(git_env: Path, workers: Workers) -> Workers:  # git_env first: workers copies its environment
    init_repo(workers.cwd)
    # Not staged: these scans must not start a worker of their own (the hook's default, "auto").
    (workers.cwd / ".smscan.toml").write_text('worker = "use"\n', encoding="utf-8")
    stage_files(workers.cwd, {"app.py": f"import os\nKEY = '{KEY}'\n"})
    return workers


def reports_the_key(run: subprocess.CompletedProcess[str]) -> bool:
    return run.returncode == 1 and '"surprise"' in run.stdout and "app.py" in run.stdout


def never_loaded() -> RandomWordScorer:
    raise AssertionError("no worker should have been used")


def test_a_run_dir_under_a_folder_others_can_write_is_refused(planted: Workers) -> None:
    runtime = Path(planted.env["XDG_RUNTIME_DIR"])
    runtime.chmod(0o777)  # not sticky: anyone could rename smscan/ and put their own in its place
    try:
        with pytest.raises(WorkerPlaceError, match="others can write"):
            open_run_dir(run_dir(planted.env), create=True)
        served = planted.smscan("serve", "--idle-timeout", "5", fake=True)
        assert served.returncode == 2 and "others can write" in served.stderr and "Traceback" not in served.stderr
    finally:
        runtime.chmod(0o700)


def test_a_sticky_world_writable_parent_is_accepted(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp: others cannot rename what is ours
    with open_run_dir(shared / "smscan", create=True) as run:
        assert os.path.isdir(run.entry("."))


def test_a_symlink_where_the_log_goes_is_not_written_through(planted: Workers, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    folder = run_dir(planted.env)
    folder.mkdir(mode=0o700, parents=True)
    key = worker_key(Settings(), environ=planted.env)
    (folder / f"{key}.log").symlink_to(victim)
    started = planted.smscan("serve", "--detach", "--idle-timeout", "30", fake=True)
    assert started.returncode == 0, started.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    log = folder / f"{key}.log"
    assert log.is_file() and not log.is_symlink()


def test_a_symlink_where_the_lock_goes_is_refused(planted: Workers, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    folder = run_dir(planted.env)
    folder.mkdir(mode=0o700, parents=True)
    (folder / f"{worker_key(Settings(), environ=planted.env)}.lock").symlink_to(victim)
    served = planted.smscan("serve", "--idle-timeout", "5", fake=True)
    assert served.returncode == 2 and "remove it" in served.stderr, served.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def test_a_runtime_dir_of_another_user_is_refused(planted: Workers, other_uid: int) -> None:
    # root with an inherited XDG_RUNTIME_DIR (su without -, sudo -E): the folder is theirs.
    runtime = Path(planted.env["XDG_RUNTIME_DIR"])
    os.chown(runtime, other_uid, -1)
    try:
        with pytest.raises(WorkerPlaceError, match="belongs to another user"):
            open_run_dir(run_dir(planted.env), create=True)
        served = planted.smscan("serve", "--idle-timeout", "5", fake=True)
        assert served.returncode == 2 and "belongs to another user" in served.stderr
        run = planted.smscan(*SCAN, fake=True)
        assert reports_the_key(run), run.stderr
    finally:
        os.chown(runtime, 0, -1)


def test_another_users_process_at_our_socket_is_never_used(planted: Workers, other_uid: int) -> None:
    from tests.worker.standin import served_by_another_user

    with served_by_another_user(planted.path(), worker_key(Settings(), environ=planted.env), other_uid):
        notices: list[str] = []
        assert connect_worker(Settings(), fallback=never_loaded, environ=planted.env, notice=notices.append) is None
        assert notices and "another user" in notices[0]
        run = planted.smscan(*SCAN, fake=True)
        assert reports_the_key(run), (run.stdout, run.stderr)
        assert "served by another user" in run.stderr
