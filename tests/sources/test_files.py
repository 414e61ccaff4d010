"""`files` (named files, whole) and `hook` (per file: staged/range changes, else whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.files import iter_files, iter_hook, relative_names
from smscan.sources.git import GitRepository
from smscan.sources.selection import Selection
from tests.conftest import commit_files, head_id, run_git, stage_files, write_files


def summary(items: list[Document | Skip]) -> dict[str, object]:
    return {
        i.path: (i.text, i.changed_lines) if isinstance(i, Document) else i.reason for i in items
    }


def hook(repo_path: Path, names: list[str], environ: dict[str, str] | None = None) -> dict[str, object]:
    with GitRepository(repo_path) as repo:
        return summary(
            list(iter_hook(repo, names, selection=Selection(), group="g", environ=environ or {}))
        )


def test_relative_names_are_root_relative_and_unique(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/a.py": "a", "b c.py": "b"})
    names = [Path("a.py"), Path("../b c.py"), Path("a.py")]
    assert relative_names(tmp_path, names, cwd=tmp_path / "pkg") == ["pkg/a.py", "b c.py"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing.py", "no such file"),
        ("pkg", "is a folder"),
        ("../outside.py", "outside the repository"),
    ],
)
def test_relative_names_errors(tmp_path: Path, name: str, message: str) -> None:
    root = tmp_path / "root"
    write_files(root, {"pkg/a.py": "a"})
    write_files(tmp_path, {"outside.py": "o"})
    with pytest.raises(SourceError, match=message):
        relative_names(root, [Path(name)], cwd=root)


def test_files_are_read_whole_with_the_work_tree_rules(tmp_path: Path) -> None:
    write_files(tmp_path / "root", {"a.py": "a\n", "img.png": b"\x00", "vendor/v.py": "v\n", "gen/g.py": "g\n"})
    (tmp_path / "secret.txt").write_text("outside\n")
    (tmp_path / "root" / "link.txt").symlink_to(tmp_path / "secret.txt")
    from smscan.sources.select import PathFilter

    selection = Selection(PathFilter(exclude=("gen/",)))
    items = list(
        iter_files(tmp_path / "root", ["a.py", "img.png", "vendor/v.py", "gen/g.py", "link.txt"], selection=selection, group="g")
    )
    assert summary(items) == {
        "a.py": ("a\n", None),
        "img.png": "binary",
        "vendor/v.py": "vendored",
        "link.txt": "symlink-outside",
    }


def test_hook_decides_per_file_from_the_index(git_repo: Path) -> None:
    commit_files(git_repo, {"staged.py": "a\n", "clean.py": "c\n", "renamed.py": "r\n"})
    stage_files(git_repo, {"staged.py": "a\nb\n", "new.py": "n\n"})
    write_files(git_repo, {"staged.py": "a\nb\nunstaged\n"})
    run_git(git_repo, "mv", "renamed.py", "moved.py")
    assert hook(git_repo, ["staged.py", "clean.py", "new.py", "moved.py"]) == {
        "staged.py": ("a\nb\n", ((2, 2),)),  # the staged version, changed lines only
        "clean.py": ("c\n", None),  # no staged change: whole, from disk
        "new.py": ("n\n", None),  # added: wholly changed
        # moved.py: staged as a pure rename, which adds no line
    }


def test_hook_in_an_empty_repository(git_repo: Path) -> None:
    stage_files(git_repo, {"a.py": "a\n"})
    assert hook(git_repo, ["a.py"]) == {"a.py": ("a\n", None)}


def test_hook_honours_pre_commit_refs(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n", "b.py": "b\n"})
    base = head_id(git_repo)
    commit_files(git_repo, {"a.py": "a\npushed\n"}, "to push")
    stage_files(git_repo, {"a.py": "a\npushed\nstaged\n"})
    environ = {"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"}
    assert hook(git_repo, ["a.py", "b.py"], environ) == {
        "a.py": ("a\npushed\n", ((2, 2),)),  # the TO version: committed content only
        "b.py": ("b\n", None),
    }
