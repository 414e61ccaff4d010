"""`smscan install-hook` writes the hook where git runs it, whatever ``core.hooksPath`` says,
proven by a real ``git commit`` that the installed hook blocks; where git runs no hooks at all
it refuses clearly.

The hook runs ``smscan staged`` in a subprocess: an ``smscan`` wrapper on PATH runs this
checkout's CLI with the fake scorer (tests/scorers.py).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from smscan.cli import main
from smscan.cli.git_modes import HOOK_SCRIPT
from tests.conftest import commit_files, run_git, stage_files, write_files
from tests.scorers import TEST_CONFIG, write_smscan_wrapper

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


@pytest.fixture
def env(tmp_path: Path, git_env: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=True)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def git_commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], check=False, cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


def blocks_a_secret(repo: Path, env: dict[str, str]) -> None:
    """A staged secret is stopped by the hook; a clean change goes through."""
    stage_files(repo, {"a.py": f"key = '{SECRET}'\n"})
    blocked = git_commit(repo, env, "a key")
    assert blocked.returncode != 0 and "a.py" in blocked.stdout + blocked.stderr, blocked.stderr
    stage_files(repo, {"a.py": "a = 2\n"})
    passed = git_commit(repo, env, "clean")
    assert passed.returncode == 0, passed.stdout + passed.stderr


@pytest.mark.parametrize("where", ["relative", "home", "absolute"])
def test_the_hook_lands_where_core_hooks_path_makes_git_run_it(
    git_repo: Path, git_env: Path, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    write_files(git_repo, {".smscan.toml": TEST_CONFIG})
    commit_files(git_repo, {"a.py": "a = 1\n"}, "start")
    value, folder = {
        "relative": ("ci/hooks", git_repo / "ci" / "hooks"),
        "home": ("~/git-hooks", git_env / "git-hooks"),
        "absolute": (str(tmp_path / "shared hooks"), tmp_path / "shared hooks"),
    }[where]
    run_git(git_repo, "config", "core.hooksPath", value)
    (git_repo / "sub").mkdir()
    monkeypatch.chdir(git_repo / "sub")  # installed from a subfolder: still the repository's hooks
    assert main(["install-hook"]) == 0
    assert (folder / "pre-commit").read_text() == HOOK_SCRIPT
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()
    blocks_a_secret(git_repo, env)


def test_a_linked_work_tree_shares_the_hook(git_repo: Path, env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    commit_files(git_repo, {".smscan.toml": TEST_CONFIG, "a.py": "a = 1\n"}, "start")
    linked = tmp_path / "linked"
    run_git(git_repo, "worktree", "add", "-q", str(linked), "-b", "side")
    monkeypatch.chdir(linked)
    assert main(["install-hook"]) == 0
    assert (git_repo / ".git" / "hooks" / "pre-commit").read_text() == HOOK_SCRIPT
    blocks_a_secret(linked, env)


def test_hooks_switched_off_by_dev_null_is_refused(git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    run_git(git_repo, "config", "core.hooksPath", os.devnull)
    monkeypatch.chdir(git_repo)
    assert main(["install-hook"]) == 2
    err = capsys.readouterr().err
    assert "git runs no hooks here (core.hooksPath names no folder)" in err and err.count("\n") == 1
    assert "Traceback" not in err
