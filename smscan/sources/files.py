"""Files named on the command line: whole (``smscan files``), or as pre-commit sees them (``hook``).

Names are taken relative to the current folder and recorded relative to the root (the git top
level of the current folder, else the folder itself); a name outside the root, a missing file
and a folder are errors the user can fix. Reading follows the work-tree rules of
:mod:`smscan.sources.worktree` (symlinks never followed out of the root, FIFOs never read,
size known before reading) and then :class:`~smscan.sources.selection.Selection`.

``hook`` decides per file, from git rather than from a guess:

- When ``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF`` are set (pre-commit on a range: pre-push,
  ``pre-commit run --from-ref A --to-ref B``), a file the range ``FROM...TO`` changed is scanned
  in its ``TO`` version, reporting only the lines the range added (as ``smscan diff``).
- Otherwise a file with staged changes is scanned in its staged (index) version, reporting only
  the lines the index adds against HEAD (as ``smscan staged``).
- Any other file (``pre-commit run --all-files`` or ``--files``) is scanned whole from the work
  tree (as ``smscan files``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.diff import AddedFile, added_files, added_item, resolve_range
from smscan.sources.git import GitRepository
from smscan.sources.select import UNREADABLE
from smscan.sources.selection import Selection
from smscan.sources.worktree import _read_candidate

FROM_REF = "PRE_COMMIT_FROM_REF"
TO_REF = "PRE_COMMIT_TO_REF"


def relative_names(root: Path, names: Sequence[Path], *, cwd: Path | None = None) -> list[str]:
    """Root-relative POSIX paths of the named files, in the order given, each once.

    Raises:
        SourceError: a name is missing, a folder, or outside the root.
    """
    base = cwd if cwd is not None else Path.cwd()
    resolved_root = root.resolve()
    out: dict[str, None] = {}
    for name in names:
        full = Path(os.path.abspath(base / name))  # links are not resolved: the link is the file
        if not full.is_relative_to(resolved_root):
            raise SourceError(f"{name}: outside the repository {resolved_root}; run smscan from there")
        if not full.exists() and not full.is_symlink():
            raise SourceError(f"{name}: no such file")
        if full.is_dir() and not full.is_symlink():
            raise SourceError(f"{name}: is a folder; use `smscan repo {name}` to scan a folder")
        out[full.relative_to(resolved_root).as_posix()] = None
    return list(out)


def iter_files(
    root: Path, names: Sequence[str], *, selection: Selection, group: str
) -> Iterator[Document | Skip]:
    """Each named root-relative file, whole, from disk."""
    for rel in names:
        if not selection.is_selected(rel):
            continue
        skip = selection.skip_by_path(rel)
        if skip is not None:
            yield skip
            continue
        item = _read_candidate(root, rel, max_file_bytes=selection.max_file_bytes, group=group)
        if item is None:
            item = Skip(rel, UNREADABLE)  # a link to a folder, or removed while we looked
        refined = selection.refine(item)
        if refined is not None:
            yield refined


def iter_hook(
    repo: GitRepository,
    names: Sequence[str],
    *,
    selection: Selection,
    group: str,
    environ: Mapping[str, str] = os.environ,
) -> Iterator[Document | Skip]:
    """The pre-commit entry point's items: per file, the range's or the index's new version with
    the lines it adds, else the whole file from disk (see the module docstring)."""
    from_ref, to_ref = environ.get(FROM_REF, ""), environ.get(TO_REF, "")
    if from_ref and to_ref:
        span = resolve_range(repo, f"{from_ref}...{to_ref}")
        changed = added_files(repo, span.base, span.head)
    else:
        old = repo.staged_base()
        changed = added_files(repo, old, None)
    by_path = {item.change.path: item for item in changed if isinstance(item, AddedFile)}
    deleted = {item.path for item in changed if not isinstance(item, AddedFile)}
    for rel in names:
        added = by_path.get(rel)
        if added is not None:
            item = added_item(repo, added, selection=selection, group=group)
            if item is not None:
                yield item
        elif rel not in deleted:
            yield from iter_files(repo.root, [rel], selection=selection, group=group)
