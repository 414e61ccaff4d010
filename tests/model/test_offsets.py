from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.model.offsets import partition_offsets, replace_surrogates


@pytest.mark.parametrize(
    ("offsets", "length", "starts", "ends"),
    [
        ([], 0, [], []),
        ([(0, 3)], 3, [0], [3]),
        # an emoji split over three byte-level tokens: the first claims it
        ([(0, 1), (1, 2), (1, 2), (1, 2)], 2, [0, 1, 2, 2], [1, 2, 2, 2]),
        # a token straddling two CJK characters
        ([(0, 1), (0, 2), (1, 2)], 2, [0, 1, 2], [1, 2, 2]),
        # a gap (dropped character) joins the next token; trailing text joins the last
        ([(0, 1), (2, 3)], 5, [0, 1], [1, 5]),
        # special tokens report (0, 0)
        ([(0, 0), (0, 2)], 2, [0, 0], [0, 2]),
    ],
)
def test_partition_offsets_table(
    offsets: list[tuple[int, int]], length: int, starts: list[int], ends: list[int]
) -> None:
    got_starts, got_ends = partition_offsets(offsets, length)
    assert got_starts.tolist() == starts
    assert got_ends.tolist() == ends
    assert got_starts.dtype == got_ends.dtype == "int64"


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1), st.integers(0, 30))
def test_partition_offsets_always_partitions(offsets: list[tuple[int, int]], length: int) -> None:
    starts, ends = partition_offsets(offsets, length)
    assert starts[0] == 0 and ends[-1] == length
    assert (starts <= ends).all()
    assert (starts[1:] == ends[:-1]).all()


def test_replace_surrogates_keeps_length() -> None:
    text = "ok \udce9 done"
    clean = replace_surrogates(text)
    assert clean == "ok \ufffd done"
    assert len(clean) == len(text)
