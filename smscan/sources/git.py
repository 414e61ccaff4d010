"""Every gitpython call of the sources, and the one place its errors become SourceError.

gitpython is imported inside the functions: importing it runs ``git --version`` and fails when
git is not installed, which must not break scans that never touch git (datasets, ``--help``).
Paths git prints are decoded with :func:`os.fsdecode`, so a file name that is not UTF-8 still
names the same file on disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from smscan.errors import SourceError

GITLINK_MODE = "160000"
"""The index mode of a submodule entry (a commit id, not a file)."""

_NO_GIT = "cannot use git: the git executable was not found or does not run; install git"


@dataclass(frozen=True, slots=True)
class WorkTreeEntry:
    """A path git lists in a work tree, relative to its top level.

    ``is_submodule`` is True for a gitlink (a registered submodule) and for an untracked nested
    repository, which git lists as a directory.
    """

    path: str
    is_submodule: bool = False


def find_work_tree(path: Path) -> Path | None:
    """The top level of the git work tree that contains path, or None outside any work tree.

    Args:
        path: an existing directory.

    Returns:
        The work tree's top level, resolved; None when path is in no repository or the
        repository has no work tree (bare).

    Raises:
        SourceError: git is not installed.

    Example:
        >>> find_work_tree(Path("/")) is None  # doctest: +SKIP
        True
    """
    try:
        import git
    except ImportError as exc:
        raise SourceError(_NO_GIT) from exc
    try:
        with git.Repo(path, search_parent_directories=True) as repo:
            top = repo.working_tree_dir
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return None if top is None else Path(top).resolve()


def list_work_tree(root: Path, *, under: str = "") -> list[WorkTreeEntry]:
    """The files of a work tree: tracked, plus untracked ones that are not ignored.

    Runs ``git ls-files -z --stage`` (tracked, with modes so that submodules are known) and
    ``git ls-files -z --others --exclude-standard`` (untracked, honouring ``.gitignore``,
    ``.git/info/exclude`` and ``core.excludesFile``). Tracked files deleted from the work tree
    are still listed; the caller decides what to do with them.

    Args:
        root: the work tree's top level.
        under: a root-relative POSIX folder to restrict the listing to; "" for all.

    Returns:
        Entries sorted by path, each path once (a conflicted file has several index stages).

    Raises:
        SourceError: git is not installed or ``git ls-files`` fails (for example a repository
            owned by another user, which git refuses until it is marked ``safe.directory``).

    Example:
        >>> [e.path for e in list_work_tree(Path("."), under="smscan")]  # doctest: +SKIP
        ['smscan/__init__.py', ...]
    """
    try:
        import git
    except ImportError as exc:
        raise SourceError(_NO_GIT) from exc
    pathspec_args = ["--", f":(literal){under}"] if under else []
    try:
        with git.Repo(root) as repo:
            staged = repo.git.ls_files("-z", "--stage", *pathspec_args, stdout_as_string=False)
            others = repo.git.ls_files(
                "-z", "--others", "--exclude-standard", *pathspec_args, stdout_as_string=False
            )
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise SourceError(f"cannot list files of {root}: not a git work tree") from exc
    except git.GitCommandError as exc:
        raise SourceError(
            f"cannot list files of {root}: git ls-files failed ({_first_line(exc.stderr)}); "
            "check that git can read the repository (e.g. `git status` there)"
        ) from exc
    entries: dict[str, bool] = {}
    for record in _split_z(staged):
        # "<mode> <object> <stage>\t<path>"
        meta, _, name = record.partition("\t")
        entries[name] = entries.get(name, False) or meta.split(" ", 1)[0] == GITLINK_MODE
    for name in _split_z(others):
        if name.endswith("/"):  # an untracked nested repository
            entries[name.rstrip("/")] = True
        else:
            entries.setdefault(name, False)
    return [WorkTreeEntry(name, is_submodule) for name, is_submodule in sorted(entries.items())]


def _split_z(output: bytes) -> list[str]:
    return [os.fsdecode(item) for item in output.split(b"\0") if item]


def _first_line(stderr: object) -> str:
    # gitpython wraps stderr as "\n  stderr: '<text>'"; keep git's first message line.
    text = str(stderr).strip()
    text = text.removeprefix("stderr:").strip().strip("'")
    return text.splitlines()[0].strip() if text else "no message"
