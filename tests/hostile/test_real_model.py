"""The real default model behind the hardened git calls: a planted repository still gets its
credential found, and runs none of its commands."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smscan.cli import main
from tests.conftest import commit_files, run_git, stage_files

RANDOM_KEY = "9fQ2xZ7mK4pL8wR3vN6tY1bC5hJ0dG2s"  # 32 random characters
# Read before any fixture points HOME at a temporary folder.
MODEL_CACHE = os.environ.get("SMSCAN_CACHE") or str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smscan")


@pytest.mark.model
def test_a_planted_repository_with_the_real_model(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("SMSCAN_CACHE", MODEL_CACHE)
    commit_files(git_repo, {"settings.py": "DEBUG = False\nTIMEOUT = 30\n"})
    stage_files(git_repo, {"settings.py": f'DEBUG = False\nTIMEOUT = 30\nAPI_KEY = "{RANDOM_KEY}"\n'})
    pwned = tmp_path / "pwned"
    pwned.mkdir()
    run_git(git_repo, "config", "core.fsmonitor", f"touch {pwned / 'fsmonitor'}; echo")
    (git_repo / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
    run_git(git_repo, "config", "filter.evil.clean", f"touch {pwned / 'clean'}; cat")
    run_git(git_repo, "config", "diff.evil.textconv", f"touch {pwned / 'textconv'}; cat")
    monkeypatch.chdir(git_repo)
    for args in (["repo", "."], ["staged"]):
        code = main([*args, "--format", "json"])
        report = json.loads(capsys.readouterr().out)
        assert code == 1 and [(f["path"], f["kind"], f["start"]["line"]) for f in report["findings"]] == [
            ("settings.py", "credential", 3)
        ], args
    assert list(pwned.iterdir()) == []
