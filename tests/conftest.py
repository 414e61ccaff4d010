"""Shared fixtures: real git repositories in tmp_path with a pinned identity and no outside config.

``git_env`` isolates git from the machine: HOME (and so the global config) points into a temp
folder, the system config is off, identity and dates are pinned, and variables that would point
git at another repository (as set inside a running git hook) are cleared. ``git_repo`` is a fresh
``git init`` under it; ``commit_files`` writes files and commits them. ``score_cache_dir`` (autouse)
gives each test its own score cache.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Smscan Test",
    "GIT_AUTHOR_EMAIL": "test@smscan.invalid",
    "GIT_COMMITTER_NAME": "Smscan Test",
    "GIT_COMMITTER_EMAIL": "test@smscan.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00",
}

# Variables that redirect git to another repository, index or config (git sets some in hooks).
GIT_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CEILING_DIRECTORIES",
    "GIT_PREFIX",
)


@pytest.fixture
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate git from the machine's configuration; returns the temporary HOME."""
    home = tmp_path_factory.mktemp("home")
    for name in GIT_REDIRECTS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    return home


def run_git(repo: Path, *args: str) -> str:
    """Run git in repo; fail the test with git's message when it fails."""
    result = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout


def init_repo(path: Path) -> Path:
    """``git init`` path (created if needed); returns it."""
    path.mkdir(parents=True, exist_ok=True)
    run_git(path, "init", "-q")
    return path


def write_files(folder: Path, files: Mapping[str, bytes | str]) -> None:
    """Write files (POSIX paths relative to folder) byte for byte; str is encoded as UTF-8."""
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def write_key_labels(path: Path, keys: Sequence[str], *, category: str | None = None) -> Path:
    """Span labels (JSONL) for calibrate and eval: one file per key assigned to ``api_key``, its
    span labelled (with ``category`` when given), and one file with no secret."""
    rows = []
    for index, key in enumerate(keys):
        text = f'import os\napi_key = "{key}"\nname = "plain words"\n'
        span = {"start": text.index(key), "end": text.index(key) + len(key)} | ({"category": category} if category else {})
        rows.append({"text": text, "path": f"pkg{index}/a.py", "spans": [span]})
    rows.append({"text": "x = 1\ny = 'no secret here'\n", "path": "pkg9/b.py", "spans": []})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def commit_files(repo: Path, files: Mapping[str, bytes | str], message: str = "add files") -> None:
    """Write files into repo, stage exactly them and commit."""
    write_files(repo, files)
    run_git(repo, "add", "--", *files)
    run_git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def git_repo(tmp_path: Path, git_env: Path) -> Path:
    """A fresh, empty git repository at tmp_path / "repo"."""
    return init_repo(tmp_path / "repo")


def stage_files(repo: Path, files: Mapping[str, bytes | str]) -> None:
    """Write files into repo and stage exactly them, without committing."""
    write_files(repo, files)
    run_git(repo, "add", "--", *files)


def head_id(repo: Path, rev: str = "HEAD") -> str:
    """The full id of a commit."""
    return run_git(repo, "rev-parse", rev).strip()


@pytest.fixture(autouse=True)
def score_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty score cache (on by default in every scanning command), so
    tests never share scores or write to ~/.cache; subprocesses inherit it. Outside tmp_path,
    so tests that list their tmp_path see only their own files."""
    folder = tmp_path_factory.mktemp("scores")
    monkeypatch.setenv("SMSCAN_SCORE_CACHE", str(folder))
    return folder


# The fake scorer fixture, for every test that runs a scan through the CLI.
# The CLI with a fake model injected through Services (tests/cli_runner.py).
from tests.cli_runner import cli  # noqa: E402,F401
from tests.scorers import fake_scorer  # noqa: E402,F401


@pytest.fixture(autouse=True)
def no_warm_worker(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scans in tests never reach a warm worker the developer runs (`smscan serve`): the run dir
    points at a folder that does not exist (worker tests point it elsewhere)."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.getbasetemp() / "no-run-dir"))
