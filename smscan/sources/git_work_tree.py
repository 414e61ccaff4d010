"""The files of a work tree as git lists them: tracked (submodules marked) plus untracked ones not ignored."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from smscan.errors import SourceError
from smscan.sources.git import GITLINK_MODE
from smscan.sources.git_commands import first_line, import_git, open_repository, split_z


@dataclass(frozen=True, slots=True)
class WorkTreeEntry:
    """A path git lists in a work tree, relative to its top level.

    ``is_submodule`` is True for a gitlink (a registered submodule) and for an untracked nested
    repository, which git lists as a directory.
    """

    path: str
    is_submodule: bool = False




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
    git = import_git()
    pathspec_args = ["--", f":(literal){under}"] if under else []
    try:
        with open_repository(git, root) as repo:
            staged = repo.git.ls_files("-z", "--stage", *pathspec_args, stdout_as_string=False)
            others = repo.git.ls_files(
                "-z", "--others", "--exclude-standard", *pathspec_args, stdout_as_string=False
            )
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise SourceError(f"cannot list files of {root}: not a git work tree") from exc
    except git.GitCommandError as exc:
        raise SourceError(
            f"cannot list files of {root}: git ls-files failed ({first_line(exc.stderr)}); "
            "check that git can read the repository (e.g. `git status` there)"
        ) from exc
    entries: dict[str, bool] = {}
    for record in split_z(staged):
        # "<mode> <object> <stage>\t<path>"
        meta, _, name = record.partition("\t")
        entries[name] = entries.get(name, False) or meta.split(" ", 1)[0] == GITLINK_MODE
    for name in split_z(others):
        if name.endswith("/"):  # an untracked nested repository
            entries[name.rstrip("/")] = True
        else:
            entries.setdefault(name, False)
    return [WorkTreeEntry(name, is_submodule) for name, is_submodule in sorted(entries.items())]
