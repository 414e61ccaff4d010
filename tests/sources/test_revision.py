"""`repo --rev`: the files of a commit, read from git objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.git import GitRepository
from smscan.sources.revision import iter_revision, link_target
from smscan.sources.selection import Selection
from tests.conftest import commit_files, head_id, init_repo, run_git, write_files


def revision(repo_path: Path, rev: str = "HEAD", under: str = "") -> list[Document | Skip]:
    with GitRepository(repo_path) as repo:
        commit = repo.resolve_commit(rev)
        return list(iter_revision(repo, commit, selection=Selection(), group="g", under=under))


def summary(items: list[Document | Skip]) -> dict[str, str]:
    return {i.path: i.text if isinstance(i, Document) else f"skip:{i.reason}" for i in items}


def test_files_come_from_the_commit_not_the_disk(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "v1\n", "b.py": "b\n"})
    first = head_id(git_repo)
    commit_files(git_repo, {"a.py": "v2\n"}, "v2")
    write_files(git_repo, {"a.py": "work tree\n", "untracked.py": "u\n"})
    (git_repo / "b.py").unlink()
    assert summary(revision(git_repo, first)) == {"a.py": "v1\n", "b.py": "b\n"}
    items = revision(git_repo)
    assert summary(items) == {"a.py": "v2\n", "b.py": "b\n"}
    assert items[0].blob_id == run_git(git_repo, "rev-parse", "HEAD:a.py").strip()  # type: ignore[union-attr]


def test_subfolder_restricts_the_tree(git_repo: Path) -> None:
    commit_files(git_repo, {"pkg/a.py": "a\n", "pkgx/b.py": "b\n", "top.py": "t\n"})
    assert list(summary(revision(git_repo, under="pkg"))) == ["pkg/a.py"]


def test_skips_in_a_tree(git_repo: Path, tmp_path: Path) -> None:
    other = init_repo(tmp_path / "other")
    commit_files(other, {"inner.py": "i\n"})
    commit_files(git_repo, {"real.py": "r\n", "dir/x.py": "x\n", "img.png": b"\x00\x01", "node_modules/m.js": "m\n"})
    run_git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    (git_repo / "link.py").symlink_to("real.py")
    (git_repo / "dirlink").symlink_to("dir")
    (git_repo / "dangling.py").symlink_to("nowhere.py")
    (git_repo / "out.txt").symlink_to("../../outside.txt")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "links")
    found = summary(revision(git_repo))
    assert found.pop(".gitmodules").startswith("[submodule")
    assert found == {
        "dangling.py": "skip:unreadable",
        "dir/x.py": "x\n",
        "img.png": "skip:binary",
        "link.py": "r\n",
        "node_modules/m.js": "skip:vendored",
        "out.txt": "skip:symlink-outside",
        "real.py": "r\n",
        "sub": "skip:submodule",
    }


@pytest.mark.parametrize(
    ("link", "target", "resolved"),
    [
        ("a.txt", b"b.txt", "b.txt"),
        ("d/a.txt", b"../b.txt", "b.txt"),
        ("d/a.txt", b"../../b.txt", None),
        ("a.txt", b"/etc/passwd", None),
        ("a.txt", b"..", None),
        ("a.txt", b"", None),
    ],
)
def test_link_target(link: str, target: bytes, resolved: str | None) -> None:
    assert link_target(link, target) == resolved


def test_missing_revision_is_a_source_error(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    with pytest.raises(SourceError, match="'v9' is not a commit"):
        revision(git_repo, "v9")


def test_staged_changes_are_compared_with_head_or_the_empty_tree(git_repo: Path) -> None:
    with GitRepository(git_repo) as repo:
        empty = repo.empty_tree()
        assert repo.staged_base() == empty  # no commit yet: the first commit's "before"
    commit_files(git_repo, {"a.py": "a\n"})
    with GitRepository(git_repo) as repo:
        assert repo.staged_base() == head_id(git_repo) != empty
