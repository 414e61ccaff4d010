from __future__ import annotations

import os
from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.scoring.worker_address import (
    WorkerPlaceError,
    check_private_dir,
    make_private_dir,
    run_dir,
    socket_path,
    worker_key,
)


def test_run_dir_prefers_xdg_runtime_dir_then_the_cache_root(tmp_path: Path) -> None:
    assert run_dir({"XDG_RUNTIME_DIR": "/run/user/7"}) == Path("/run/user/7/smscan")
    assert run_dir({"SMSCAN_CACHE": str(tmp_path)}) == tmp_path / "run"


def test_make_private_dir_creates_mode_0700(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "smscan"
    make_private_dir(folder)
    assert folder.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o750, 0o701])
def test_loose_permissions_are_refused(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(WorkerPlaceError, match="chmod 700"):
        check_private_dir(folder)


def test_another_users_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    check_private_dir(folder)
    with pytest.raises(WorkerPlaceError, match="another user"):
        check_private_dir(folder, uid=os.getuid() + 1)


def test_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(WorkerPlaceError, match="not a folder"):
        check_private_dir(tmp_path / "link")


def test_worker_key_is_stable_and_tells_settings_apart(tmp_path: Path) -> None:
    env = {"SMSCAN_CACHE": str(tmp_path)}
    base = worker_key(Settings(), environ=env)
    assert base == worker_key(Settings(threshold=3.0, worker="auto"), environ=env)  # not model settings
    assert base == worker_key(Settings(model="SmolLM2-135M-Instruct"), environ=env)  # an alias
    others = {
        worker_key(Settings(device="cpu"), environ=env),
        worker_key(Settings(dtype="fp32"), environ=env),
        worker_key(Settings(), dtype="fp32", environ=env),
        worker_key(Settings(threads=1), environ=env),
        worker_key(Settings(model="org/other"), environ=env),
        worker_key(Settings(), environ={"SMSCAN_CACHE": str(tmp_path / "elsewhere")}),
    }
    assert base not in others and len(others) == 5  # dtype flag and dtype setting are the same key


def test_socket_paths_too_long_for_a_unix_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkerPlaceError, match="too long"):
        socket_path(tmp_path / ("x" * 120), "0123456789abcdef")
