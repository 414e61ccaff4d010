"""Staged changes, commit ranges and each commit of a range, read from real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.diff import iter_each_commit, iter_range, iter_staged, resolve_range
from smscan.sources.git import GitRepository
from smscan.sources.selection import Selection
from tests.conftest import commit_files, head_id, init_repo, run_git, stage_files, write_files

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


def staged(repo_path: Path, **kwargs: object) -> list[Document | Skip]:
    with GitRepository(repo_path) as repo:
        return list(iter_staged(repo, selection=Selection(**kwargs), group="g"))  # type: ignore[arg-type]


def ranged(repo_path: Path, base: str, head: str | None = None) -> list[Document | Skip]:
    with GitRepository(repo_path) as repo:
        return list(iter_range(repo, resolve_range(repo, base, head), selection=Selection(), group="g"))


def by_path(items: list[Document | Skip]) -> dict[str, Document | Skip]:
    return {item.path: item for item in items}


def lines_of(items: list[Document | Skip]) -> dict[str, object]:
    return {
        item.path: item.changed_lines if isinstance(item, Document) else item.reason
        for item in items
    }


# --- staged ---------------------------------------------------------------------------------


def test_staged_reads_the_index_not_the_work_tree(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    stage_files(git_repo, {"a.py": f"x = 1\nkey = '{SECRET}'\n"})
    write_files(git_repo, {"a.py": "x = 1\nkey = 'clean'\n"})  # the work tree differs
    write_files(git_repo, {"b.py": f"y = 1\nkey = '{SECRET}'\n"})  # changed, not staged
    items = staged(git_repo)
    assert [item.path for item in items] == ["a.py"]
    document = items[0]
    assert isinstance(document, Document)
    assert SECRET in document.text
    assert document.changed_lines == ((2, 2),)
    assert document.blob_id == run_git(git_repo, "rev-parse", ":a.py").strip()


def test_new_file_is_wholly_changed_and_deleted_file_is_a_skip(git_repo: Path) -> None:
    commit_files(git_repo, {"old.py": "o\n"})
    stage_files(git_repo, {"new.py": "n\nm\n"})
    run_git(git_repo, "rm", "-q", "old.py")
    assert lines_of(staged(git_repo)) == {"new.py": None, "old.py": "deleted"}


def test_staged_in_an_empty_repository_compares_with_nothing(git_repo: Path) -> None:
    stage_files(git_repo, {"first.py": "a = 1\n"})
    assert lines_of(staged(git_repo)) == {"first.py": None}


def test_nothing_staged_is_nothing(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    assert staged(git_repo) == []


def test_rename_with_edit_reports_only_the_edited_lines(git_repo: Path) -> None:
    body = "".join(f"line_{i} = {i}\n" for i in range(1, 21))
    commit_files(git_repo, {"old_name.py": body})
    run_git(git_repo, "mv", "old_name.py", "new_name.py")
    stage_files(git_repo, {"new_name.py": body.replace("line_7 = 7", f"line_7 = '{SECRET}'")})
    assert lines_of(staged(git_repo)) == {"new_name.py": ((7, 7),)}


def test_pure_rename_and_deleted_lines_add_nothing(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "1\n2\n3\n", "b.py": "b\n"})
    run_git(git_repo, "mv", "b.py", "c.py")
    stage_files(git_repo, {"a.py": "1\n3\n"})
    assert staged(git_repo) == []


def test_binary_change_is_skipped(git_repo: Path) -> None:
    commit_files(git_repo, {"img.png": b"\x89PNG\x00\x01"})
    stage_files(git_repo, {"img.png": b"\x89PNG\x00\x02", "new.bin": b"\x00\x00"})
    assert lines_of(staged(git_repo)) == {"img.png": "binary", "new.bin": "binary"}


def test_odd_paths_are_exact(git_repo: Path) -> None:
    names = ["with space.py", "caf\u00e9/\u65e5\u672c.py", 'quo"te.py', "tab\tname.py"]
    commit_files(git_repo, {name: "a\n" for name in names})
    stage_files(git_repo, {name: "a\nb\n" for name in names})
    assert lines_of(staged(git_repo)) == {name: ((2, 2),) for name in names}


def test_crlf_file_keeps_its_carriage_returns_and_line_numbers(git_repo: Path) -> None:
    run_git(git_repo, "config", "core.autocrlf", "false")
    commit_files(git_repo, {"w.py": b"a = 1\r\nb = 2\r\n"})
    stage_files(git_repo, {"w.py": b"a = 1\r\nb = 3\r\nc = 4\r\n"})
    (document,) = staged(git_repo)
    assert isinstance(document, Document)
    assert document.text == "a = 1\r\nb = 3\r\nc = 4\r\n"
    assert document.changed_lines == ((2, 3),)


def test_submodule_change_is_a_skip(git_repo: Path, tmp_path: Path) -> None:
    other = init_repo(tmp_path / "other")
    commit_files(other, {"inner.py": "i\n"})
    commit_files(git_repo, {"a.py": "a\n"})
    run_git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    assert lines_of(staged(git_repo)) == {".gitmodules": None, "sub": "submodule"}


def test_symlinks_add_no_text_and_never_leave_the_root(git_repo: Path) -> None:
    commit_files(git_repo, {"real.py": "r\n"})
    (git_repo / "inside.py").symlink_to("real.py")
    (git_repo / "outside.py").symlink_to("../../etc/passwd")
    run_git(git_repo, "add", "inside.py", "outside.py")
    assert lines_of(staged(git_repo)) == {"outside.py": "symlink-outside"}


def test_selection_applies_in_diff_modes(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    stage_files(git_repo, {"vendor/lib.py": "v\n", "app.min.js": "m\n", "b.py": "b\n", "c.md": "c\n"})
    from smscan.sources.select import PathFilter

    items = staged(git_repo, path_filter=PathFilter(exclude=("*.md",)))
    assert lines_of(items) == {"app.min.js": "minified", "b.py": None, "vendor/lib.py": "vendored"}


def test_too_large_blob_is_skipped(git_repo: Path) -> None:
    stage_files(git_repo, {"big.txt": "x" * 101})
    assert lines_of(staged(git_repo, max_file_bytes=100)) == {"big.txt": "too-large"}


# --- ranges ---------------------------------------------------------------------------------


def test_range_reports_only_what_head_added(git_repo: Path) -> None:
    old = "".join(f"v{i} = {i}\n" for i in range(1, 11)).replace("v2 = 2", f"v2 = '{SECRET}'")
    commit_files(git_repo, {"a.py": old, "same.py": "s\n"})
    base = head_id(git_repo)
    commit_files(git_repo, {"a.py": old.replace("v9 = 9", "v9 = 99")}, "edit")
    items = ranged(git_repo, base)
    assert lines_of(items) == {"a.py": ((9, 9),)}
    assert isinstance(items[0], Document) and SECRET in items[0].text  # context, not reported


def test_committed_content_only(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    base = head_id(git_repo)
    commit_files(git_repo, {"a.py": "a\nb\n"}, "b")
    stage_files(git_repo, {"a.py": "a\nb\nstaged\n"})
    write_files(git_repo, {"a.py": "a\nb\nstaged\nworktree\n"})
    (document,) = ranged(git_repo, base)
    assert isinstance(document, Document)
    assert document.text == "a\nb\n"


def test_three_dots_start_at_the_merge_base(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    run_git(git_repo, "checkout", "-q", "-b", "feature")
    commit_files(git_repo, {"feature.py": "f\n"}, "feature")
    run_git(git_repo, "checkout", "-q", "main")
    commit_files(git_repo, {"main_only.py": "m\n"}, "main moves on")
    assert lines_of(ranged(git_repo, "main...feature")) == {"feature.py": None}
    # Two dots (or two arguments) compare the trees: main's new file shows as deleted.
    assert lines_of(ranged(git_repo, "main..feature")) == {"feature.py": None, "main_only.py": "deleted"}
    assert lines_of(ranged(git_repo, "main", "feature")) == lines_of(ranged(git_repo, "main..feature"))


def test_same_base_and_head_is_empty(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    assert ranged(git_repo, "HEAD...HEAD") == []


def test_detached_head(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    commit_files(git_repo, {"a.py": "a\nb\n"}, "b")
    run_git(git_repo, "checkout", "-q", "--detach", "HEAD")
    assert lines_of(ranged(git_repo, "HEAD~1")) == {"a.py": ((2, 2),)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope",), "revision 'nope' is not a commit"),
        (("HEAD", "nope"), "revision 'nope' is not a commit"),
        (("HEAD...HEAD", "HEAD"), "not both"),
        (("--output=x",), "cannot start with '-'"),
    ],
)
def test_bad_ranges(git_repo: Path, args: tuple[str, ...], message: str) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    with pytest.raises(SourceError, match=message):
        ranged(git_repo, *args)


def test_empty_repository_says_it_has_no_commits(git_repo: Path) -> None:
    with pytest.raises(SourceError, match="no commits yet"):
        ranged(git_repo, "HEAD~1")


def _shallow_clone(git_repo: Path, tmp_path: Path, *, depth: int, branch: str = "main") -> Path:
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", f"--depth={depth}", "--no-local", "--branch", branch, git_repo.as_uri(), str(clone))
    return clone


def test_shallow_clone_without_the_base_says_what_to_fetch(git_repo: Path, tmp_path: Path) -> None:
    for i in range(3):
        commit_files(git_repo, {"a.py": "a\n" * (i + 1)}, f"c{i}")
    base = head_id(git_repo, "HEAD~2")
    clone = _shallow_clone(git_repo, tmp_path, depth=1)
    with pytest.raises(SourceError, match="shallow clone.*git fetch"):
        ranged(clone, base)


def test_shallow_clone_with_the_base_works(git_repo: Path, tmp_path: Path) -> None:
    for i in range(3):
        commit_files(git_repo, {"a.py": "a\n" * (i + 1)}, f"c{i}")
    clone = _shallow_clone(git_repo, tmp_path, depth=2)
    assert lines_of(ranged(clone, "HEAD~1")) == {"a.py": ((3, 3),)}


def test_shallow_clone_without_a_merge_base_says_to_fetch_history(git_repo: Path, tmp_path: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    run_git(git_repo, "checkout", "-q", "-b", "feature")
    for i in range(3):
        commit_files(git_repo, {"f.py": "f\n" * (i + 1)}, f"f{i}")
    run_git(git_repo, "checkout", "-q", "main")
    commit_files(git_repo, {"m.py": "m\n"}, "main moves on")
    clone = _shallow_clone(git_repo, tmp_path, depth=1, branch="feature")
    run_git(clone, "fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")
    with pytest.raises(SourceError, match="no common ancestor in this shallow clone.*unshallow"):
        ranged(clone, "origin/main...HEAD")


# --- each commit ----------------------------------------------------------------------------


def each(repo_path: Path, spec: str) -> list[tuple[str, object]]:
    with GitRepository(repo_path) as repo:
        pairs = iter_each_commit(repo, resolve_range(repo, spec), selection=Selection(), group="g")
        return [(commit, lines_of([item])[item.path]) for commit, item in pairs]


def test_each_commit_catches_a_value_added_and_removed_inside_the_range(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    base = head_id(git_repo)
    commit_files(git_repo, {"a.py": f"a = 1\nkey = '{SECRET}'\n"}, "add key")
    added = head_id(git_repo)
    commit_files(git_repo, {"a.py": "a = 1\n"}, "remove key")
    assert ranged(git_repo, base) == []  # the range as a whole adds nothing
    assert each(git_repo, f"{base}...HEAD") == [(added, ((2, 2),))]


def test_each_commit_diffs_a_root_commit_against_the_empty_tree(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "a\n"})
    run_git(git_repo, "checkout", "-q", "--orphan", "other")
    run_git(git_repo, "rm", "-q", "-r", "--cached", ".")
    commit_files(git_repo, {"b.py": "b\nc\n"}, "unrelated root")
    assert each(git_repo, "main..other") == [(head_id(git_repo), None)]


def test_merge_commit_reports_only_what_the_merge_itself_wrote(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "1\n2\n3\n4\n5\n6\n7\n8\n"})
    base = head_id(git_repo)
    run_git(git_repo, "checkout", "-q", "-b", "feature")
    commit_files(git_repo, {"a.py": "1\nfeature\n3\n4\n5\n6\n7\n8\n"}, "feature edit")
    feature = head_id(git_repo)
    run_git(git_repo, "checkout", "-q", "main")
    commit_files(git_repo, {"a.py": "1\n2\n3\n4\n5\n6\n7\nmain\n"}, "main edit")
    main_edit = head_id(git_repo)
    run_git(git_repo, "merge", "-q", "--no-commit", "feature")
    write_files(git_repo, {"a.py": "1\nfeature\n3\n4\nevil\n6\n7\nmain\n"})
    run_git(git_repo, "commit", "-q", "-am", "merge")
    merge = head_id(git_repo)
    found = each(git_repo, f"{base}...HEAD")
    assert sorted(found[:2]) == sorted([(feature, ((2, 2),)), (main_edit, ((8, 8),))])
    assert found[2] == (merge, ((5, 5),))
