from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.model.context import Chunk, plan_chunks


@pytest.mark.parametrize(
    ("n_tokens", "expected"),
    [
        (0, []),
        (1, []),
        (2, [Chunk(0, 2, 1)]),
        (4, [Chunk(0, 4, 1)]),
        (5, [Chunk(0, 4, 1), Chunk(3, 5, 4)]),
        (10, [Chunk(0, 4, 1), Chunk(3, 7, 4), Chunk(6, 10, 7)]),
    ],
)
def test_plan_chunks_table(n_tokens: int, expected: list[Chunk]) -> None:
    assert plan_chunks(n_tokens, context_tokens=4, stride=3) == expected


@pytest.mark.parametrize(("context_tokens", "stride"), [(1, 1), (4, 0), (4, 4), (4, 5), (0, 1)])
def test_plan_chunks_rejects_bad_windows(context_tokens: int, stride: int) -> None:
    with pytest.raises(ValueError):
        plan_chunks(10, context_tokens=context_tokens, stride=stride)


@given(
    n_tokens=st.integers(0, 400),
    context_tokens=st.integers(2, 64),
    data=st.data(),
)
def test_every_token_but_the_first_is_scored_once_with_left_context(
    n_tokens: int, context_tokens: int, data: st.DataObject
) -> None:
    stride = data.draw(st.integers(1, context_tokens - 1))
    chunks = plan_chunks(n_tokens, context_tokens=context_tokens, stride=stride)
    scored = [j for chunk in chunks for j in range(chunk.score_from, chunk.end)]
    assert scored == list(range(1, n_tokens))
    for index, chunk in enumerate(chunks):
        assert 0 <= chunk.start < chunk.score_from <= chunk.end <= n_tokens
        assert chunk.end - chunk.start <= context_tokens
        if index:
            # later chunks re-feed exactly context_tokens - stride tokens of left context
            assert chunk.score_from - chunk.start == context_tokens - stride
            assert chunk.score_from == chunks[index - 1].end
            assert chunk.end - chunk.score_from <= stride
