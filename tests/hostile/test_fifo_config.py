"""Files a repository's config or tree names, planted as real FIFOs: one clear outcome, never a hang.

A read of a FIFO blocks until a writer comes, which never happens in a scan: a ``.smscanignore``,
a ``.gitignore`` of a plain folder or a baseline named by the config hung ``smscan repo`` before
they were read through ``smscan.fileio.regular``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smscan.fileio.regular import NotRegularFile, read_config_file, read_regular_file
from tests.cli_runner import Cli
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


pytestmark = pytest.mark.usefixtures("no_hang")


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    commit_files(git_repo, {"a.py": f"key = '{SECRET}'\n", "b.py": "b = 1\n"})
    monkeypatch.chdir(git_repo)
    return git_repo


def run(cli: Cli, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def test_a_fifo_smscanignore_ignores_nothing(cli: Cli, repo: Path, capsys) -> None:
    os.mkfifo(repo / ".smscanignore")
    (repo / ".smscan.toml").write_text(TEST_CONFIG)
    code, out, err = run(cli, capsys, "repo", ".", "--format", "json")
    assert code == 1, err
    assert [f["path"] for f in json.loads(out)["findings"]] == ["a.py"]


@pytest.mark.parametrize("given", ["config", "flag"])
def test_a_fifo_baseline_is_one_clear_error(cli: Cli, repo: Path, capsys, given: str) -> None:
    os.mkfifo(repo / "b.json")
    config = TEST_CONFIG + ('baseline = "b.json"\n' if given == "config" else "")
    (repo / ".smscan.toml").write_text(config)
    args = ["repo", "."] + (["--baseline", "b.json"] if given == "flag" else [])
    code, _, err = run(cli, capsys, *args)
    assert code == 2 and "b.json: cannot read the baseline: not a regular file" in err
    assert err.count("\n") == 1


def test_writing_a_baseline_over_a_fifo_replaces_it(cli: Cli, repo: Path, capsys) -> None:
    os.mkfifo(repo / "b.json")
    (repo / ".smscan.toml").write_text(TEST_CONFIG + 'baseline = "b.json"\n')
    code, _, err = run(cli, capsys, "baseline")
    assert code == 0, err
    assert json.loads((repo / "b.json").read_text())["entries"]  # now a regular file
    assert run(cli, capsys, "repo", ".")[0] == 0  # and read as the baseline


def test_a_fifo_thresholds_file_is_one_clear_error(cli: Cli, repo: Path, capsys) -> None:
    os.mkfifo(repo / "t.json")
    (repo / ".smscan.toml").write_text('thresholds = "t.json"\nkinds = ["credential"]\n')
    code, _, err = run(cli, capsys, "repo", ".")
    assert code == 2 and "t.json" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", [".smscan.toml", "pyproject.toml"])
def test_a_fifo_config_file_is_not_read(cli: Cli, repo: Path, capsys, name: str) -> None:
    os.mkfifo(repo / name)
    code, _, err = run(cli, capsys, "repo", ".", "--kinds", "surprise", "--threshold", "3", "--format", "json")
    assert code == 1, err  # the defaults and the flags: the FIFO is no config file
    code, _, err = run(cli, capsys, "repo", ".", "--config", name)
    assert code == 2 and f"{name}: config file not found" in err


def test_a_fifo_gitignore_in_a_plain_folder(tmp_path: Path, capsys, cli: Cli) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text(f"key = '{SECRET}'\n")
    os.mkfifo(folder / ".gitignore")
    sub = folder / "sub"
    sub.mkdir()
    os.mkfifo(sub / ".gitignore")
    (sub / "c.py").write_text("c = 1\n")
    config = tmp_path / "c.toml"
    config.write_text(TEST_CONFIG)
    code, out, err = run(cli, capsys, "repo", str(folder), "--config", str(config), "--format", "json")
    report = json.loads(out)
    assert code == 1, err
    assert [f["path"] for f in report["findings"]] == ["a.py"]
    # The FIFOs themselves are files of the tree: counted as unreadable, not read.
    assert report["stats"]["skipped_by_reason"] == {"unreadable": 2}


def test_read_regular_file_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    for path in (tmp_path / "fifo", tmp_path / "folder", Path("/dev/zero")):
        with pytest.raises(NotRegularFile) as caught:
            read_regular_file(path, limit=10)
        assert caught.value.strerror == "not a regular file"
    (tmp_path / "f").write_bytes(b"x" * 11)
    assert read_regular_file(tmp_path / "f", limit=10) is None
    assert read_regular_file(tmp_path / "f", limit=11) == b"x" * 11
    assert read_config_file(tmp_path / "f") == b"x" * 11


def test_a_config_file_is_read_bounded_and_as_utf_8(cli: Cli, repo: Path, capsys, monkeypatch) -> None:
    from smscan.fileio import regular as regular_files

    (repo / ".smscan.toml").write_text("# " + "x" * 100 + '\nkinds = ["credential"]\n')
    with monkeypatch.context() as patched:
        patched.setattr(regular_files, "CONFIG_FILE_LIMIT", 64)
        code, _, err = run(cli, capsys, "repo", ".")
    assert code == 2 and ".smscan.toml: cannot read: larger than" in err and err.count("\n") == 1
    (repo / ".smscan.toml").write_bytes(b'kinds = ["credential"]\n# \xff\n')
    code, _, err = run(cli, capsys, "repo", ".")
    assert code == 2 and ".smscan.toml: not valid TOML: not UTF-8" in err and err.count("\n") == 1
