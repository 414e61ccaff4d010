"""The score cache through the CLI, with the fake scorer: reuse, bypass, no text inside, info/clear."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from smscan.cli import main
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG, RandomWordScorer

SECRET = "Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc4Dd6Ee8Ff0"
FILES = {
    ".smscan.toml": TEST_CONFIG,
    "app.py": f'import os\nTOKEN = "{SECRET}"\nprint(TOKEN)\n',
    "util.py": "def double(x):\n    return 2 * x\n",
}


def scan(repo: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(repo)
    return main(["repo", ".", "--format", "json", "-o", str(repo.parent / "report.json"), *args])


def test_an_unchanged_rescan_scores_nothing_and_reports_the_same(
    git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_files(git_repo, FILES)
    assert scan(git_repo, monkeypatch=monkeypatch) == 1
    first = (git_repo.parent / "report.json").read_text()
    scored = list(fake_scorer.texts)

    assert scan(git_repo, monkeypatch=monkeypatch) == 1

    assert fake_scorer.texts == scored
    assert _without_times(first) == _without_times((git_repo.parent / "report.json").read_text())
    (git_repo / "util.py").write_text("def triple(x):\n    return 3 * x\n")
    assert scan(git_repo, monkeypatch=monkeypatch) == 1
    assert fake_scorer.texts[len(scored):] == ["def triple(x):\n    return 3 * x\n"]


@pytest.mark.parametrize("off", ["flag", "config"])
def test_no_cache_and_score_cache_false_bypass_it(
    off: str, git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path
) -> None:
    files = dict(FILES)
    if off == "config":
        files[".smscan.toml"] = TEST_CONFIG + "score_cache = false\n"
    commit_files(git_repo, files)
    args = ["--no-cache"] if off == "flag" else []

    scan(git_repo, *args, monkeypatch=monkeypatch)
    scan(git_repo, *args, monkeypatch=monkeypatch)

    assert len(fake_scorer.texts) == 3 * 2  # every file (the config too), both times
    assert list(score_cache_dir.iterdir()) == []  # nothing written


def test_no_cache_file_holds_the_text_or_its_token_ids(
    git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path
) -> None:
    commit_files(git_repo, FILES)
    scan(git_repo, monkeypatch=monkeypatch)
    stored = b"".join(p.read_bytes() for p in score_cache_dir.rglob("*") if p.is_file())
    ids = fake_scorer.tokenize([FILES["app.py"]])[0].token_ids
    [secret_id] = fake_scorer.tokenize([SECRET])[0].token_ids

    assert len(stored) > 0
    for needle in (SECRET.encode(), SECRET[:12].encode(), b"double", FILES["app.py"].encode(),
                   ids.astype("<i8").tobytes()[:24], np.int64(secret_id).astype("<i8").tobytes(),
                   np.uint32(secret_id).astype("<u4").tobytes(), np.uint32(secret_id).astype(">u4").tobytes()):
        assert needle not in stored


def test_cache_info_and_clear(
    git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, score_cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    commit_files(git_repo, FILES)
    scan(git_repo, monkeypatch=monkeypatch)
    capsys.readouterr()

    assert main(["cache", "info"]) == 0
    info = capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    cleared = capsys.readouterr().out
    assert main(["cache", "info"]) == 0
    after = capsys.readouterr().out

    assert str(score_cache_dir) in info and "entries   3" in info and "bound 200.0 MB" in info
    assert "cleared" in cleared and list(score_cache_dir.iterdir()) == []
    assert "entries   0" in after


def _without_times(report: str) -> str:
    import json

    data = json.loads(report)
    for key in ("seconds", "tokens_per_second"):
        data["stats"].pop(key, None)
    return json.dumps(data, sort_keys=True)
