"""When the hook stops a commit, stderr says what to do next; a clean commit says nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit_files, stage_files
from tests.scorers import THRESHOLD_ARGS

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(git_repo)
    commit_files(git_repo, {"a.py": "x = 1\n"})
    return git_repo


@pytest.mark.parametrize("command", [["staged"], ["hook", "a.py"]])
def test_a_blocked_commit_names_the_next_steps(cli, repo: Path, command: list[str]) -> None:
    stage_files(repo, {"a.py": f"x = 1\nkey = '{SECRET}'\n"})
    result = cli(*command, *THRESHOLD_ARGS)
    assert result.code == 1, result.err
    for step in ("# smscan: ignore", "smscan baseline", "smscan explain FILE:LINE", "git commit --no-verify"):
        assert step in result.err
    assert SECRET not in result.err


@pytest.mark.parametrize("command", [["staged"], ["hook", "a.py"]])
def test_a_clean_commit_prints_no_next_steps(cli, repo: Path, command: list[str]) -> None:
    stage_files(repo, {"a.py": "x = 1\ny = 2\n"})
    result = cli(*command, *THRESHOLD_ARGS)
    assert result.code == 0, result.err
    assert "commit blocked" not in result.err


def test_a_scan_outside_the_hook_prints_no_next_steps(cli, repo: Path) -> None:
    commit_files(repo, {"a.py": f"key = '{SECRET}'\n"})
    result = cli("repo", ".", *THRESHOLD_ARGS)
    assert result.code == 1 and "commit blocked" not in result.err
