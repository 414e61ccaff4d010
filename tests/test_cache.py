from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from smscan.cache import CachedScorer, ScoreCache, cache_key, default_cache_dir
from smscan.records import TokenScores


class CountingScorer:
    """Scores each character as one token with NLL = its code point / 100; counts calls."""

    fingerprint = "sha256:fake"
    settings: dict[str, Any] = {"context_tokens": 8, "stride": 4, "dtype": "fp32"}

    def __init__(self) -> None:
        self.scored: list[str] = []

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        self.scored.extend(texts)
        out = []
        for text in texts:
            n = len(text)
            nll = np.array([ord(c) / 100 for c in text], dtype=np.float64)
            if n:
                nll[0] = np.nan
            out.append(TokenScores(np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64),
                                   np.arange(1, n + 1, dtype=np.int64), nll))
        return out

    def describe(self) -> dict[str, str]:
        return {"name": "fake"}


def test_key_changes_with_model_settings_and_text() -> None:
    base = cache_key("m1", {"stride": 4}, "abc")

    assert cache_key("m1", {"stride": 4}, "abc") == base
    assert cache_key("m2", {"stride": 4}, "abc") != base
    assert cache_key("m1", {"stride": 8}, "abc") != base
    assert cache_key("m1", {"stride": 4}, "abd") != base


def test_cached_scorer_scores_each_text_once(tmp_path: Path) -> None:
    inner = CountingScorer()
    scorer = CachedScorer(inner, ScoreCache(tmp_path))

    first = scorer.score_texts(["ab", "cd"])
    second = scorer.score_texts(["cd", "ef", "ab"])

    assert inner.scored == ["ab", "cd", "ef"]
    assert np.array_equal(second[0].nll, first[1].nll, equal_nan=True)
    assert np.array_equal(second[2].token_ids, first[0].token_ids)
    assert scorer.cache.hits == 2
    assert scorer.describe() == {"name": "fake"}
    assert scorer.fingerprint == "sha256:fake"


def test_a_new_fingerprint_misses(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    CachedScorer(CountingScorer(), cache).score_texts(["ab"])
    other = CountingScorer()
    other.fingerprint = "sha256:other"

    CachedScorer(other, cache).score_texts(["ab"])

    assert other.scored == ["ab"]


def test_a_broken_entry_is_a_miss(tmp_path: Path) -> None:
    inner = CountingScorer()
    cache = ScoreCache(tmp_path)
    CachedScorer(inner, cache).score_texts(["ab"])
    for entry in tmp_path.rglob("*.npz"):
        entry.write_bytes(b"not an npz")

    CachedScorer(inner, cache).score_texts(["ab"])

    assert inner.scored == ["ab", "ab"]


def test_default_dir_follows_the_environment(tmp_path: Path) -> None:
    assert default_cache_dir({"SMSCAN_CACHE_DIR": str(tmp_path)}) == tmp_path / "scores"
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "smscan" / "scores"
