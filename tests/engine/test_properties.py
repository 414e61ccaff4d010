"""Engine properties the issue names, over random inputs (hypothesis), end to end from NLLs to
character spans: a higher threshold never masks more (before and after duplicate propagation),
a higher consensus never masks more, and every span lies inside the text on token boundaries."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.mask import token_mask
from smscan.engine.propagate import propagate_duplicates
from smscan.engine.rules import select_global
from smscan.engine.spans import char_spans
from smscan.engine.windows import fixed_windows

nll_values = st.one_of(st.floats(0.0, 12.0), st.just(float("nan")))
documents = st.lists(
    st.lists(st.tuples(st.integers(0, 4), nll_values, st.text(min_size=0, max_size=3)), max_size=30),
    min_size=1,
    max_size=3,
)


def masks_at(docs: list[list[tuple[int, float, str]]], size: int, threshold: float, consensus: int) -> list[np.ndarray]:
    out = []
    for document in docs:
        windows = fixed_windows(np.array([nll for _, nll, _ in document], dtype=np.float64), size=size)
        selected = select_global(windows, threshold=threshold)
        out.append(token_mask(windows, selected, num_tokens=len(document), consensus=consensus))
    return out


@given(docs=documents, size=st.integers(1, 5), low=st.floats(0.0, 12.0), high=st.floats(0.0, 12.0),
       consensus=st.integers(1, 4))
def test_masks_are_monotone_in_the_threshold_and_the_consensus(
    docs: list[list[tuple[int, float, str]]], size: int, low: float, high: float, consensus: int
) -> None:
    low, high = min(low, high), max(low, high)
    ids = [np.array([token for token, _, _ in document], dtype=np.int64) for document in docs]
    at_low, at_high = masks_at(docs, size, low, consensus), masks_at(docs, size, high, consensus)
    stricter = masks_at(docs, size, low, consensus + 1)
    for loose, strict, more_votes in zip(at_low, at_high, stricter):
        assert not (strict & ~loose).any()  # a higher threshold masks a subset
        assert not (more_votes & ~loose).any()  # consensus k+1 masks a subset of k
    propagated_low = propagate_duplicates(ids, at_low, size=size)
    propagated_high = propagate_duplicates(ids, at_high, size=size)
    for loose, strict in zip(propagated_low, propagated_high):
        assert not (strict & ~loose).any()  # and still after propagation


@given(docs=documents, size=st.integers(1, 5), threshold=st.floats(0.0, 12.0))
def test_spans_lie_inside_the_text_on_token_boundaries(
    docs: list[list[tuple[int, float, str]]], size: int, threshold: float
) -> None:
    for document, mask in zip(docs, masks_at(docs, size, threshold, 1)):
        pieces = [piece for _, _, piece in document]
        text = "".join(pieces)
        ends = np.cumsum([len(piece) for piece in pieces], dtype=np.int64)
        starts = ends - np.array([len(piece) for piece in pieces], dtype=np.int64)
        spans = char_spans(mask, starts, ends)
        boundaries = {0, len(text), *starts.tolist(), *ends.tolist()}
        for start, end in spans:
            assert 0 <= start < end <= len(text)
            assert start in boundaries and end in boundaries
        masked_chars = {i for start, end in spans for i in range(start, end)}
        expected = {i for token, (a, b) in enumerate(zip(starts, ends)) if mask[token] for i in range(a, b)}
        assert masked_chars == expected
