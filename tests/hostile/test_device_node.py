"""A real character device node inside the tree (``mknod``, as a container image or a copied
``/dev`` can hold): a clear skip, never read (``/dev/zero`` would never end, a tty would block)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from smscan.cli import main
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG, RandomWordScorer

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


def make_zero_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # the device /dev/zero is
    except (PermissionError, AttributeError, OSError) as error:
        pytest.skip(f"cannot make a device node here: {error}")


@pytest.mark.parametrize("tracked", [True, False])
def test_a_device_node_in_the_tree_is_skipped(
    git_repo: Path, fake_scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path, tracked: bool
) -> None:
    commit_files(git_repo, {"ok.py": f"key = '{SECRET}'\n", "zero.py": "z = 0\n"})
    (git_repo / "zero.py").unlink()
    make_zero_device(git_repo / ("zero.py" if tracked else "untracked.py"))
    config = tmp_path / "c.toml"
    config.write_text(TEST_CONFIG)
    monkeypatch.chdir(git_repo)
    name = "zero.py" if tracked else "untracked.py"
    for args in (["repo", "."], ["files", "ok.py", name]):
        code = main([args[0], "--config", str(config), "--format", "json", *args[1:]])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        report = json.loads(captured.out)
        assert code == 1 and [f["path"] for f in report["findings"]] == ["ok.py"], args
        # git lists a tracked path whatever it became, and no untracked device at all
        expected = {} if args[0] == "repo" and not tracked else {"unreadable": 1}
        assert report["stats"]["skipped_by_reason"] == expected, (args, report["stats"])
