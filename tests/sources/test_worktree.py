from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any

import pytest

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.select import PathFilter
from smscan.sources.worktree import find_root, iter_worktree
from tests.conftest import commit_files, init_repo, run_git, write_files

MAX = 1000
LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


def scan(path: Path, **kwargs: object) -> list[Document | Skip]:
    return list(iter_worktree(path, max_file_bytes=MAX, **kwargs))  # type: ignore[arg-type]


def paths(items: list[Document | Skip]) -> list[str]:
    return [item.path for item in items]


def skips(items: list[Document | Skip]) -> dict[str, str]:
    return {item.path: item.reason for item in items if isinstance(item, Skip)}


def texts(items: list[Document | Skip]) -> dict[str, str]:
    return {item.path: item.text for item in items if isinstance(item, Document)}


# --- root -----------------------------------------------------------------------------------


def test_find_root_is_the_git_top_level_from_a_subfolder(git_repo: Path) -> None:
    commit_files(git_repo, {"pkg/a.py": "a = 1\n"})
    assert find_root(git_repo / "pkg") == (git_repo.resolve(), True)


def test_find_root_of_a_plain_folder_is_the_folder(tmp_path: Path, git_env: Path) -> None:
    assert find_root(tmp_path) == (tmp_path.resolve(), False)


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_bad_path_raises_source_error_naming_it(tmp_path: Path, git_env: Path, kind: str) -> None:
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("x")
    with pytest.raises(SourceError, match=str(target)):
        scan(target)


# --- git work tree --------------------------------------------------------------------------


def test_tracked_and_untracked_listed_ignored_left_out(git_repo: Path) -> None:
    commit_files(git_repo, {".gitignore": "*.log\nbuild/\n", "b.py": "b\n", "a/c.py": "c\n"})
    write_files(git_repo, {"new.py": "n\n", "debug.log": "x\n", "build/out.py": "o\n"})
    (git_repo / ".git" / "info" / "exclude").write_text("secret.txt\n")
    write_files(git_repo, {"secret.txt": "s\n"})
    items = scan(git_repo)
    assert paths(items) == [".gitignore", "a/c.py", "b.py", "new.py"]
    group = git_repo.resolve().as_posix()
    assert items[1] == Document(path="a/c.py", text="c\n", group=group, blob_id=None)


def test_subfolder_path_restricts_to_it_with_root_relative_paths(git_repo: Path) -> None:
    commit_files(git_repo, {"top.py": "t\n", "pkg/a.py": "a\n", "pkg/sub/b.py": "b\n"})
    write_files(git_repo, {"pkg/untracked.py": "u\n", "pkgx/c.py": "c\n"})
    items = scan(git_repo / "pkg")
    assert paths(items) == ["pkg/a.py", "pkg/sub/b.py", "pkg/untracked.py"]
    assert {item.group for item in items if isinstance(item, Document)} == {
        git_repo.resolve().as_posix()
    }


def test_subfolder_with_pathspec_magic_characters_is_literal(git_repo: Path) -> None:
    commit_files(git_repo, {"we*rd/a.py": "a\n", "weXrd/b.py": "b\n"})
    assert paths(scan(git_repo / "we*rd")) == ["we*rd/a.py"]


def test_file_deleted_from_work_tree_is_left_out(git_repo: Path) -> None:
    commit_files(git_repo, {"gone.py": "g\n", "kept.py": "k\n"})
    (git_repo / "gone.py").unlink()
    assert scan(git_repo) == [Document("kept.py", "k\n", git_repo.resolve().as_posix())]


def test_modified_file_is_read_from_the_work_tree(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "old\n"})
    write_files(git_repo, {"a.py": "new\n"})
    assert texts(scan(git_repo)) == {"a.py": "new\n"}


def test_output_is_sorted_by_posix_path(git_repo: Path) -> None:
    commit_files(git_repo, {"a/b.py": "1\n", "a.py": "2\n", "a-b.py": "3\n", "B.py": "4\n"})
    write_files(git_repo, {"a0.py": "5\n"})
    assert paths(scan(git_repo)) == sorted(["a/b.py", "a.py", "a-b.py", "B.py", "a0.py"])


