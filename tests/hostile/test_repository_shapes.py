"""Repository shapes every mode must read through the hardened git calls: linked work trees, a
``.git`` file (separate git dir), detached HEAD, merge and octopus commits in a range, sparse
checkout, and a corrupt object (one clear error, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import commit_files, head_id, run_git, stage_files, write_files
from tests.scorers import TEST_CONFIG

SECRETS = ("q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7", "Hn4Bd0wLm9Rv2Yc7q8Zt3kPx")


@pytest.fixture
def config(tmp_path: Path, cli: Cli) -> list[str]:
    path = tmp_path / "c.toml"
    path.write_text(TEST_CONFIG)
    return ["--config", str(path), "--format", "json"]


def scan(cli: Cli, capsys: pytest.CaptureFixture[str], config: list[str], command: str, *args: str) -> tuple[int, set[str], str]:
    code = cli.main([command, *config, *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    found = {f["path"] for f in json.loads(captured.out)["findings"]} if captured.out.strip() else set()
    return code, found, captured.err


def test_a_linked_work_tree(cli: Cli, git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    linked = tmp_path / "linked"
    run_git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    commit_files(linked, {"b.py": f"k = '{SECRETS[0]}'\n"}, "side")
    stage_files(linked, {"c.py": f"k = '{SECRETS[1]}'\n"})
    monkeypatch.chdir(linked)
    assert scan(cli, capsys, config, "repo", ".")[:2] == (1, {"b.py", "c.py"})
    assert scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")[:2] == (1, {"b.py"})
    assert scan(cli, capsys, config, "staged")[:2] == (1, {"c.py"})
    assert scan(cli, capsys, config, "diff", "main...HEAD")[:2] == (1, {"b.py"})


def test_a_git_file_pointing_at_a_separate_git_dir(cli: Cli, git_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    work = tmp_path / "work"
    work.mkdir()
    run_git(tmp_path, "init", "-q", f"--separate-git-dir={tmp_path / 'store.git'}", str(work))
    assert (work / ".git").is_file()
    commit_files(work, {"a.py": f"k = '{SECRETS[0]}'\n"})
    stage_files(work, {"b.py": f"k = '{SECRETS[1]}'\n"})
    monkeypatch.chdir(work)
    assert scan(cli, capsys, config, "repo", ".")[:2] == (1, {"a.py", "b.py"})
    assert scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")[:2] == (1, {"a.py"})
    assert scan(cli, capsys, config, "staged")[:2] == (1, {"b.py"})


def test_detached_head_and_merges_in_a_range(cli: Cli, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    base = head_id(git_repo)
    for index, branch in enumerate(("x", "y", "z")):
        run_git(git_repo, "checkout", "-q", "-b", branch, base)
        commit_files(git_repo, {f"{branch}.py": f"k = '{SECRETS[index]}'\n"}, branch)
    run_git(git_repo, "checkout", "-q", "x")
    run_git(git_repo, "merge", "-q", "--no-edit", "y")  # a merge commit
    run_git(git_repo, "checkout", "-q", "--detach", "z")
    run_git(git_repo, "merge", "-q", "--no-edit", "x", "main")  # octopus-ish: z + x (+ main, already in)
    monkeypatch.chdir(git_repo)
    assert scan(cli, capsys, config, "diff", f"{base}...HEAD")[:2] == (1, {"x.py", "y.py", "z.py"})
    assert scan(cli, capsys, config, "diff", f"{base}...HEAD", "--each-commit")[:2] == (1, {"x.py", "y.py", "z.py"})
    assert scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")[:2] == (1, {"x.py", "y.py", "z.py"})


def test_an_octopus_merge_in_a_range(cli: Cli, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    base = head_id(git_repo)
    for index, branch in enumerate(("x", "y")):
        run_git(git_repo, "checkout", "-q", "-b", branch, base)
        commit_files(git_repo, {f"{branch}.py": f"k = '{SECRETS[index]}'\n"}, branch)
    run_git(git_repo, "checkout", "-q", "main")
    commit_files(git_repo, {"m.py": "m = 1\n"}, "main moves on")
    run_git(git_repo, "merge", "-q", "--no-edit", "x", "y")
    assert len(run_git(git_repo, "rev-list", "--parents", "-1", "HEAD").split()) == 4  # three parents
    monkeypatch.chdir(git_repo)
    assert scan(cli, capsys, config, "diff", f"{base}...HEAD", "--each-commit")[:2] == (1, {"x.py", "y.py"})


def test_sparse_checkout(cli: Cli, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    commit_files(git_repo, {"in/a.py": f"k = '{SECRETS[0]}'\n", "out/b.py": f"k = '{SECRETS[1]}'\n"})
    run_git(git_repo, "sparse-checkout", "set", "in")
    assert not (git_repo / "out").exists()
    monkeypatch.chdir(git_repo)
    assert scan(cli, capsys, config, "repo", ".")[:2] == (1, {"in/a.py"})  # the work tree holds only in/
    assert scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")[:2] == (1, {"in/a.py", "out/b.py"})


def test_a_corrupt_object_is_one_clear_error(cli: Cli, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    blob = run_git(git_repo, "rev-parse", "HEAD:a.py").strip()
    loose = git_repo / ".git" / "objects" / blob[:2] / blob[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not zlib")
    monkeypatch.chdir(git_repo)
    code, _, err = scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")
    assert code == 2 and err.startswith("smscan: error:") and err.count("\n") == 1, err


def test_no_commits_yet(cli: Cli, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys, config) -> None:
    write_files(git_repo, {"a.py": f"k = '{SECRETS[0]}'\n"})
    monkeypatch.chdir(git_repo)
    assert scan(cli, capsys, config, "repo", ".")[:2] == (1, {"a.py"})
    assert scan(cli, capsys, config, "staged")[:2] == (0, set())
    code, _, err = scan(cli, capsys, config, "repo", ".", "--rev", "HEAD")
    assert code == 2 and "no commits yet" in err
