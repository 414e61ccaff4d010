"""The score cache through the CLI, with the fake model injected behind it (the ``cli`` fixture):
reuse, bypass, no text inside, info/clear."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cli_runner import Cli
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG

SECRET = "Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc4Dd6Ee8Ff0"
FILES = {
    ".smscan.toml": TEST_CONFIG,
    "app.py": f'import os\nTOKEN = "{SECRET}"\nprint(TOKEN)\n',
    "util.py": "def double(x):\n    return 2 * x\n",
}


def scan(cli: Cli, repo: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(repo)
    return cli("repo", ".", "--format", "json", "-o", str(repo.parent / "report.json"), *args).code


def test_an_unchanged_rescan_scores_nothing_and_reports_the_same(
    git_repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_files(git_repo, FILES)
    assert scan(cli, git_repo, monkeypatch=monkeypatch) == 1
    first = (git_repo.parent / "report.json").read_text()
    scored = list(cli.scorer.texts)

    assert scan(cli, git_repo, monkeypatch=monkeypatch) == 1

    assert cli.scorer.texts == scored
    assert _without_times(first) == _without_times((git_repo.parent / "report.json").read_text())
    (git_repo / "util.py").write_text("def triple(x):\n    return 3 * x\n")
    assert scan(cli, git_repo, monkeypatch=monkeypatch) == 1
    assert cli.scorer.texts[len(scored):] == ["def triple(x):\n    return 3 * x\n"]


@pytest.mark.parametrize("off", ["flag", "config"])
def test_no_cache_and_score_cache_false_bypass_it(
    off: str, git_repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path
) -> None:
    files = dict(FILES)
    if off == "config":
        files[".smscan.toml"] = TEST_CONFIG + "score_cache = false\n"
    commit_files(git_repo, files)
    args = ["--no-cache"] if off == "flag" else []

    scan(cli, git_repo, *args, monkeypatch=monkeypatch)
    scan(cli, git_repo, *args, monkeypatch=monkeypatch)

    assert len(cli.scorer.texts) == 3 * 2  # every file (the config too), both times
    assert list(score_cache_dir.iterdir()) == []  # nothing written


def test_no_cache_file_holds_the_text_or_its_token_ids(
    git_repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path
) -> None:
    commit_files(git_repo, FILES)
    scan(cli, git_repo, monkeypatch=monkeypatch)
    stored = b"".join(p.read_bytes() for p in score_cache_dir.rglob("*") if p.is_file())
    ids = cli.scorer.tokenize([FILES["app.py"]])[0].token_ids
    [secret_id] = cli.scorer.tokenize([SECRET])[0].token_ids

    assert len(stored) > 0
    for needle in (SECRET.encode(), SECRET[:12].encode(), b"double", FILES["app.py"].encode(),
                   ids.astype("<i8").tobytes()[:24], np.int64(secret_id).astype("<i8").tobytes(),
                   np.uint32(secret_id).astype("<u4").tobytes(), np.uint32(secret_id).astype(">u4").tobytes()):
        assert needle not in stored


def test_cache_info_and_clear(
    git_repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path,
) -> None:
    commit_files(git_repo, FILES)
    scan(cli, git_repo, monkeypatch=monkeypatch)

    info = cli("cache", "info")
    cleared = cli("cache", "clear")
    after = cli("cache", "info")

    assert (info.code, cleared.code, after.code) == (0, 0, 0)
    assert str(score_cache_dir) in info.out and "entries   3" in info.out and "bound 200.0 MB" in info.out
    assert "cleared" in cleared.out and list(score_cache_dir.iterdir()) == []
    assert "entries   0" in after.out


def _without_times(report: str) -> str:
    import json

    data = json.loads(report)
    for key in ("seconds", "tokens_per_second"):
        data["stats"].pop(key, None)
    return json.dumps(data, sort_keys=True)
