"""`smscan diff` on a range that does not exist says so, and suggests `git fetch` only when a
remote exists to fetch from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit_files, run_git


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(git_repo)
    commit_files(git_repo, {"a.py": "x = 1\n"})
    return git_repo


def test_a_range_beyond_the_history_says_so_and_suggests_no_fetch(cli, repo: Path) -> None:
    result = cli("diff", "HEAD~5...HEAD")
    assert result.code == 2 and len(result.err_lines) == 1
    assert "the range HEAD~5...HEAD does not exist" in result.err
    assert "the history of HEAD has 1 commit(s), so HEAD~5 goes back too far" in result.err
    assert "fetch" not in result.err
    assert cli.loads == []


def test_a_missing_name_without_a_remote_suggests_no_fetch(cli, repo: Path) -> None:
    result = cli("diff", "topic...HEAD")
    assert result.code == 2 and "revision 'topic' is not a commit" in result.err
    assert "no remote" in result.err and "git fetch" not in result.err


def test_a_missing_name_with_a_remote_suggests_fetching_it(cli, repo: Path) -> None:
    run_git(repo, "remote", "add", "upstream", "https://example.invalid/repo.git")
    result = cli("diff", "upstream/topic...HEAD")
    assert result.code == 2 and len(result.err_lines) == 1
    assert "`git fetch upstream topic`" in result.err
