"""Files that change, vanish or turn into something else while a scan runs: the scan reads
each file once, as it is when read, and never stops with a traceback or hangs.

The scan lists the tree, then reads each file: the moment its first read starts, the other
files change, vanish or are replaced (a FIFO, a folder, a link out), and the file being read is
rewritten right after; the report keeps what was read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smscan.cli import main
from smscan.sources import worktree
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG, RandomWordScorer

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
OTHER_SECRET = "Lm9Rv2q8Zt3kPx0wHn4BdYc7"


pytestmark = pytest.mark.usefixtures("no_hang")


def change_on_first_read(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    """When the scan reads its first file, the others change under it (as an editor or a
    build would): after the listing, before they are read."""
    original = worktree.read_regular_file
    calls = {"n": 0}

    def changing(path: Path, *, limit: int) -> bytes | None:
        calls["n"] += 1
        if calls["n"] == 1:
            (repo / "m30.py").unlink()  # listed, then gone
            (repo / "m31.py").write_text(f"key = '{SECRET}'\n")  # listed clean, read with a key
            (repo / "m32.py").unlink()
            os.mkfifo(repo / "m32.py")  # listed as a file, now a FIFO
            (repo / "m33.py").unlink()
            (repo / "m33.py").mkdir()  # now a folder
            (repo / "m34.py").unlink()
            (repo / "m34.py").symlink_to("/dev/zero")  # now a link out
        data = original(path, limit=limit)
        if calls["n"] == 1:
            path.write_text(f"key = '{OTHER_SECRET}'\n")  # changed right after it was read
        return data

    monkeypatch.setattr(worktree, "read_regular_file", changing)


@pytest.mark.parametrize("args", [["repo", "."], ["files", *[f"m{i:02}.py" for i in range(40)]]])
def test_files_changing_during_a_scan(
    git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path, args: list[str]
) -> None:
    commit_files(git_repo, {f"m{i:02}.py": f"value_{i} = {i}\n" for i in range(40)})
    config = tmp_path / "c.toml"
    config.write_text(TEST_CONFIG)
    monkeypatch.chdir(git_repo)
    change_on_first_read(monkeypatch, git_repo)
    code = main([args[0], "--config", str(config), "--format", "json", *args[1:]])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    report = json.loads(captured.out)
    assert code == 1, captured.err
    assert [f["path"] for f in report["findings"]] == ["m31.py"]  # read once, as it was when read
    skipped = report["stats"]["skipped_by_reason"]
    assert skipped.get("unreadable", 0) + skipped.get("symlink-outside", 0) >= 2, skipped
    assert report["stats"]["files_scanned"] >= 34
    assert not any(OTHER_SECRET in text for text in fake_scorer.texts)  # m00 was read before
