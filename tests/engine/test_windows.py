from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.windows import Windows, fixed_windows, line_windows
from tests.engine.paper_figure import FIGURE_NLL, FIGURE_SCORES, FIGURE_SIZE

NAN = math.nan


def tokenize(pieces: list[str]) -> tuple[str, np.ndarray, np.ndarray]:
    """Offsets of tokens whose texts concatenate to the text; "" is a zero-width token."""
    starts, ends, position = [], [], 0
    for piece in pieces:
        starts.append(position)
        position += len(piece)
        ends.append(position)
    return "".join(pieces), np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


def as_lists(windows: Windows) -> list[tuple[int, int]]:
    return list(zip(windows.starts.tolist(), windows.ends.tolist()))


# fixed_windows


def test_figure_one_window_scores() -> None:
    windows = fixed_windows(FIGURE_NLL, size=FIGURE_SIZE)

    assert len(windows) == 9
    assert windows.starts.tolist() == list(range(9))
    assert windows.ends.tolist() == list(range(2, 11))
    assert windows.scores.tolist() == pytest.approx(FIGURE_SCORES)
    assert windows.scores[3:8].tolist() == pytest.approx([3.80, 3.95, 4.15, 5.10, 2.70])


@pytest.mark.parametrize(
    ("nll", "size", "expected"),
    [
        ([1.0, 2.0, 3.0], 4, []),
        ([], 1, []),
        ([1.0, 2.0, 3.0], 3, [2.0]),
        ([1.0, 2.0, 3.0], 1, [1.0, 2.0, 3.0]),
        ([NAN, 2.0, 4.0, 6.0], 2, [NAN, 3.0, 5.0]),
        ([1.0, math.inf, 3.0, 5.0], 2, [NAN, NAN, 4.0]),
        ([1.0, 3.0, -math.inf, 5.0, 7.0], 2, [2.0, NAN, NAN, 6.0]),
    ],
)
def test_fixed_window_scores(nll: list[float], size: int, expected: list[float]) -> None:
    windows = fixed_windows(np.array(nll, dtype=np.float64), size=size)

    assert len(windows) == len(expected)
    np.testing.assert_allclose(windows.scores, expected)
    assert windows.starts.dtype == np.int64
    assert windows.ends.dtype == np.int64
    assert (windows.ends - windows.starts == size).all()


def test_fixed_window_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        fixed_windows(np.ones(3), size=0)


def test_windows_arrays_must_align() -> None:
    with pytest.raises(ValueError, match="aligned"):
        Windows(starts=np.zeros(2, np.int64), ends=np.ones(2, np.int64), scores=np.ones(3))


nll_values = st.one_of(
    st.floats(min_value=0.0, max_value=50.0), st.sampled_from([NAN, math.inf, -math.inf])
)


@given(nll=st.lists(nll_values, max_size=40), size=st.integers(1, 6))
def test_fixed_windows_match_a_loop(nll: list[float], size: int) -> None:
    windows = fixed_windows(np.array(nll, dtype=np.float64), size=size)

    expected = []
    for start in range(len(nll) - size + 1):
        chunk = nll[start : start + size]
        expected.append(sum(chunk) / size if all(map(math.isfinite, chunk)) else NAN)
    assert as_lists(windows) == [(i, i + size) for i in range(len(expected))]
    np.testing.assert_allclose(windows.scores, expected, rtol=1e-12, atol=1e-12)


# line_windows


def test_line_windows_doc_example() -> None:
    text, starts, ends = tokenize(["a", " =", " 1", "\n\n", "b"])
    windows, lines = line_windows(text, starts, ends, np.array([NAN, 1.0, 2.0, 0.5, 3.0]))

    assert as_lists(windows) == [(0, 3), (4, 5)]
    assert windows.scores.tolist() == [1.5, 3.0]
    assert lines.tolist() == [1, 3]
    assert lines.dtype == np.int64


