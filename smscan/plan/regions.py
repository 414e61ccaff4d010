"""Which parts of a document are scored: the whole text, changed lines, or a detector's targets.

Whole documents (``pieces_to_score``): the rule shared by every diff mode (staged, diff, hook)
when a kind needs whole documents (raw ``surprise``): each run of changed lines is scored
together with the lines before it that start within ``CONTEXT_CHARS`` characters of the run
(about 512 tokens of code at ~4 characters per token), cut at a line start so no line is scored
half. Runs whose scored pieces would overlap are merged into one piece. So a secret added to an old
file is judged in the context of the code around it without scoring the whole file.

Targets (``pieces_for_targets``): when every enabled detector names the spans it judges (credential
values, Python lines with dead-code evidence), each target is scored with its detector's left
context (``TARGET_CONTEXT_CHARS`` unless it says otherwise), cut at the earliest line start within that distance (else just after a space, so
no word is cut), and the rest of its line to the right (at most ``TARGET_RIGHT_CHARS``, cut before
a space), so the target's tokens at both edges are the ones the whole file gives. Targets that
do not touch a changed line of a diff scan are dropped; overlapping or adjacent pieces merge.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from smscan.engine.spans import merge_touching
from smscan.records import Document

CONTEXT_CHARS = 2048
# About 32 tokens of code or config (3.5-4 characters per token): enough for the name and the
# syntax a value sits in, which is what its surprise depends on.
TARGET_CONTEXT_CHARS = 128
TARGET_RIGHT_CHARS = 256


@dataclass(frozen=True, slots=True)
class Piece:
    """A slice ``text[offset:offset + len(text)]`` of a document to score on its own."""

    offset: int
    text: str


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line (lines end at ``\\n``)."""
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def pieces_to_score(document: Document, *, context_chars: int = CONTEXT_CHARS) -> list[Piece]:
    """Split a document into the pieces that are scored (one piece when it has no line limits)."""
    text = document.text
    if document.changed_lines is None:
        return [Piece(0, text)]
    starts = line_starts(text)
    spans: list[tuple[int, int]] = []
    for first, last in sorted(document.changed_lines):
        if first > len(starts) or last < first:
            continue
        run_start = starts[first - 1]
        run_end = starts[last] if last < len(starts) else len(text)
        # The earliest line start at most context_chars before the run.
        context_start = starts[bisect_left(starts, max(run_start - context_chars, 0))]
        if spans and context_start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], run_end))
        else:
            spans.append((context_start, run_end))
    return [Piece(start, text[start:end]) for start, end in spans]


def pieces_for_targets(
    document: Document,
    targets: Iterable[tuple[int, int]],
    *,
    context_chars: int = TARGET_CONTEXT_CHARS,
    right_chars: int = TARGET_RIGHT_CHARS,
) -> list[Piece]:
    """The pieces that score each target span ``[start, end)`` in context (see the module doc).

    Args:
        document: the document the targets index into; its ``changed_lines`` restrict them.
        targets: spans a detector must judge, in any order; empty ones are ignored.
        context_chars: the most characters of left context before a target.
        right_chars: the most characters after a target's end on its line.

    Returns:
        Disjoint, non-adjacent pieces in text order.

    Example:
        >>> text = "a = 1\\nkey = 'zorbl~x9'\\nb = 2\\n"
        >>> pieces_for_targets(Document("c.py", text), [(13, 21)])
        [Piece(offset=0, text="a = 1\\nkey = 'zorbl~x9'")]
    """
    spans = target_spans(document, targets, context_chars=context_chars, right_chars=right_chars)
    return merge_spans(document.text, spans)


def target_spans(
    document: Document,
    targets: Iterable[tuple[int, int]],
    *,
    context_chars: int = TARGET_CONTEXT_CHARS,
    right_chars: int = TARGET_RIGHT_CHARS,
) -> list[tuple[int, int]]:
    """Each target on a changed line (any, outside diff scans) widened by its context, unmerged."""
    text = document.text
    starts = line_starts(text)
    # A piece reaching the file's last visible character takes the trailing whitespace too, so a
    # short file planned whole is the very text a whole-file scan scores (one cache entry).
    content_end = len(text.rstrip())
    spans: list[tuple[int, int]] = []
    for start, end in targets:
        if end <= start:
            continue
        first_line = bisect_right(starts, start)
        last_line = bisect_right(starts, end - 1)
        if not touches_changed_lines(document, first_line, last_line):
            continue
        right = _right_end(text, end, right_chars)
        spans.append((_context_start(text, starts, start, context_chars), len(text) if right >= content_end else right))
    return spans


def merge_spans(text: str, spans: Iterable[tuple[int, int]]) -> list[Piece]:
    """Pieces of ``text`` covering the union of ``spans``; overlapping or adjacent ones merge."""
    return [Piece(lo, text[lo:hi]) for lo, hi in merge_touching(sorted(spans))]


def _context_start(text: str, starts: list[int], start: int, context_chars: int) -> int:
    """Where a target's left context begins: the earliest line start within ``context_chars``,
    else (a long line) the first space after that distance, else that distance exactly."""
    floor = max(start - context_chars, 0)
    index = bisect_left(starts, floor)
    if index < len(starts) and starts[index] <= start:
        return starts[index]
    space = text.find(" ", floor, start)
    return space if space != -1 else floor


def _right_end(text: str, end: int, right_chars: int) -> int:
    """Where a target's piece ends: its line's end, or on a long line the last space within
    ``right_chars`` of the target (a tokenizer boundary), else that distance exactly."""
    newline = text.find("\n", end)
    line_end = newline if newline != -1 else len(text)
    if line_end - end <= right_chars:
        return line_end
    space = text.rfind(" ", end, end + right_chars)
    return space if space != -1 else end + right_chars


def touches_changed_lines(document: Document, first_line: int, last_line: int) -> bool:
    """True when lines ``first_line..last_line`` meet a changed line (or nothing is restricted)."""
    if document.changed_lines is None:
        return True
    return any(first <= last_line and first_line <= last for first, last in document.changed_lines)
