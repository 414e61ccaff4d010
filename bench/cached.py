"""Token scores from the score cache only (no model loaded): what bench scripts sweep over.

The default model's fingerprint and scoring settings are read from the model once (cheap: no
weights are run) unless given; a text missing from the cache is an error, never a silent rescore.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cached_scorer import CachedScorer
from smscan.records import TokenScores


def default_model_identity() -> tuple[str, str]:
    """(fingerprint, scoring settings key) of the default model, as `smscan repo` scores."""
    from smscan.model.load import load_scorer

    scorer = load_scorer("default")
    return scorer.fingerprint, scorer.settings.key()


class CacheOnlyScorer:
    """Answers ``score_texts`` from a score cache; a miss raises.

    Entries hold no token ids, so texts are re-tokenized with the default model's
    ``tokenizer.json`` (no weights) and checked against each entry, as a scan does.
    """

    def __init__(self, cache_dir: Path, fingerprint: str, settings_key: str) -> None:
        self.fingerprint = fingerprint
        self.settings = _Key(settings_key)
        self.cached = CachedScorer(_Unscored(self.fingerprint, self.settings, cache_dir), ScoreCache(cache_dir))

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        return self.cached.score_texts(texts)

    def describe(self) -> dict[str, str]:
        return {"name": "default", "fingerprint": self.fingerprint, "settings": self.settings.key()}


class _Unscored:
    def __init__(self, fingerprint: str, settings: _Key, cache_dir: Path) -> None:
        from smscan.scoring.lazy import load_tokenizer_file
        from smscan.model.source import resolve_model

        self.fingerprint, self.settings, self.cache_dir = fingerprint, settings, cache_dir
        self.tokenizer = load_tokenizer_file(resolve_model("default").folder / "tokenizer.json")

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        from smscan.scoring.lazy import tokenize_with

        return tokenize_with(self.tokenizer, texts)

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        raise SystemExit(f"{len(texts)} texts are not in {self.cache_dir}; run bench/score_cache.py first")


class _Key:
    def __init__(self, key: str) -> None:
        self._key = key

    def key(self) -> str:
        return self._key
