"""Files read from git objects: the tree of a commit (``smscan repo --rev``), one blob at a time.

Paths are root-relative POSIX paths as git stores them; ``Document.blob_id`` is the blob's id and
``Document.group`` the root's absolute POSIX path (as in the work tree). The rules of
:class:`~smscan.sources.selection.Selection` apply; gitlinks are ``submodule`` Skips. A blob's
size is read before the blob, so a ``too-large`` one is never read.

Symbolic links (mode 120000, whose blob holds the target): a target that is absolute or climbs
out of the root is a ``symlink-outside`` Skip. In a whole tree, a link to a file of the same
tree is scanned as that file's content under the link's path (as in the work tree); a link to a
folder yields nothing, a link to nothing is ``unreadable``. In diff modes a link adds no text,
so a link inside the root yields nothing.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator, Mapping

from smscan.records import Document, Skip
from smscan.sources.git import GITLINK_MODE, SYMLINK_MODE, GitRepository, TreeEntry
from smscan.sources.select import SUBMODULE, SYMLINK_OUTSIDE, TOO_LARGE, UNREADABLE
from smscan.sources.selection import Selection

_MAX_LINK_HOPS = 16


def link_target(link_path: str, target: bytes) -> str | None:
    """The root-relative path a link at ``link_path`` points to, or None when it leaves the root.

    Example:
        >>> link_target("a/b.txt", b"../c.txt"), link_target("a.txt", b"../x"), link_target("a", b"/etc")
        ('c.txt', None, None)
    """
    name = os.fsdecode(target)
    if name.startswith("/") or not name:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link_path), name))
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def blob_item(
    repo: GitRepository,
    path: str,
    object_id: str,
    *,
    selection: Selection,
    group: str,
    changed_lines: tuple[tuple[int, int], ...] | None = None,
) -> Document | Skip:
    """Read one regular file's blob as a Document, or the Skip that applies (size known first)."""
    skip = selection.skip_by_path(path)
    if skip is not None:
        return skip
    if repo.blob_size(object_id) > selection.max_file_bytes:
        return Skip(path, TOO_LARGE)
    return selection.classify(
        path, repo.read_blob(object_id), group=group, blob_id=object_id, changed_lines=changed_lines
    )


def iter_revision(
    repo: GitRepository, commit: str, *, selection: Selection, group: str, under: str = ""
) -> Iterator[Document | Skip]:
    """Yield a Document or Skip for every file of ``commit``'s tree, sorted by path.

    Args:
        repo: the open repository.
        commit: a full commit id (see :meth:`GitRepository.resolve_commit`).
        selection: ignores and default skips.
        group: the Documents' group.
        under: a root-relative POSIX folder to restrict to; "" for the whole tree.

    Returns:
        An iterator of Documents (with ``blob_id``) and Skips.

    Raises:
        SourceError: git cannot list the tree or read a blob.
    """
    entries = repo.list_tree(commit)
    by_path = {entry.path: entry for entry in entries}
    prefix = f"{under.rstrip('/')}/" if under else ""
    for entry in entries:
        if prefix and not entry.path.startswith(prefix):
            continue
        if not selection.is_selected(entry.path):
            continue
        item = _tree_item(repo, entry, by_path, selection=selection, group=group)
        if item is not None:
            yield item


def _tree_item(
    repo: GitRepository,
    entry: TreeEntry,
    by_path: Mapping[str, TreeEntry],
    *,
    selection: Selection,
    group: str,
) -> Document | Skip | None:
    if entry.mode == GITLINK_MODE:
        return Skip(entry.path, SUBMODULE)
    target = entry
    for _ in range(_MAX_LINK_HOPS):
        if target.mode != SYMLINK_MODE:
            break
        resolved = link_target(target.path, repo.read_blob(target.object_id))
        if resolved is None:
            return Skip(entry.path, SYMLINK_OUTSIDE)
        found = by_path.get(resolved)
        if found is None:
            folder = resolved + "/"
            is_folder = any(path.startswith(folder) for path in by_path)
            return None if is_folder else Skip(entry.path, UNREADABLE)
        target = found
    else:
        return Skip(entry.path, UNREADABLE)  # a loop of links
    if target.mode == GITLINK_MODE:
        return None  # a link to a submodule is a link to a folder
    return blob_item(repo, entry.path, target.object_id, selection=selection, group=group)
