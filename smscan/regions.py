"""Which parts of a document are scored: the whole text, or changed lines with left context.

The rule, shared by every diff mode (staged, diff, hook): each run of changed lines is scored
together with the lines before it that start within ``CONTEXT_CHARS`` characters of the run
(about 512 tokens of code at ~4 characters per token), cut at a line start so no line is scored
half. Runs whose scored pieces would overlap are merged into one piece. So a secret added to an old
file is judged in the context of the code around it without scoring the whole file.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from smscan.records import Document

CONTEXT_CHARS = 2048


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


def touches_changed_lines(document: Document, first_line: int, last_line: int) -> bool:
    """True when lines ``first_line..last_line`` meet a changed line (or nothing is restricted)."""
    if document.changed_lines is None:
        return True
    return any(first <= last_line and first_line <= last for first, last in document.changed_lines)
