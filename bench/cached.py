"""Token scores from the score cache only (no model loaded): what bench scripts sweep over.

The default model's fingerprint and scoring settings are read from the model once (cheap: no
weights are run) unless given; a text missing from the cache is an error, never a silent rescore.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from smscan.cache import ScoreCache, cache_key
from smscan.records import TokenScores


def default_model_identity() -> tuple[str, str]:
    """(fingerprint, scoring settings key) of the default model, as `smscan repo` scores."""
    from smscan.model.load import load_scorer

    scorer = load_scorer("default")
    return scorer.fingerprint, scorer.settings.key()


class CacheOnlyScorer:
    """Answers ``score_texts`` from a score cache; a miss raises."""

    def __init__(self, cache_dir: Path, fingerprint: str, settings_key: str) -> None:
        self.cache = ScoreCache(cache_dir)
        self.fingerprint = fingerprint
        self.settings = _Key(settings_key)

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        out = []
        for text in texts:
            scores = self.cache.get(cache_key(self.fingerprint, self.settings, text))
            if scores is None:
                raise SystemExit(f"a text ({len(text)} chars) is not in {self.cache.root}; run bench/score_cache.py first")
            out.append(scores)
        return out

    def describe(self) -> dict[str, str]:
        return {"name": "default", "fingerprint": self.fingerprint, "settings": self.settings.key()}


class _Key:
    def __init__(self, key: str) -> None:
        self._key = key

    def key(self) -> str:
        return self._key
