"""LazyScorer under the score cache, with the tiny real model: a rescan that hits loads nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cache_database import DATABASE_NAME
from smscan.scoring.cached_scorer import CachedScorer
from smscan.scoring.lazy import LazyScorer, load_tokenizer_file, tokenize_with
from smscan.model.scorer import TransformersScorer
from tests.scorers import RandomWordScorer

TEXTS = [
    "def area(r):\n    return 3.14159 * r * r\n",
    "token = 'ghp_Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc4Dd6Ee8Ff0'\r\n",
    "émoji 🙂🙂 and a lone surrogate \udcff here",
    "",
    "x = 1\n" * 300,
]


class Loads:
    """A load function that counts its calls."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.count = 0

    def __call__(self) -> Any:
        self.count += 1
        return self.scorer


def chain(loads: Loads, cache: ScoreCache, tokenizer_file: Path | None, request: str | None = "request") -> CachedScorer:
    lazy = LazyScorer(loads, request=request, tokenizer_file=tokenizer_file, memo=cache)
    return CachedScorer(lazy, cache)


def test_the_file_tokenizer_tokenizes_as_the_scorer_does(tiny_scorer: TransformersScorer, tiny_model_dir: Path) -> None:
    tokenizer = load_tokenizer_file(tiny_model_dir / "tokenizer.json")

    for ours, theirs in zip(tokenize_with(tokenizer, TEXTS), tiny_scorer.tokenize(TEXTS)):
        assert np.array_equal(ours.token_ids, theirs.token_ids)
        assert np.array_equal(ours.char_starts, theirs.char_starts)
        assert np.array_equal(ours.char_ends, theirs.char_ends)


def test_a_rescan_that_hits_everything_loads_no_model(
    tiny_scorer: TransformersScorer, tiny_model_dir: Path, tmp_path: Path
) -> None:
    loads = Loads(tiny_scorer)
    first = chain(loads, ScoreCache(tmp_path), tiny_model_dir / "tokenizer.json").score_texts(TEXTS)
    assert loads.count == 1

    rescan = chain(loads, ScoreCache(tmp_path), tiny_model_dir / "tokenizer.json")
    again = rescan.score_texts(TEXTS)

    assert loads.count == 1
    assert rescan.describe() == tiny_scorer.describe()
    assert (rescan.fingerprint, rescan.settings.key()) == (tiny_scorer.fingerprint, tiny_scorer.settings.key())
    for a, b in zip(first, again):
        assert np.array_equal(a.token_ids, b.token_ids) and np.array_equal(a.char_starts, b.char_starts)
        assert np.array_equal(a.nll, b.nll, equal_nan=True)
    rescan.score_texts(["a text never scored\n"])
    assert loads.count == 2


def test_a_tokenizer_file_that_disagrees_is_never_used_for_hits(tiny_model_dir: Path, tmp_path: Path) -> None:
    fake = RandomWordScorer()  # tokenizes by regex, not by the tiny model's tokenizer.json
    loads = Loads(fake)
    texts = [text for text in TEXTS if "\udcff" not in text]  # the fake cannot encode surrogates
    first = chain(loads, ScoreCache(tmp_path), tiny_model_dir / "tokenizer.json").score_texts(texts)
    fake.texts.clear()

    again = chain(loads, ScoreCache(tmp_path), tiny_model_dir / "tokenizer.json").score_texts(texts)

    assert loads.count == 2  # tokenizing needed the real scorer
    assert fake.texts == []  # but every text hit
    assert all(np.array_equal(a.nll, b.nll, equal_nan=True) for a, b in zip(first, again))


@pytest.mark.parametrize("damage", ["nothing", "damaged"])
def test_no_or_a_damaged_remembered_identity_loads_the_model(damage: str, tmp_path: Path) -> None:
    loads = Loads(RandomWordScorer())
    cache = ScoreCache(tmp_path)
    chain(loads, cache, None, request=None if damage == "nothing" else "request").score_texts(["x = 1"])
    if damage == "damaged":
        with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
            db.execute("UPDATE identities SET identity = '{\"fingerprint\": 3}'")

    scorer = chain(loads, ScoreCache(tmp_path), None, request=None if damage == "nothing" else "request")

    assert scorer.fingerprint == RandomWordScorer.fingerprint
    assert loads.count == 2


def test_a_scorer_of_other_weights_is_never_remembered_for_a_model(tmp_path: Path) -> None:
    # A stand-in (or any scorer whose fingerprint is not the resolved model's) must not become the
    # remembered identity of that model: later runs would report under the wrong fingerprint.
    loads = Loads(RandomWordScorer())
    cache = ScoreCache(tmp_path)
    lazy = LazyScorer(loads, request="request", memo=cache, weights_fingerprint="sha256:real-weights")
    CachedScorer(lazy, cache).score_texts(["x = 1"])
    assert cache.recall("request") is None

    cache.remember("request", {"fingerprint": RandomWordScorer.fingerprint, "settings": "s", "description": {},
                               "file_tokenizer": False})
    again = LazyScorer(loads, request="request", memo=cache, weights_fingerprint="sha256:real-weights")
    assert again.fingerprint == RandomWordScorer.fingerprint and loads.count == 2  # recalled nothing: it loaded

    suffixed = LazyScorer(Loads(RenamedScorer("sha256:real-weights+ct2-fp32")), request="other", memo=cache,
                          weights_fingerprint="sha256:real-weights")
    CachedScorer(suffixed, cache).score_texts(["y = 2"])
    assert cache.recall("other")["fingerprint"] == "sha256:real-weights+ct2-fp32"


class RenamedScorer(RandomWordScorer):
    def __init__(self, fingerprint: str) -> None:
        super().__init__()
        self.fingerprint = fingerprint  # type: ignore[misc]
