"""MaskRule and mask_group: raw Surprise Masking of one group, pinned on hand-made scores."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.engine.masking import MaskRule, mask_group, supervised_tokens
from smscan.records import TokenScores


def scores(ids: list[int], nll: list[float]) -> TokenScores:
    n = len(ids)
    return TokenScores(
        np.array(ids, dtype=np.int64), np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64) + 1,
        np.array(nll, dtype=np.float64),
    )


def everything(s: TokenScores) -> np.ndarray:
    return np.ones(len(s), dtype=bool)


def test_global_any_window_masks_every_token_of_a_selected_window() -> None:
    s = scores([1, 2, 3, 4, 5], [np.nan, 1, 9, 1, 1])
    mask = mask_group([s], [everything(s)], MaskRule(window=2, threshold=5.0, propagate=False))[0]
    assert mask.tolist() == [False, True, True, True, False]


def test_consensus_needs_k_selected_windows() -> None:
    s = scores([1, 2, 3, 4, 5], [np.nan, 1, 9, 1, 1])
    mask = mask_group([s], [everything(s)], MaskRule(window=2, threshold=5.0, consensus=2, propagate=False))[0]
    assert mask.tolist() == [False, False, True, False, False]


def test_local_ranking_selects_the_least_likely_window_among_neighbours() -> None:
    s = scores([1, 2, 3, 4, 5, 6], [np.nan, 1, 1, 9, 1, 1])
    rule = MaskRule(window=1, ranking="local", rank_max=10.0, neighbours=2, propagate=False)
    assert mask_group([s], [everything(s)], rule)[0].tolist() == [False, False, False, True, False, False]


def test_unsupervised_tokens_are_never_scored_nor_masked() -> None:
    s = scores([1, 2, 3, 4, 5], [np.nan, 9, 9, 9, 9])
    allowed = np.array([True, True, True, False, True])
    mask = mask_group([s], [allowed], MaskRule(window=2, threshold=5.0))[0]
    # Windows holding token 3 are invalid; token 3 stays unmasked even inside selected windows.
    assert mask.tolist() == [False, True, True, False, False]


def test_propagation_spreads_a_masked_ngram_to_its_repeats_in_the_group() -> None:
    first = scores([7, 8, 9, 1], [np.nan, 9, 9, 1])
    second = scores([5, 8, 9, 6], [np.nan, 1, 1, 1])
    rule = MaskRule(window=2, threshold=5.0)
    masks = mask_group([first, second], [everything(first), everything(second)], rule)
    assert masks[1].tolist() == [False, True, True, False]
    off = mask_group([first, second], [everything(first), everything(second)], MaskRule(window=2, threshold=5.0, propagate=False))
    assert not off[1].any()


def test_propagation_never_reaches_unsupervised_tokens() -> None:
    first = scores([7, 8, 9], [np.nan, 9, 9])
    second = scores([8, 9, 1], [np.nan, 1, 1])
    masks = mask_group([first, second], [everything(first), np.array([False, False, True])], MaskRule(window=2, threshold=5.0))
    assert not masks[1].any()


def test_supervised_tokens_lie_wholly_inside_an_interval() -> None:
    s = TokenScores(np.arange(3), np.array([0, 3, 6]), np.array([3, 6, 9]), np.zeros(3))
    assert supervised_tokens(s, [(3, 9)]).tolist() == [False, True, True]
    assert supervised_tokens(s, [(4, 9)]).tolist() == [False, False, True]
    assert supervised_tokens(s, None).all()


@pytest.mark.parametrize(
    "kwargs", [{"window": 0}, {"consensus": 5}, {"ranking": "median"}, {"threshold": float("nan")}, {"rank_max": 0}]
)
def test_bad_rules_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        MaskRule(**kwargs)


def test_rule_records_what_it_used() -> None:
    assert MaskRule(ranking="local", rank_max=5.0).as_dict() == {
        "kind": "surprise", "ranking": "local", "window": 4, "rank_max": 5.0, "neighbours": 32,
        "consensus": 1, "propagate": True,
    }
