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


@pytest.mark.model
def test_invisible_characters_do_not_hide_a_credential(git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Trojan Source: a zero-width space, zero-width joiners or a bidi override written into a key
    leave it a credential finding (and the report shows them escaped)."""
    monkeypatch.setenv("SMSCAN_CACHE", MODEL_CACHE)
    key = RANDOM_KEY
    variants = {
        "plain.py": key,
        "zero_width.py": f"{key[:16]}\u200b{key[16:]}",
        "joiners.py": "\u200d".join(key[i : i + 4] for i in range(0, 32, 4)),
        "bidi.py": f"\u202e{key}\u202c",
    }
    commit_files(git_repo, {name: f'DEBUG = False\nAPI_KEY = "{value}"\n' for name, value in variants.items()})
    monkeypatch.chdir(git_repo)
    code = main(["repo", ".", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    found = sorted((f["path"], f["kind"], f["start"]["line"]) for f in report["findings"])
    assert code == 1 and found == sorted((name, "credential", 2) for name in variants)
    code = main(["repo", ".", "--no-redact"])
    out = capsys.readouterr().out
    assert "\u200b" not in out and "\u202e" not in out and "\\u202e" in out and "\\u200b" in out
