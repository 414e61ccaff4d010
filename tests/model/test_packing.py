"""Short chunks share forward passes up to ``pack_tokens`` (rows x longest row); long ones keep
``batch_size``; packing changes which chunks share a pass, never the scores beyond float noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from smscan.model.chunked import plan_batches
from smscan.model.load import load_scorer
from smscan.model.scorer import TransformersScorer
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.tokenised import tokenised_text


def _texts(lengths: list[int]) -> list:
    return [tokenised_text("x" * n, list(range(n)), [(i, i + 1) for i in range(n)], None) for n in lengths]


def test_short_chunks_are_packed_up_to_the_token_budget() -> None:
    settings = ScoringSettings(context_tokens=64, stride=48, batch_size=1, pack_tokens=64)
    batches = plan_batches(_texts([100, 10, 10, 10, 10, 10, 10, 10, 8, 3]), settings)
    widths = [[chunk.end - chunk.start for _, chunk in batch] for batch in batches]
    # 100 tokens: a full 64-token chunk and a second chunk re-feeding 16 of context (16 + 36 = 52).
    assert widths == [[64], [52], [10] * 6, [10, 8, 3]]
    assert sum(len(batch) for batch in batches) == 11


def test_without_a_budget_batch_size_alone_cuts() -> None:
    settings = ScoringSettings(context_tokens=64, stride=48, batch_size=2)
    batches = plan_batches(_texts([10, 10, 10, 3, 3]), settings)
    assert [len(batch) for batch in batches] == [2, 2, 1]


def test_load_scorer_packs_unless_a_batch_size_is_asked_for(tiny_model_dir: Path, tmp_path: Path) -> None:
    default = load_scorer(str(tiny_model_dir), device="cpu", context_tokens=64, stride=48, cache_dir=tmp_path)
    asked = load_scorer(str(tiny_model_dir), device="cpu", context_tokens=64, stride=48, batch_size=1, cache_dir=tmp_path)
    assert (default.settings.pack_tokens, asked.settings.pack_tokens) == (64, 0)


def test_packed_scores_equal_one_chunk_per_pass(tiny_scorer: TransformersScorer) -> None:
    texts = [f"key_{i} = 'a{i * 7919 % 1000}b'\n" for i in range(12)] + ["def f():\n    return 1\n" * 9]
    alone = tiny_scorer.with_settings(batch_size=1, pack_tokens=0).score_texts(texts)
    packed = tiny_scorer.with_settings(batch_size=1, pack_tokens=64).score_texts(texts)
    for a, b in zip(alone, packed):
        np.testing.assert_array_equal(a.char_starts, b.char_starts)
        np.testing.assert_allclose(a.nll, b.nll, atol=1e-5)
