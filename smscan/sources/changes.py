"""Parse git's diff output into the files a change touched and the lines it added.

Two outputs of the same diff are read (both produced by :class:`~smscan.sources.git.GitRepository`):

- the raw listing (``--raw -z --no-abbrev``, renames followed with ``-M``): one record per path
  with modes, object ids and a status letter (``A`` added, ``M`` modified, ``R`` renamed,
  ``T`` type changed, ``D`` deleted, ...). It is NUL-separated, so any file name is exact.
- the zero-context patch (``-p -U0 --full-index``): only the ``index <old>..<new>`` line of each
  file section and its ``@@ -a,b +c,d @@`` hunk headers are read, never a path, so quoting of
  odd file names does not matter. Sections are matched to raw records by their
  ``(old id, new id)`` pair.

A hunk ``+c,d`` adds lines ``c .. c+d-1`` of the new version (``d`` is 1 when left out, 0 for a
pure deletion, which adds nothing). A section git shows as ``Binary files ... differ`` (binary
content, or a ``binary``/``-diff`` attribute) has no lines to go by: it is marked None, and the
caller judges the new version as a whole (a binary one is then skipped as ``binary``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

LineRanges = tuple[tuple[int, int], ...]
"""1-based inclusive line ranges, sorted and merged (as in ``Document.changed_lines``)."""

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_INDEX = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)")


@dataclass(frozen=True, slots=True)
class FileChange:
    """One record of a raw diff.

    ``old_path`` differs from ``path`` only for a rename; ids are full hex ids, all zeros where
    a side has no object (the old side of an added file, the new side of a deleted one).
    """

    status: str
    path: str
    old_path: str
    old_mode: str
    new_mode: str
    old_id: str
    new_id: str

    @property
    def is_deleted(self) -> bool:
        return self.status == "D"

    @property
    def is_whole_new(self) -> bool:
        """Added, or a type change (a link or submodule became a file): every line is new."""
        return self.status in {"A", "T"}


def parse_raw_diff(output: bytes) -> list[FileChange]:
    """Parse ``git diff --raw -z --no-abbrev`` output.

    Example:
        >>> parse_raw_diff(b":000000 100644 " + b"0" * 40 + b" " + b"a" * 40 + b" A\\0new.py\\0")[0].path
        'new.py'
    """
    fields = output.split(b"\0")
    changes: list[FileChange] = []
    i = 0
    while i < len(fields):
        meta = fields[i]
        if not meta.startswith(b":"):
            i += 1
            continue
        old_mode, new_mode, old_id, new_id, status = meta[1:].decode("ascii").split(" ")
        letter = status[0]
        if letter in {"R", "C"}:
            old_path, path = os.fsdecode(fields[i + 1]), os.fsdecode(fields[i + 2])
            i += 3
        else:
            old_path = path = os.fsdecode(fields[i + 1])
            i += 2
        changes.append(FileChange(letter, path, old_path, old_mode, new_mode, old_id, new_id))
    return changes


def parse_added_lines(patch: bytes) -> dict[tuple[str, str], LineRanges | None]:
    """Map ``(old id, new id)`` of each file section of a ``-U0 --full-index`` patch to the line
    ranges it adds in the new version (empty when it only deletes lines; None when git diffs
    it as binary)."""
    added: dict[tuple[str, str], list[tuple[int, int]]] = {}
    binary: set[tuple[str, str]] = set()
    key: tuple[str, str] | None = None
    current: list[tuple[int, int]] | None = None
    in_header = False
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git "):
            key, current, in_header = None, None, True
            continue
        if in_header:
            index = _INDEX.match(line)
            if index is not None:
                key = (index.group(1).decode("ascii"), index.group(2).decode("ascii"))
                current = added.setdefault(key, [])
                continue
            if key is not None and line.startswith((b"Binary files ", b"GIT binary patch")):
                binary.add(key)
                continue
        hunk = _HUNK.match(line)
        if hunk is not None:
            in_header = False
            count = 1 if hunk.group(2) is None else int(hunk.group(2))
            if current is not None and count > 0:
                first = int(hunk.group(1))
                current.append((first, first + count - 1))
    return {k: None if k in binary else merge_ranges(ranges) for k, ranges in added.items()}


def merge_ranges(ranges: list[tuple[int, int]] | LineRanges) -> LineRanges:
    """Sort ranges and merge those that overlap or touch."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return tuple(merged)


def intersect_ranges(a: LineRanges, b: LineRanges) -> LineRanges:
    """The lines in both sets of ranges (for a merge commit: lines new against every parent)."""
    out: list[tuple[int, int]] = []
    for first_a, last_a in a:
        for first_b, last_b in b:
            first, last = max(first_a, first_b), min(last_a, last_b)
            if first <= last:
                out.append((first, last))
    return merge_ranges(out)
