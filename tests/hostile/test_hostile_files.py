"""Odd and hostile files in a real repository: a clear skip or a finding, never a traceback, a hang
or a read outside the repository.

Every scan runs with the fake scorer, which records each text it is asked to score: a secret kept
outside the repository must never be among them, whichever way a link or folder points at it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import commit_files, run_git, write_files
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
OUTSIDE_SECRET = "Zt3kq8Px0wOUTSIDE9Rv2Yc7"


pytestmark = pytest.mark.usefixtures("no_hang")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.py").write_text(f"key = '{OUTSIDE_SECRET}'\n")
    return folder


@pytest.fixture
def config(tmp_path: Path) -> list[str]:
    path = tmp_path / "c.toml"
    path.write_text(TEST_CONFIG + "max_file_bytes = 100000\n")
    return ["--config", str(path), "--format", "json"]


def scan(cli: Cli, capsys: pytest.CaptureFixture[str], config: list[str], command: str, *args: str) -> tuple[int, dict, str]:
    code = cli.main([command, *config, *args])  # options before the arguments, which may follow "--"
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert OUTSIDE_SECRET not in captured.out + captured.err
    return code, (json.loads(captured.out) if captured.out.strip() else {}), captured.err


def skipped(report: dict) -> dict[str, int]:
    return report["stats"]["skipped_by_reason"]


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    monkeypatch.chdir(git_repo)
    return git_repo


def test_links_out_of_the_repository_are_never_followed(repo: Path, outside: Path, capsys, config, cli) -> None:
    commit_files(repo, {"a.py": f"key = '{SECRET}'\n"})
    (repo / "out.py").symlink_to(outside / "secret.py")
    (repo / "zero.py").symlink_to("/dev/zero")
    (repo / "dir").symlink_to(outside, target_is_directory=True)
    (repo / "dotdot.py").symlink_to("../outside/secret.py")
    run_git(repo, "add", "out.py", "zero.py", "dir", "dotdot.py")
    run_git(repo, "commit", "-qm", "links")
    for args in (["repo", "."], ["repo", ".", "--rev", "HEAD"], ["files", "out.py", "zero.py", "dotdot.py"]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert code in (0, 1) and skipped(report).get("symlink-outside", 0) >= 3, (args, report["stats"])
    assert not any(OUTSIDE_SECRET in text for text in cli.scorer.texts)


def test_a_tracked_file_under_a_folder_swapped_for_an_outside_link_is_not_read(
    repo: Path, outside: Path, capsys, config, cli
) -> None:
    commit_files(repo, {"sub/secret.py": "clean = 1\n", "a.py": "a = 1\n"})
    (repo / "sub" / "secret.py").unlink()
    (repo / "sub").rmdir()
    (repo / "sub").symlink_to(outside, target_is_directory=True)  # git still lists sub/secret.py
    for args in (["repo", "."], ["files", "sub/secret.py"], ["hook", "sub/secret.py"]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert (code, set(skipped(report))) == (0, {"symlink-outside"}), args
    assert not any(OUTSIDE_SECRET in text for text in cli.scorer.texts)


def test_fifo_device_and_huge_binary_and_undecodable_files_are_skipped(cli: Cli, repo: Path, capsys, config) -> None:
    commit_files(repo, {"fifo.py": "x = 1\n", "ok.py": f"key = '{SECRET}'\n"})
    (repo / "fifo.py").unlink()
    os.mkfifo(repo / "fifo.py")  # tracked, so git lists it
    write_files(
        repo,
        {
            "huge.js": "var a=1;" * 20_000,  # one 160 kB line, over max_file_bytes
            "nul.py": b"x = 1\0\0\0",
            "latin1.py": b"x = '\xe9\xff\xfe'\n",
            "empty.py": b"",
        },
    )
    for args in (["repo", "."], ["files", "fifo.py", "huge.js", "nul.py", "latin1.py", "ok.py"]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert code == 1 and [f["path"] for f in report["findings"]] == ["ok.py"]
        reasons = skipped(report)
        assert reasons.get("unreadable") == 1 and reasons.get("too-large") == 1 and reasons.get("binary") == 1, reasons
        assert report["stats"]["files_scanned"] + sum(reasons.values()) >= 4


@pytest.mark.parametrize(
    "name",
    ["new\nline.py", "quote'\"s.py", "sp ace.py", "ünï cödé.py", "tab\there.py", "-dash.py", "a:1.py"],
)
def test_odd_file_names_are_scanned_and_named_exactly(cli: Cli, repo: Path, capsys, config, name: str) -> None:
    commit_files(repo, {name: f"key = '{SECRET}'\n"})
    for args in (["repo", "."], ["repo", ".", "--rev", "HEAD"], ["files", "--", name]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert (code, [f["path"] for f in report["findings"]]) == (1, [name]), args


def test_a_file_name_that_is_not_utf8(cli: Cli, repo: Path, capsys, config) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (repo / name).write_text(f"key = '{SECRET}'\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "latin-1 name")
    for args in (["repo", "."], ["repo", ".", "--rev", "HEAD"]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert code == 1 and len(report["findings"]) == 1
    code = cli.main(["repo", ".", "--config", config[1]])  # the text report prints it too
    out = capsys.readouterr().out
    assert code == 1 and "caf\\xe9.py" in out
    staged = os.fsdecode(b"n\xe9w.py")
    (repo / staged).write_text(f"key = '{SECRET}'\n")
    run_git(repo, "add", "-A")
    for args in (["staged"], ["hook", "--", staged]):
        code, report, _ = scan(cli, capsys, config, *args)
        assert (code, [f["path"] for f in report["findings"]]) == (1, [staged]), args
    run_git(repo, "commit", "-qm", "another")
    code, report, _ = scan(cli, capsys, config, "diff", "HEAD~1", "--each-commit")
    assert (code, [f["path"] for f in report["findings"]]) == (1, [staged])
    for report_format in ("sarif", "text"):
        code = cli.main(["repo", "--config", config[1], ".", "--format", report_format, "-o", f"r.{report_format}"])
        assert (code, capsys.readouterr().err.count("Traceback")) == (1, 0)
        assert (repo / f"r.{report_format}").read_text(encoding="utf-8")


def test_submodules_are_skipped_not_entered(repo: Path, tmp_path: Path, capsys, config, cli) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    run_git(inner, "init", "-q")
    commit_files(inner, {"s.py": f"key = '{OUTSIDE_SECRET}'\n"})
    commit_files(repo, {"a.py": "a = 1\n"})
    run_git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.as_uri(), "sub")
    run_git(repo, "commit", "-qm", "submodule")
    for args in (["repo", "."], ["repo", ".", "--rev", "HEAD"], ["diff", "HEAD~1"]):
        _, report, _ = scan(cli, capsys, config, *args)
        assert skipped(report).get("submodule") == 1, (args, report["stats"])
        assert not any(f["path"].startswith("sub") for f in report["findings"])
    assert not any(OUTSIDE_SECRET in text for text in cli.scorer.texts)


def test_an_unreadable_file_is_skipped(cli: Cli, repo: Path, capsys, config, monkeypatch: pytest.MonkeyPatch) -> None:
    commit_files(repo, {"locked.py": f"key = '{SECRET}'\n", "ok.py": "y = 1\n"})
    (repo / "locked.py").chmod(0)
    if os.geteuid() == 0:  # root reads whatever the mode: refuse the open as the kernel would
        real_open = os.open

        def refusing_open(path: object, *args: object, **kwargs: object) -> int:
            if Path(os.fsdecode(path)).name == "locked.py":  # type: ignore[arg-type]
                raise PermissionError(13, "Permission denied", os.fsdecode(path))  # type: ignore[arg-type]
            return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "open", refusing_open)
    try:
        for args in (["repo", "."], ["files", "locked.py", "ok.py"]):
            code, report, _ = scan(cli, capsys, config, *args)
            assert (code, skipped(report)) == (0, {"unreadable": 1}), args
    finally:
        (repo / "locked.py").chmod(0o644)


def test_a_repository_config_moving_the_work_tree_out_is_not_followed(repo: Path, outside: Path, capsys, config, cli) -> None:
    commit_files(repo, {"a.py": "a = 1\n"})
    run_git(repo, "config", "core.worktree", str(outside))
    code, report, err = scan(cli, capsys, config, "repo", ".")
    assert (code, report["stats"]["files_scanned"]) == (0, 1), err  # its own a.py only
    assert not any(OUTSIDE_SECRET in text for text in cli.scorer.texts)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_explain_refuses_what_is_not_a_regular_file(cli: Cli, repo: Path, capsys, config, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(repo / "target.py")
    elif kind == "dev-zero":
        (repo / "target.py").symlink_to("/dev/zero")
    else:
        (repo / "target.py").mkdir()
    code = cli.main(["explain", config[0], config[1], "target.py"])
    err = capsys.readouterr().err
    assert code == 2 and "target.py: cannot read the file" in err and "Traceback" not in err


def test_verbose_text_report_names_each_skipped_file(cli: Cli, repo: Path, outside: Path, capsys, config) -> None:
    commit_files(repo, {"ok.py": "a = 1\n", "img.png": b"\x89PNG\0\0", "esc\x1b.py": b"\0"})
    (repo / "out.py").symlink_to(outside / "secret.py")
    text_config = [config[0], config[1]]
    assert cli.main(["repo", *text_config, "."]) == 0
    quiet_out = capsys.readouterr().out
    assert "img.png" not in quiet_out and "binary" in quiet_out  # counted, not named
    assert cli.main(["repo", *text_config, ".", "-v"]) == 0
    out = capsys.readouterr().out
    assert "binary           img.png" in out and "binary           esc\\x1b.py" in out
    assert "symlink-outside  out.py" in out and "\x1b" not in out


@pytest.mark.parametrize(
    ("content", "outcome"),
    [
        (f"key = '{SECRET}'\r\nb = 1\nc = 2\r\n".encode(), "found"),  # mixed CRLF and LF
        ("\ufeff" + f"key = '{SECRET}'\n", "found"),  # UTF-8 with BOM
        (("\ufeff" + f"key = '{SECRET}'\n").encode("utf-16-le"), "found-or-skipped"),
        (b"x = '" + b"QUJ0" * 240_000 + b"'\n", "found"),  # a ~1 MB line of base64, under the limit
        (b"var a=1;" * 1_300_000, "too-large"),  # a 10 MB single-line minified file
    ],
)
def test_encodings_line_endings_and_giant_lines(cli: Cli, repo: Path, capsys, tmp_path: Path, content: bytes | str, outcome: str) -> None:
    commit_files(repo, {"f.py": content})
    path = tmp_path / "default.toml"
    path.write_text(TEST_CONFIG)  # the default max_file_bytes (1 MB)
    code, report, _ = scan(cli, capsys, ["--config", str(path), "--format", "json"], "repo", ".")
    found = [(f["path"], f["start"]["line"]) for f in report["findings"]]
    reasons = skipped(report)
    if outcome == "found":
        assert (code, found) == (1, [("f.py", 1)])
    elif outcome == "too-large":
        assert (code, reasons) == (0, {"too-large": 1})
    else:
        assert code in (0, 1) and (found or reasons), report["stats"]


def test_a_baseline_of_a_file_name_that_is_not_utf8(cli: Cli, repo: Path, capsys, config) -> None:
    name = os.fsdecode(b"caf\xe9\xe2\x80\xae.py")  # an undecodable byte, then a bidi override
    (repo / name).write_text(f"key = '{SECRET}'\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "odd name")
    assert cli.main(["baseline", config[0], config[1], "-o", "b.json"]) == 0
    saved = (repo / "b.json").read_text(encoding="utf-8")
    assert "\u202e" not in saved and json.loads(saved)["entries"][0]["path"] == name
    code, report, err = scan(cli, capsys, [*config, "--baseline", "b.json"], "repo", ".")
    assert (code, report["findings"]) == (0, []), err
