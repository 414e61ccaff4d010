"""Real worker processes on real sockets: a short private run dir, and a worker launcher.

A worker subprocess scores with ``RandomWordScorer``: its PYTHONPATH starts with a folder whose
``sitecustomize.py`` calls ``install_fake_scorer()``, so even a detached worker started by
``python -m smscan serve`` gets it. Client processes get the plain PYTHONPATH.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.scoring.worker_address import run_dir, socket_path, worker_key
from smscan.scoring.worker_client import WorkerClient, WorkerUnavailable

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Workers:
    """Start workers in ``cwd`` with ``env`` (the run dir set); stops them all at teardown."""

    env: dict[str, str]
    fake_env: dict[str, str]
    cwd: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def path(self, settings: Settings | None = None) -> Path:
        return socket_path(run_dir(self.env), worker_key(settings or Settings(), environ=self.env))

    def start(self, *args: str, idle_timeout: str = "60", fake: bool = True) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", "smscan", "serve", "--idle-timeout", idle_timeout, *args],
            cwd=self.cwd, env=self.fake_env if fake else self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.processes.append(process)
        flags = dict(zip(args[::2], args[1::2]))
        settings = Settings(device=flags.get("--device", "auto"), threads=int(flags.get("--threads", 0)))  # type: ignore[arg-type]
        wait_for_hello(self.path(settings), process, timeout=60 if fake else 300)
        return process

    def smscan(self, *args: str, fake: bool = False, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "smscan", *args], cwd=self.cwd, env=self.fake_env if fake else self.env,
            capture_output=True, text=True, timeout=timeout, check=False,
        )


def wait_for_hello(path: Path, process: subprocess.Popen[bytes] | None = None, *, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"worker exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            return WorkerClient(path).hello().pid
        except WorkerUnavailable:
            time.sleep(0.1)
    raise AssertionError("worker did not answer")


def wait_gone(process: subprocess.Popen[bytes], *, timeout: float = 20) -> int:
    return process.wait(timeout=timeout)


@pytest.fixture
def short_run_root() -> Iterator[Path]:
    """A short folder under /tmp (Unix socket paths are limited to about 100 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="smw-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def workers(short_run_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workers]:
    site = tmp_path / "fake-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "from tests.scorers import install_fake_scorer\ninstall_fake_scorer()\n", encoding="utf-8"
    )
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_run_root))
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_RUNTIME_DIR": str(short_run_root)}
    env.pop("SMSCAN_MODEL", None)
    monkeypatch.delenv("SMSCAN_MODEL", raising=False)
    fake_env = {**env, "PYTHONPATH": f"{site}{os.pathsep}{REPO}"}
    cwd = tmp_path / "work"
    cwd.mkdir()
    found = Workers(env, fake_env, cwd)
    yield found
    folder = run_dir(env)
    for sock in folder.glob("*.sock") if folder.is_dir() else ():
        try:  # detached workers (--detach, worker = "auto") are not our children
            WorkerClient(sock).stop()
        except WorkerUnavailable:
            pass
    for process in found.processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def other_uid() -> Iterator[int]:
    """A second user, created for the test and removed after it."""
    if os.geteuid() != 0:
        pytest.skip("the other-user cases need root to create a second user; run them as root")
    if shutil.which("useradd") is None:
        pytest.skip("the other-user cases need useradd to create a second user")
    name = f"smscan-t{os.getpid()}"
    subprocess.run(["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", name], check=True, capture_output=True)
    try:
        yield pwd.getpwnam(name).pw_uid
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)