def test_crlf_carriage_return_is_whitespace() -> None:
    text, starts, ends = tokenize(["x", " =", " 1", "\r\n", "  y", "\r", "\r\n", "z", "\r\n"])
    nll = np.array([NAN, 1.0, 2.0, 9.0, 4.0, 9.0, 9.0, 6.0, 9.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert as_lists(windows) == [(0, 3), (4, 5), (7, 8)]
    assert windows.scores.tolist() == [1.5, 4.0, 6.0]
    assert lines.tolist() == [1, 2, 3]


def test_tabs_are_whitespace() -> None:
    text, starts, ends = tokenize(["\t", "x", " =", " 1", "\t", "\n", "\t\t", "\n", "\ty"])
    nll = np.array([NAN, 1.0, 2.0, 3.0, 9.0, 9.0, 9.0, 9.0, 5.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert as_lists(windows) == [(1, 4), (8, 9)]
    assert windows.scores.tolist() == [2.0, 5.0]
    assert lines.tolist() == [1, 3]


def test_bom_is_whitespace() -> None:
    text, starts, ends = tokenize(["\ufeff", "import", " os", "\n", "\ufeff", "\n", "x"])
    nll = np.array([NAN, 2.0, 4.0, 9.0, 9.0, 9.0, 1.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert as_lists(windows) == [(1, 3), (6, 7)]
    assert windows.scores.tolist() == [3.0, 1.0]
    assert lines.tolist() == [1, 3]


def test_blank_and_whitespace_only_lines_get_no_window() -> None:
    pieces = ["a", "\n\n", "   ", "\n", "\t", "\n", " \u00a0 ", "\n", "b", "\n"]
    text, starts, ends = tokenize(pieces)
    nll = np.array([NAN, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 2.0, 9.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert as_lists(windows) == [(0, 1), (8, 9)]
    assert lines.tolist() == [1, 6]
    # The first line's only token is the unscored first token: nothing is left to average.
    assert math.isnan(windows.scores[0])
    assert windows.scores[1] == 2.0


def test_whitespace_token_across_a_line_break_belongs_to_neither_line() -> None:
    text, starts, ends = tokenize(["if", " x", ":", "\n    ", "y", "\n"])
    nll = np.array([NAN, 1.0, 3.0, 9.0, 4.0, 9.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert as_lists(windows) == [(0, 3), (4, 5)]
    assert windows.scores.tolist() == [2.0, 4.0]
    assert lines.tolist() == [1, 2]


def test_token_with_content_on_two_lines_belongs_to_both() -> None:
    text, starts, ends = tokenize(["a", "b\nc", "d"])

    windows, lines = line_windows(text, starts, ends, np.array([NAN, 2.0, 4.0]))

    assert as_lists(windows) == [(0, 2), (1, 3)]
    assert windows.scores.tolist() == [2.0, 3.0]
    assert lines.tolist() == [1, 2]


def test_multi_byte_characters_use_code_point_offsets() -> None:
    # "" stands for a byte fragment of the emoji whose characters its neighbour already covers.
    pieces = ["s", " =", " '", "é", "", "😀", "'", "\n", "z"]
    text, starts, ends = tokenize(pieces)
    nll = np.array([NAN, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0, 7.0])

    windows, lines = line_windows(text, starts, ends, nll)

    assert text.split("\n")[1] == "z" and int(starts[8]) == 9
    assert as_lists(windows) == [(0, 7), (8, 9)]
    # The zero-width fragment lies inside the first line's range, so its NLL counts.
    assert windows.scores.tolist() == pytest.approx([3.5, 7.0])
    assert lines.tolist() == [1, 2]


@pytest.mark.parametrize(
    ("nll", "expected"),
    [
        ([NAN, 1.0, 3.0, 5.0], [2.0, 5.0]),  # the first token is never scored: skipped
        ([math.inf, 1.0, 3.0, 5.0], [2.0, 5.0]),  # whatever it holds
        ([NAN, NAN, 3.0, 5.0], [NAN, 5.0]),  # any other missing score invalidates the line
        ([NAN, 1.0, 3.0, NAN], [2.0, NAN]),
        ([1.0, 2.0, 3.0, 5.0], [2.0, 5.0]),  # a scored first token counts like any other
    ],
)
def test_first_token_rule(nll: list[float], expected: list[float]) -> None:
    text, starts, ends = tokenize(["x", "=", "y", "\n", "z"])
    nll_with_newline = np.array(nll[:3] + [9.0] + nll[3:])

    windows, _ = line_windows(text, starts, ends, nll_with_newline)

    np.testing.assert_allclose(windows.scores, expected)


def test_line_without_tokens_gets_no_window() -> None:
    text = "ab\ncd"
    windows, lines = line_windows(text, np.array([0]), np.array([2]), np.array([NAN]))

    assert as_lists(windows) == [(0, 1)]
    assert lines.tolist() == [1]


def test_no_tokens_or_no_content() -> None:
    empty = np.zeros(0, dtype=np.int64)
    windows, lines = line_windows("x\ny", empty, empty, np.zeros(0))
    assert len(windows) == 0 and lines.shape == (0,)

    windows, lines = line_windows(" \n\t", np.array([0]), np.array([3]), np.array([NAN]))
    assert len(windows) == 0 and lines.shape == (0,)


def test_zero_width_tokens_may_sit_anywhere() -> None:
    # A special token reported at position 0 after the text must not trip the order check.
    text = "ab\ncd"
    starts = np.array([0, 2, 3, 0])
    ends = np.array([2, 3, 5, 0])
    windows, _ = line_windows(text, starts, ends, np.array([NAN, 1.0, 2.0, 3.0]))

    assert as_lists(windows) == [(0, 1), (2, 3)]


def test_decreasing_offsets_are_refused() -> None:
    with pytest.raises(ValueError, match="must not decrease"):
        line_windows("ab\ncd", np.array([3, 0]), np.array([5, 2]), np.array([NAN, 1.0]))


def test_misaligned_arrays_are_refused() -> None:
    with pytest.raises(ValueError, match="aligned"):
        line_windows("ab", np.array([0]), np.array([2]), np.array([NAN, 1.0]))


def reference_line_windows(
    text: str, starts: list[int], ends: list[int], nll: list[float]
) -> tuple[list[tuple[int, int]], list[float], list[int]]:
    """The documented rule, spelled out line by line."""
    ranges, scores, numbers = [], [], []
    line_start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        visible = [i for i, ch in enumerate(line) if not (ch.isspace() or ch == "\ufeff")]
        if visible:
            lo, hi = line_start + visible[0], line_start + visible[-1] + 1
            members = [
                t
                for t in range(len(starts))
                if starts[t] < ends[t] and starts[t] < hi and ends[t] > lo
            ]
            if members:
                first, last = members[0], members[-1]
                values = [nll[t] for t in range(first, last + 1)]
                if first == 0 and not math.isfinite(values[0]):
                    values = values[1:]
                valid = values and all(map(math.isfinite, values))
                ranges.append((first, last + 1))
                scores.append(sum(values) / len(values) if valid else NAN)
                numbers.append(number)
        line_start += len(line) + 1
    return ranges, scores, numbers


token_pieces = st.lists(
    st.text(alphabet="ab é😀 \t\r\n\ufeff", max_size=5), max_size=12
)


@given(
    pieces=token_pieces,
    data=st.data(),
)
def test_line_windows_match_the_documented_rule(pieces: list[str], data: st.DataObject) -> None:
    text, starts, ends = tokenize(pieces)
    nll = data.draw(
        st.lists(
            st.one_of(st.floats(0.0, 20.0), st.just(NAN)),
            min_size=len(pieces),
            max_size=len(pieces),
        )
    )

    windows, lines = line_windows(text, starts, ends, np.array(nll, dtype=np.float64))

    ranges, scores, numbers = reference_line_windows(text, starts.tolist(), ends.tolist(), nll)
    assert as_lists(windows) == ranges
    np.testing.assert_allclose(windows.scores, scores, rtol=1e-12)
    assert lines.tolist() == numbers
