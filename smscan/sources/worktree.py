"""Files of a directory on disk, as Documents and Skips.

Root and paths:
- The root is the git top level when PATH is inside a git work tree, else PATH itself; both are
  resolved (symlinks in PATH followed). Every Document and Skip path is POSIX and relative to
  the root. ``Document.group`` is the root's absolute POSIX path; ``blob_id`` is None (the text
  is read from the work tree, not from a git object).

Which files:
- In a git work tree: what ``git ls-files`` lists as tracked, plus untracked files that are not
  ignored (``.gitignore``, ``.git/info/exclude``, ``core.excludesFile``), restricted to PATH when
  PATH is a subfolder of the root. A folder git ignores yields nothing, even when it is PATH.
  A tracked file deleted from the work tree is silently left out: the work tree is what is
  scanned, and it has no such file. Submodules (gitlinks) and untracked nested repositories are
  ``submodule`` Skips and never entered.
- In a plain folder: every file under PATH, except those ignored by a ``.gitignore`` file in
  their folder or any folder above it up to PATH (gitignore semantics: the deepest file with a
  matching pattern decides, the last matching pattern in it wins, and an ignored folder is not
  entered, so nothing below it can be re-included). ``.git`` entries are never entered or read.
  A folder that cannot be listed is an ``unreadable`` Skip under the folder's path.
- A :class:`~smscan.sources.select.PathFilter`, when given, then drops paths it does not select,
  without a Skip.

Symlinks:
- Never followed out of the root: a path that resolves outside it (the file is a link, or a
  folder on its way is one, as when a tracked file's folder is swapped for a link) is a
  ``symlink-outside`` Skip, without reading the target.
- A link to a file inside the root is scanned as that file's content under the link's path.
- A link to a folder is never followed (no loops, no double counting) and yields nothing; in a
  plain folder its files are found under their real path.
- A link whose target inside the root does not exist is an ``unreadable`` Skip.

Reading:
- Only regular files are read; a FIFO, socket or device is ``unreadable`` (opened non-blocking,
  so a FIFO never hangs the scan). The size is checked with ``fstat`` before reading: over
  ``max_file_bytes`` is ``too-large`` and the file is not read. A file that cannot be opened or
  read (permission denied, I/O error) is ``unreadable`` and the scan goes on.
- The bytes then go through :func:`~smscan.sources.select.classify_bytes` (``empty``,
  ``lfs-pointer``, ``binary``, ``undecodable``, else a Document).

Order: sorted by POSIX path (code-point order), so output is deterministic.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pathspec

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.fileio.regular import read_config_file, read_regular_file
from smscan.sources.git import find_work_tree
from smscan.sources.git_work_tree import list_work_tree
from smscan.sources.select import (
    SUBMODULE,
    SYMLINK_OUTSIDE,
    TOO_LARGE,
    UNREADABLE,
    PathFilter,
    classify_bytes,
)

# (root-relative POSIX path, reason when it is known to be skipped without reading, else None)
_Candidate = tuple[str, str | None]
# (root-relative POSIX folder holding a .gitignore, "" for the root; its compiled patterns)
_IgnoreLevel = tuple[str, pathspec.GitIgnoreSpec]


def find_root(path: Path) -> tuple[Path, bool]:
    """The scan root for PATH: its git top level when inside a work tree, else PATH itself.

    Args:
        path: the directory to scan.

    Returns:
        ``(root, is_git)``: the resolved root, and whether it is a git work tree.

    Raises:
        SourceError: path does not exist, is not a directory or cannot be read, or git fails.

    Example:
        >>> find_root(Path("."))  # doctest: +SKIP
        (PosixPath('/home/me/project'), True)
    """
    _check_scan_dir(path)
    scan_dir = path.resolve()
    top = find_work_tree(scan_dir)
    if top is None:
        return scan_dir, False
    return top, True


def iter_worktree(
    path: Path, *, max_file_bytes: int, path_filter: PathFilter | None = None
) -> Iterator[Document | Skip]:
    """Yield a Document or a Skip for each file under PATH, sorted by root-relative path.

    The rules (root, which files, symlinks, reading) are in the module docstring.

    Args:
        path: the directory to scan.
        max_file_bytes: files larger than this are ``too-large`` Skips and are not read.
        path_filter: include/exclude globs on root-relative paths; None selects every path.

    Returns:
        An iterator of Documents (``group`` = the root's absolute POSIX path, ``blob_id`` None)
        and Skips.

    Raises:
        SourceError: path does not exist, is not a readable directory, or git cannot list it.

    Example:
        >>> for item in iter_worktree(Path("."), max_file_bytes=1_000_000):  # doctest: +SKIP
        ...     print(item.path)
    """
    root, is_git = find_root(path)
    if is_git:
        under = _relative_folder(path.resolve(), root)
        candidates: list[_Candidate] = [
            (entry.path, SUBMODULE if entry.is_submodule else None)
            for entry in list_work_tree(root, under=under)
        ]
    else:
        candidates = sorted(_walk_plain(root, "", ()))
    group = root.as_posix()
    folders: dict[str, bool] = {}  # this scan's verdicts: does the folder resolve inside root?
    for rel, reason in candidates:
        if path_filter is not None and not path_filter.is_selected(rel):
            continue
        if reason is not None:
            yield Skip(rel, reason)
            continue
        result = _read_candidate(root, rel, max_file_bytes=max_file_bytes, group=group, folders=folders)
        if result is not None:
            yield result


def _check_scan_dir(path: Path) -> None:
    if not path.exists():
        raise SourceError(f"cannot scan {path}: no such directory; pass an existing directory")
    if not path.is_dir():
        raise SourceError(f"cannot scan {path}: not a directory; pass the folder that contains it")
    if not os.access(path, os.R_OK | os.X_OK):
        raise SourceError(
            f"cannot scan {path}: permission denied; make it readable (r and x) or pass another"
        )


def _relative_folder(scan_dir: Path, root: Path) -> str:
    if scan_dir == root:
        return ""
    if not scan_dir.is_relative_to(root):
        raise SourceError(
            f"cannot scan {scan_dir}: it is a git directory outside its work tree; pass {root}"
        )
    return scan_dir.relative_to(root).as_posix()


def _walk_plain(
    folder: Path, rel: str, ignores: tuple[_IgnoreLevel, ...]
) -> Iterator[_Candidate]:
    """Candidates under folder (root-relative prefix rel), honouring .gitignore files."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda entry: entry.name)
    except OSError:
        if rel:
            yield rel, UNREADABLE
        return
    if any(entry.name == ".gitignore" for entry in entries):
        spec = _load_gitignore(folder / ".gitignore")
        if spec is not None:
            ignores = (*ignores, (rel, spec))
    for entry in entries:
        if entry.name == ".git":
            continue
        child = f"{rel}/{entry.name}" if rel else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if _is_ignored(child, is_dir=is_dir, ignores=ignores):
            continue
        if is_dir:
            yield from _walk_plain(Path(entry.path), child, ignores)
        else:
            yield child, None


def _load_gitignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = read_config_file(path).decode("utf-8", errors="replace").splitlines()
    except OSError:
        # As git does, an unreadable .gitignore ignores nothing; the file itself is still a
        # candidate and becomes an ``unreadable`` Skip, so the problem is counted.
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _is_ignored(rel: str, *, is_dir: bool, ignores: tuple[_IgnoreLevel, ...]) -> bool:
    for base, spec in reversed(ignores):  # the deepest .gitignore with a match decides
        below = rel[len(base) + 1 :] if base else rel
        verdict = spec.check_file(below + "/" if is_dir else below).include
        if verdict is not None:
            return verdict
    return False


def _read_candidate(
    root: Path, rel: str, *, max_file_bytes: int, group: str, folders: dict[str, bool] | None = None
) -> Document | Skip | None:
    """Read one root-relative path; None when there is nothing to scan there (see module doc).

    ``folders`` remembers, for one scan, whether each folder resolves inside root (resolving
    every file's whole path costs a syscall per component).
    """
    full = root / rel
    try:
        mode = os.lstat(full).st_mode
    except FileNotFoundError:
        return None  # a tracked file deleted from the work tree
    except OSError:
        return Skip(rel, UNREADABLE)
    # A link anywhere on the path (the file, or a tracked file's folder swapped for a link) must
    # not lead out of the root.
    if not _is_folder_inside(root, full.parent, folders):
        return Skip(rel, SYMLINK_OUTSIDE)
    target = full
    if stat.S_ISLNK(mode):
        target = Path(os.path.realpath(full))
        if not target.is_relative_to(root):
            return Skip(rel, SYMLINK_OUTSIDE)
        try:
            mode = os.stat(target).st_mode
        except OSError:
            return Skip(rel, UNREADABLE)
    if stat.S_ISDIR(mode):
        return None  # folder links are never followed; a folder here is not a file
    try:
        data = read_regular_file(target, limit=max_file_bytes)
    except OSError:
        return Skip(rel, UNREADABLE)
    if data is None:
        return Skip(rel, TOO_LARGE)
    return classify_bytes(rel, data, max_file_bytes=max_file_bytes, group=group)


def _is_folder_inside(root: Path, folder: Path, verdicts: dict[str, bool] | None) -> bool:
    key = os.fspath(folder)
    if verdicts is not None and key in verdicts:
        return verdicts[key]
    inside = Path(os.path.realpath(folder)).is_relative_to(root)
    if verdicts is not None:
        verdicts[key] = inside
    return inside
