from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.engine.propagate import propagate_duplicates


def arrays(rows: Sequence[Sequence[int]]) -> list[np.ndarray]:
    return [np.array(row, dtype=np.int64) for row in rows]


def flags(rows: Sequence[Sequence[int]]) -> list[np.ndarray]:
    return [np.array(row, dtype=bool) for row in rows]


def as_ints(masks: list[np.ndarray]) -> list[list[int]]:
    return [mask.astype(int).tolist() for mask in masks]


@pytest.mark.parametrize(
    ("ids", "masks", "size", "expected"),
    [
        pytest.param(
            [[1, 2, 3, 4], [9, 2, 3, 9, 2, 3]],
            [[0, 1, 1, 0], [0, 0, 0, 0, 0, 0]],
            2,
            [[0, 1, 1, 0], [0, 1, 1, 0, 1, 1]],
            id="to another document",
        ),
        pytest.param(
            [[5, 6, 0, 5, 6, 5]],
            [[1, 1, 0, 0, 0, 0]],
            2,
            [[1, 1, 0, 1, 1, 0]],
            id="to repeats in the same document",
        ),
        pytest.param(
            # (1, 2) spreads to B, completing (7, 1) there, which then spreads to C.
            [[1, 2, 9], [7, 1, 2], [7, 1, 5]],
            [[1, 1, 0], [1, 0, 0], [0, 0, 0]],
            2,
            [[1, 1, 0], [1, 1, 1], [1, 1, 0]],
            id="cascading",
        ),
        pytest.param(
            # Three rounds: (1, 2) completes B, whose (3, 1) completes C, whose (2, 3) comes
            # back to the first document.
            [[1, 2, 3, 4, 5], [3, 1, 2], [2, 3, 1]],
            [[1, 1, 0, 0, 0], [1, 0, 0], [1, 0, 0]],
            2,
            [[1, 1, 1, 0, 0], [1, 1, 1], [1, 1, 1]],
            id="cascading chain",
        ),
        pytest.param(
            [[1, 2, 3], [1, 2, 3]],
            [[1, 0, 1], [0, 0, 0]],
            2,
            [[1, 0, 1], [0, 0, 0]],
            id="partial masks do not propagate",
        ),
        pytest.param(
            [[1, 2, 3], [1, 2, 3]],
            [[1, 1, 0], [0, 0, 0]],
            3,
            [[1, 1, 0], [0, 0, 0]],
            id="n-gram must be whole",
        ),
        pytest.param(
            [[4], [4, 4, 8]],
            [[1], [0, 0, 0]],
            2,
            [[1], [0, 0, 0]],
            id="short documents never propagate",
        ),
        pytest.param(
            [[4, 4], [4]],
            [[1, 1], [0]],
            2,
            [[1, 1], [0]],
            id="short documents never receive",
        ),
        pytest.param(
            [[4, 7, 4], [8, 4]],
            [[1, 0, 0], [0, 0]],
            1,
            [[1, 0, 1], [0, 1]],
            id="size one spreads single tokens",
        ),
        pytest.param(
            [[1, 2], [2, 1]],
            [[1, 1], [0, 0]],
            2,
            [[1, 1], [0, 0]],
            id="order matters",
        ),
    ],
)
def test_propagate_duplicates(
    ids: list[list[int]], masks: list[list[int]], size: int, expected: list[list[int]]
) -> None:
    result = propagate_duplicates(arrays(ids), flags(masks), size=size)

    assert as_ints(result) == expected
    assert all(mask.dtype == np.bool_ for mask in result)


def test_inputs_are_not_mutated() -> None:
    ids = arrays([[1, 2, 3], [1, 2, 3]])
    masks = flags([[1, 1, 1], [0, 0, 0]])

    result = propagate_duplicates(ids, masks, size=2)

    assert as_ints(masks) == [[1, 1, 1], [0, 0, 0]]
    assert ids[1].tolist() == [1, 2, 3]
    assert as_ints(result) == [[1, 1, 1], [1, 1, 1]]
    result[0][0] = False
    assert masks[0][0]


def test_empty_group() -> None:
    assert propagate_duplicates([], [], size=3) == []


@pytest.mark.parametrize(
    ("ids", "masks", "size", "message"),
    [
        ([[1, 2]], [[1, 1]], 0, "at least 1"),
        ([[1, 2]], [], 2, "masks"),
        ([[1, 2]], [[1, 1, 0]], 2, "document 0"),
    ],
)
def test_bad_input_is_refused(
    ids: list[list[int]], masks: list[list[int]], size: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        propagate_duplicates(arrays(ids), flags(masks), size=size)


def test_many_documents_share_one_masked_secret() -> None:
    rng = np.random.default_rng(0)
    secret = np.array([900, 901, 902, 903])
    documents, masks = [], []
    for index in range(400):
        ids = rng.integers(0, 50, size=200)
        ids[50:54] = secret
        documents.append(ids)
        mask = np.zeros(200, dtype=bool)
        if index == 0:
            mask[50:54] = True
        masks.append(mask)

    result = propagate_duplicates(documents, masks, size=4)

    assert all(mask[50:54].all() for mask in result)
    assert sum(int(mask.sum()) for mask in result) == 4 * 400


def reference_propagation(
    ids: list[list[int]], masks: list[list[bool]], size: int
) -> list[list[bool]]:
    """The fixed point by brute force: re-scan everything until nothing changes."""
    result = [list(mask) for mask in masks]
    while True:
        spread = {
            tuple(doc[i : i + size])
            for doc, mask in zip(ids, result)
            for i in range(len(doc) - size + 1)
            if all(mask[i : i + size])
        }
        changed = False
        for doc, mask in zip(ids, result):
            for i in range(len(doc) - size + 1):
                if tuple(doc[i : i + size]) in spread and not all(mask[i : i + size]):
                    mask[i : i + size] = [True] * size
                    changed = True
        if not changed:
            return result


# Few distinct ids so repeats are common; a negative and a huge id exercise exact matching of
# ids outside the usual vocabulary range.
token_id = st.one_of(st.integers(0, 2), st.sampled_from([-7, 2**40]))
groups = st.lists(st.lists(st.tuples(token_id, st.booleans()), max_size=15), max_size=5)


@given(group=groups, size=st.integers(1, 4))
def test_matches_brute_force_fixed_point(group: list[list[tuple[int, bool]]], size: int) -> None:
    ids = [[token for token, _ in doc] for doc in group]
    masks = [[masked for _, masked in doc] for doc in group]

    result = propagate_duplicates(arrays(ids), flags(masks), size=size)

    expected = reference_propagation(ids, masks, size)
    assert [mask.tolist() for mask in result] == expected
    # A fixed point: propagating again changes nothing.
    again = propagate_duplicates(arrays(ids), result, size=size)
    assert [mask.tolist() for mask in again] == expected
