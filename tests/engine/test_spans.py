from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.mask import token_mask
from smscan.engine.rules import select_global
from smscan.engine.spans import char_spans, token_runs
from smscan.engine.windows import fixed_windows
from tests.engine.paper_figure import (
    FIGURE_NLL,
    FIGURE_SIZE,
    FIGURE_THRESHOLD,
    figure_text,
)


def test_figure_one_span_is_the_phone_number() -> None:
    text, starts, ends = figure_text()
    windows = fixed_windows(FIGURE_NLL, size=FIGURE_SIZE)
    mask = token_mask(
        windows, select_global(windows, threshold=FIGURE_THRESHOLD), num_tokens=len(FIGURE_NLL)
    )

    spans = char_spans(mask, starts, ends)

    assert text == "Please call Jane at 555 - 014 7 tomorrow ."
    assert len(spans) == 1
    start, end = spans[0]
    assert text[start:end] == "555 - 014 7"


def spans_of(mask: list[int], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return char_spans(
        np.array(mask, dtype=bool),
        np.array([start for start, _ in offsets], dtype=np.int64),
        np.array([end for _, end in offsets], dtype=np.int64),
    )


@pytest.mark.parametrize(
    ("mask", "offsets", "expected"),
    [
        pytest.param([0, 0], [(0, 2), (2, 4)], [], id="nothing masked"),
        pytest.param([1, 1, 0], [(0, 3), (3, 5), (5, 6)], [(0, 5)], id="adjacent tokens"),
        pytest.param([1, 0, 1], [(0, 2), (2, 4), (4, 6)], [(0, 2), (4, 6)], id="two runs"),
        pytest.param([1, 1], [(0, 3), (4, 6)], [(0, 6)], id="one run spans uncovered gap"),
        pytest.param([1, 1], [(0, 1), (0, 1)], [(0, 1)], id="overlapping offsets"),
        pytest.param([1, 1, 1], [(0, 2), (1, 3), (3, 4)], [(0, 4)], id="overlap then adjacent"),
        pytest.param([1], [(3, 3)], [], id="masked zero-width alone"),
        pytest.param([1, 1, 1], [(0, 2), (2, 2), (2, 4)], [(0, 4)], id="masked zero-width inside"),
        pytest.param(
            [1, 0, 1], [(0, 2), (2, 2), (2, 4)], [(0, 4)], id="unmasked zero-width touching"
        ),
        pytest.param(
            [1, 0, 1], [(0, 1), (1, 1), (2, 3)], [(0, 3)], id="unmasked zero-width in a gap"
        ),
        pytest.param(
            [1, 0, 1], [(0, 1), (0, 0), (2, 3)], [(0, 3)], id="special token with odd offset"
        ),
        pytest.param([1, 1, 0], [(0, 2), (2, 2), (2, 4)], [(0, 2)], id="zero-width at run end"),
        pytest.param(
            [0, 1, 0, 0, 1, 1],
            [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)],
            [(1, 2), (4, 6)],
            id="sorted runs",
        ),
    ],
)
def test_char_spans(
    mask: list[int], offsets: list[tuple[int, int]], expected: list[tuple[int, int]]
) -> None:
    assert spans_of(mask, offsets) == expected


def test_multi_byte_characters_map_to_code_points() -> None:
    text = "k = 'é😀x' # ok"
    # Tokens: "k", " =", " '", "é", fragment of the emoji, "😀", "x", "'", " #", " ok"
    offsets = [(0, 1), (1, 3), (3, 5), (5, 6), (6, 6), (6, 7), (7, 8), (8, 9), (9, 11), (11, 14)]
    mask = [0, 0, 0, 1, 1, 1, 1, 0, 0, 0]

    spans = spans_of(mask, offsets)

    assert [text[start:end] for start, end in spans] == ["é😀x"]


def test_misaligned_arrays_are_refused() -> None:
    with pytest.raises(ValueError, match="aligned"):
        spans_of([1, 1], [(0, 1)])


@pytest.mark.parametrize(
    ("mask", "expected"),
    [
        ([], []),
        ([0, 0], []),
        ([1], [(0, 1)]),
        ([1, 1, 0, 1], [(0, 2), (3, 4)]),
        ([0, 1, 1, 1], [(1, 4)]),
    ],
)
def test_token_runs(mask: list[int], expected: list[tuple[int, int]]) -> None:
    assert token_runs(np.array(mask, dtype=bool)) == expected


@given(st.lists(st.booleans(), max_size=40))
def test_token_runs_rebuild_the_mask(mask: list[bool]) -> None:
    runs = token_runs(np.array(mask, dtype=bool))

    rebuilt = [False] * len(mask)
    for start, end in runs:
        assert start < end
        rebuilt[start:end] = [True] * (end - start)
    assert rebuilt == mask
    assert all(end < next_start for (_, end), (next_start, _) in zip(runs, runs[1:]))


# Tokens drawn as (characters skipped before the token, token width); width 0 is zero-width.
token_layouts = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 3), st.booleans()), max_size=25
)


@given(token_layouts)
def test_char_spans_cover_exactly_the_masked_runs(layout: list[tuple[int, int, bool]]) -> None:
    starts, ends, position = [], [], 0
    for gap, width, _ in layout:
        position += gap
        starts.append(position)
        position += width
        ends.append(position)
    mask = [masked for _, _, masked in layout]

    spans = char_spans(np.array(mask, dtype=bool), np.array(starts), np.array(ends))

    # Sorted, non-empty, and separated by at least one character.
    assert all(start < end for start, end in spans)
    assert all(end < next_start for (_, end), (next_start, _) in zip(spans, spans[1:]))
    covered = {c for start, end in spans for c in range(start, end)}
    for start, end, masked in zip(starts, ends, mask):
        token_chars = set(range(start, end))
        if masked:
            assert token_chars <= covered
        elif token_chars:
            # An unmasked token that covers characters is never inside a span.
            assert not token_chars & covered
    for start, end in spans:
        assert start in starts and end in ends