def test_content_skips_in_a_repository(git_repo: Path) -> None:
    commit_files(
        git_repo,
        {
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "big.txt": "x" * (MAX + 1),
            "latin1.txt": b"caf\xe9\n",
            "model.bin": LFS_POINTER,
            "empty.py": "",
            "ok.py": "x" * MAX,
        },
    )
    assert skips(scan(git_repo)) == {
        "image.png": "binary",
        "big.txt": "too-large",
        "latin1.txt": "undecodable",
        "model.bin": "lfs-pointer",
        "empty.py": "empty",
    }


def test_too_large_file_is_not_read(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit_files(git_repo, {"big.txt": "x" * (MAX + 1)})
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: _NoRead(real_fdopen(*a, **k)))
    assert skips(scan(git_repo)) == {"big.txt": "too-large"}


class _NoRead:
    """Wraps a file object and fails on read, to prove a too-large file is never read."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def __enter__(self) -> _NoRead:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def fileno(self) -> int:
        return int(self._file.fileno())

    def read(self, size: int = -1) -> bytes:
        raise AssertionError("read a file whose size was over the limit")


def test_text_is_kept_as_stored(git_repo: Path) -> None:
    run_git(git_repo, "config", "core.autocrlf", "false")
    commit_files(
        git_repo,
        {
            "bom8.py": codecs.BOM_UTF8 + b"x = 1\n",
            "crlf.py": b"a = 1\r\nb = 2\r\n",
            "wide.txt": codecs.BOM_UTF16_LE + "key = 'v'\r\n".encode("utf-16-le"),
        },
    )
    assert texts(scan(git_repo)) == {
        "bom8.py": "\ufeffx = 1\n",
        "crlf.py": "a = 1\r\nb = 2\r\n",
        "wide.txt": "\ufeffkey = 'v'\r\n",
    }


def test_submodule_is_skipped_not_entered(git_repo: Path, tmp_path: Path) -> None:
    other = init_repo(tmp_path / "other")
    commit_files(other, {"inner.py": "i\n"})
    commit_files(git_repo, {"a.py": "a\n"})
    run_git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    run_git(git_repo, "commit", "-q", "-m", "add submodule")
    items = scan(git_repo)
    assert paths(items) == [".gitmodules", "a.py", "sub"]
    assert skips(items) == {"sub": "submodule"}


def test_untracked_nested_repository_is_a_submodule_skip(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    nested = init_repo(git_repo / "nested")
    commit_files(nested, {"inner.py": "i\n"})
    assert skips(scan(git_repo)) == {"nested": "submodule"}


def test_symlink_out_of_the_root_is_skipped(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    commit_files(git_repo, {"a.py": "a\n"})
    (git_repo / "out.txt").symlink_to(outside)
    (git_repo / "up.txt").symlink_to("../outside.txt")
    items = scan(git_repo)
    assert skips(items) == {"out.txt": "symlink-outside", "up.txt": "symlink-outside"}
    assert "outside\n" not in texts(items).values()


def test_symlink_inside_root_scans_target_under_link_path(git_repo: Path) -> None:
    commit_files(git_repo, {"real.py": "r\n", "dir/x.py": "x\n"})
    (git_repo / "link.py").symlink_to("real.py")
    (git_repo / "dirlink").symlink_to("dir")
    (git_repo / "dangling.py").symlink_to("nowhere.py")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "links")
    items = scan(git_repo)
    assert texts(items) == {"dir/x.py": "x\n", "link.py": "r\n", "real.py": "r\n"}
    assert skips(items) == {"dangling.py": "unreadable"}


def test_include_exclude_filters(git_repo: Path) -> None:
    commit_files(
        git_repo, {"src/a.py": "a\n", "src/b.md": "b\n", "tests/t.py": "t\n", "image.png": b"\0"}
    )
    items = scan(git_repo, path_filter=PathFilter(include=("*.py", "*.png"), exclude=("tests/",)))
    assert paths(items) == ["image.png", "src/a.py"]
    assert skips(items) == {"image.png": "binary"}


def test_filter_applies_to_root_relative_paths_from_a_subfolder(git_repo: Path) -> None:
    commit_files(git_repo, {"pkg/a.py": "a\n", "pkg/gen/b.py": "b\n"})
    items = scan(git_repo / "pkg", path_filter=PathFilter(exclude=("/pkg/gen/",)))
    assert paths(items) == ["pkg/a.py"]


def test_empty_repository_yields_nothing(git_repo: Path) -> None:
    assert scan(git_repo) == []


# --- plain folder ---------------------------------------------------------------------------


def test_empty_folder_yields_nothing(tmp_path: Path, git_env: Path) -> None:
    assert scan(tmp_path) == []


def test_plain_folder_honours_nested_gitignore_files(tmp_path: Path, git_env: Path) -> None:
    write_files(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n",
            "a.py": "a\n",
            "x.log": "l\n",
            "build/out.py": "o\n",
            "sub/.gitignore": "!keep.log\nlocal.py\n",
            "sub/keep.log": "k\n",
            "sub/drop.log": "d\n",
            "sub/local.py": "l\n",
            "local.py": "top\n",
            "sub/deeper/local.py": "d\n",
            ".git/config": "[core]\n",
        },
    )
    assert paths(scan(tmp_path)) == [".gitignore", "a.py", "local.py", "sub/.gitignore", "sub/keep.log"]


def test_plain_folder_cannot_reinclude_below_an_ignored_folder(
    tmp_path: Path, git_env: Path
) -> None:
    write_files(tmp_path, {".gitignore": "gen/\n!gen/keep.py\n", "gen/keep.py": "k\n"})
    assert paths(scan(tmp_path)) == [".gitignore"]


def test_plain_folder_paths_are_relative_to_path(tmp_path: Path, git_env: Path) -> None:
    write_files(tmp_path / "proj", {"a/b.py": "b\n"})
    items = scan(tmp_path / "proj")
    assert items == [Document("a/b.py", "b\n", (tmp_path / "proj").resolve().as_posix())]


def test_plain_folder_symlinks(tmp_path: Path, git_env: Path) -> None:
    root = tmp_path / "proj"
    write_files(root, {"real.py": "r\n", "dir/x.py": "x\n"})
    write_files(tmp_path, {"outside.py": "o\n"})
    (root / "link.py").symlink_to("real.py")
    (root / "out.py").symlink_to(tmp_path / "outside.py")
    (root / "loop").symlink_to(".")
    items = scan(root)
    assert texts(items) == {"dir/x.py": "x\n", "link.py": "r\n", "real.py": "r\n"}
    assert skips(items) == {"out.py": "symlink-outside"}


def test_fifo_is_unreadable_and_does_not_block(tmp_path: Path, git_env: Path) -> None:
    write_files(tmp_path, {"a.py": "a\n"})
    os.mkfifo(tmp_path / "pipe")
    assert skips(scan(tmp_path)) == {"pipe": "unreadable"}


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root reads files whatever their mode; see the monkeypatched test below",
)
def test_permission_denied_file_is_unreadable(tmp_path: Path, git_env: Path) -> None:
    write_files(tmp_path, {"a.py": "a\n", "locked.py": "l\n"})
    (tmp_path / "locked.py").chmod(0)
    try:
        items = scan(tmp_path)
    finally:
        (tmp_path / "locked.py").chmod(0o644)
    assert skips(items) == {"locked.py": "unreadable"}
    assert texts(items) == {"a.py": "a\n"}


def test_open_failure_is_unreadable_and_scan_goes_on(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_files(git_repo, {"a.py": "a\n", "locked.py": "l\n", "z.py": "z\n"})
    real_open = os.open

    def deny_locked(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", deny_locked)
    items = scan(git_repo)
    assert skips(items) == {"locked.py": "unreadable"}
    assert texts(items) == {"a.py": "a\n", "z.py": "z\n"}
