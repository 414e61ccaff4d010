"""What a change added: the staged changes, a commit range, or each commit of a range.

Every diff mode yields, for each file the change adds text to, a Document of the file's *new*
version (the index for ``staged``, the head commit for a range) whose ``changed_lines`` are the
lines the change added (see :mod:`smscan.sources.changes`); the pipeline scores those lines with
bounded left context from the same file and reports only findings touching them
(:mod:`smscan.plan.regions`, the one rule of every diff mode). An added file, or one whose type
changed (a link became a file), is new as a whole: ``changed_lines`` is None.

Per file: renames are followed (only the lines changed by the edit count); a deleted file is a
``deleted`` Skip; a change that adds no line (a pure rename, a mode change, a deletion of lines)
yields nothing; a file git diffs as binary (by content, or a ``binary``/``-diff`` attribute)
is judged as a whole, so binary content becomes a ``binary`` Skip; other content skips come from
:class:`~smscan.sources.selection.Selection`; submodules are ``submodule`` Skips; links as in
:mod:`smscan.sources.revision`.

``--each-commit``: every commit of ``base..head``, oldest first, against its parent (a root
commit against the empty tree). A merge commit reports only lines that are new against *every*
parent (what the merge itself wrote, such as a conflict resolution), so the branches it joins
are not scanned twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from smscan.errors import SourceError
from smscan.records import Document, Skip
from smscan.sources.changes import FileChange, LineRanges, intersect_ranges, parse_added_lines, parse_raw_diff
from smscan.sources.git import GITLINK_MODE, SYMLINK_MODE, CommitInfo, GitRepository
from smscan.sources.revision import blob_item, link_target
from smscan.sources.select import SUBMODULE, SYMLINK_OUTSIDE
from smscan.sources.selection import DELETED, Selection


@dataclass(frozen=True, slots=True)
class AddedFile:
    """A file a change adds text to: its new blob, and the lines added (None: the whole file)."""

    change: FileChange
    changed_lines: LineRanges | None


@dataclass(frozen=True, slots=True)
class DiffRange:
    """The two ends of a range diff, as full ids; ``base`` may be the empty tree."""

    base: str
    head: str


def resolve_range(repo: GitRepository, base: str, head: str | None = None) -> DiffRange:
    """Resolve ``BASE [HEAD]``, ``BASE..HEAD`` or ``BASE...HEAD`` (merge base) to two commits.

    Raises:
        SourceError: a revision is missing (the message says what to fetch in a shallow clone)
            or, for ``...``, the two have no common ancestor here.

    Example:
        >>> resolve_range(repo, "origin/main...HEAD")  # doctest: +SKIP
        DiffRange(base='3f2c...', head='9ab1...')
    """
    spelled = base if head is None else f"{base} {head}"
    merge_base = False
    if "..." in base:
        if head is not None:
            raise SourceError(f"{spelled}: give either BASE...HEAD or BASE HEAD, not both")
        base, head = base.split("...", 1)
        merge_base = True
    elif ".." in base:
        if head is not None:
            raise SourceError(f"{spelled}: give either BASE..HEAD or BASE HEAD, not both")
        base, head = base.split("..", 1)
    try:
        base_id = repo.resolve_commit(base or "HEAD")
        head_id = repo.resolve_commit(head or "HEAD")
    except SourceError as error:
        raise SourceError(f"the range {spelled} does not exist: {error}") from error
    if merge_base:
        base_id = repo.merge_base(base_id, head_id, spelled=spelled)
    return DiffRange(base_id, head_id)


def added_files(repo: GitRepository, old: str, new: str | None) -> list[AddedFile | FileChange]:
    """Every file a diff from tree-ish ``old`` to ``new`` (None: the index) changes, sorted by path:
    an AddedFile for a file with a new version (``changed_lines`` empty when the change adds no
    line), a bare FileChange for a deleted file."""
    changes = parse_raw_diff(repo.diff_raw(old, new))
    if not changes:
        return []
    added = parse_added_lines(repo.diff_patch(old, new))
    out: list[AddedFile | FileChange] = []
    for change in changes:
        if change.is_deleted:
            out.append(change)
        elif change.is_whole_new:
            out.append(AddedFile(change, None))
        elif change.status in {"M", "R", "C"}:
            out.append(AddedFile(change, added.get((change.old_id, change.new_id), ())))
    return sorted(out, key=lambda item: _path_of(item))


def _path_of(item: AddedFile | FileChange) -> str:
    return item.change.path if isinstance(item, AddedFile) else item.path


def commit_added_files(repo: GitRepository, commit: CommitInfo) -> list[AddedFile | FileChange]:
    """What one commit added against its parent; for a merge, what is new against every parent."""
    if not commit.parents:
        return added_files(repo, repo.empty_tree(), commit.commit_id)
    if len(commit.parents) == 1:
        return added_files(repo, commit.parents[0], commit.commit_id)
    per_parent = [
        {item.change.path: item for item in added_files(repo, parent, commit.commit_id) if isinstance(item, AddedFile)}
        for parent in commit.parents
    ]
    out: list[AddedFile | FileChange] = []
    for path, first in per_parent[0].items():
        others = [files.get(path) for files in per_parent[1:]]
        if any(other is None for other in others):
            continue  # the file is as in some parent: the merge wrote nothing new there
        lines = first.changed_lines
        for other in others:
            assert other is not None
            if other.changed_lines is not None:
                lines = other.changed_lines if lines is None else intersect_ranges(lines, other.changed_lines)
        if lines is None or lines:
            out.append(AddedFile(first.change, lines))
    return out


def iter_added(
    repo: GitRepository,
    files: list[AddedFile | FileChange],
    *,
    selection: Selection,
    group: str,
) -> Iterator[Document | Skip]:
    """Documents of the new versions (with changed lines) and Skips, for :func:`added_files`."""
    for item in files:
        if isinstance(item, FileChange):
            if selection.is_selected(item.path):
                yield Skip(item.path, DELETED)
            continue
        result = added_item(repo, item, selection=selection, group=group)
        if result is not None:
            yield result


def added_item(
    repo: GitRepository, item: AddedFile, *, selection: Selection, group: str
) -> Document | Skip | None:
    """The Document or Skip of one changed file (None when it adds no text: no added line, a
    link inside the root)."""
    change = item.change
    if not selection.is_selected(change.path):
        return None
    if change.new_mode == GITLINK_MODE:
        return Skip(change.path, SUBMODULE)
    if change.new_mode == SYMLINK_MODE:
        target = link_target(change.path, repo.read_blob(change.new_id))
        return Skip(change.path, SYMLINK_OUTSIDE) if target is None else None
    if item.changed_lines == ():
        return None  # a pure rename, a mode change, only deleted lines: nothing was added
    return blob_item(
        repo, change.path, change.new_id, selection=selection, group=group,
        changed_lines=item.changed_lines,
    )


def iter_staged(repo: GitRepository, *, selection: Selection, group: str) -> Iterator[Document | Skip]:
    """What is about to be committed: the index version of each file the index adds text to,
    against HEAD (against the empty tree before the first commit)."""
    old = repo.staged_base()
    yield from iter_added(repo, added_files(repo, old, None), selection=selection, group=group)


def iter_range(
    repo: GitRepository, span: DiffRange, *, selection: Selection, group: str
) -> Iterator[Document | Skip]:
    """What ``span.head`` adds against ``span.base`` (committed content only)."""
    yield from iter_added(repo, added_files(repo, span.base, span.head), selection=selection, group=group)


def iter_each_commit(
    repo: GitRepository, span: DiffRange, *, selection: Selection, group: str
) -> Iterator[tuple[str, Document | Skip]]:
    """``(commit id, item)`` for what each commit of ``span.base..span.head`` added, oldest first."""
    for commit in repo.commits_between(span.base, span.head):
        for item in iter_added(repo, commit_added_files(repo, commit), selection=selection, group=group):
            yield commit.commit_id, item
