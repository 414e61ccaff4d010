from __future__ import annotations

import pytest

from smscan.records import Document
from smscan.plan.regions import line_starts, pieces_to_score, touches_changed_lines

TEXT = "".join(f"line {n}\n" for n in range(1, 11))  # each line is 7 characters


def test_line_starts_counts_every_newline() -> None:
    assert line_starts("a\nbc\n\nd") == [0, 2, 5, 6]
    assert line_starts("") == [0]


def test_whole_document_is_one_piece() -> None:
    (piece,) = pieces_to_score(Document("f.py", TEXT))
    assert (piece.offset, piece.text) == (0, TEXT)


@pytest.mark.parametrize(
    ("changed", "context_chars", "expected"),
    [
        # line 5 with 14 characters of context: lines 3-5
        (((5, 5),), 14, [(14, "line 3\nline 4\nline 5\n")]),
        # context that ends mid-line starts at the next line start, never half a line
        (((5, 5),), 10, [(21, "line 4\nline 5\n")]),
        # two runs whose pieces overlap are merged
        (((2, 2), (4, 4)), 7, [(0, "line 1\nline 2\nline 3\nline 4\n")]),
        # two runs far apart stay apart
        (((2, 2), (9, 9)), 7, [(0, "line 1\nline 2\n"), (49, "line 8\nline 9\n")]),
        # a run at the last line, and ranges past the end are ignored
        (((10, 12), (40, 41)), 0, [(63, "line 10\n")]),
    ],
)
def test_changed_runs_get_bounded_left_context(
    changed: tuple[tuple[int, int], ...], context_chars: int, expected: list[tuple[int, str]]
) -> None:
    document = Document("f.py", TEXT, changed_lines=changed)
    pieces = pieces_to_score(document, context_chars=context_chars)
    assert [(p.offset, p.text) for p in pieces] == expected
    for piece in pieces:
        assert TEXT[piece.offset : piece.offset + len(piece.text)] == piece.text


def test_findings_must_touch_a_changed_line() -> None:
    document = Document("f.py", TEXT, changed_lines=((3, 4),))
    assert touches_changed_lines(document, 4, 6)
    assert touches_changed_lines(document, 1, 3)
    assert not touches_changed_lines(document, 5, 9)
    assert touches_changed_lines(Document("f.py", TEXT), 5, 9)
