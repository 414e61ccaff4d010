"""The score cache as a layer of the scorer chain: answers what it has, scores only what it lacks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from smscan.scoring.cache_entries import cache_key, decode_entry, encode_entry
from smscan.model.passes import relabelled
from smscan.records import TokenScores

if TYPE_CHECKING:
    from smscan.scoring.cache import ScoreCache


class _Tokenizing(Protocol):
    """What the cache needs of the scorer below it (``LazyScorer``, ``TransformersScorer``)."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def settings(self) -> Any: ...

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]: ...

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]: ...


class CachedScorer:
    """A scorer that answers from a :class:`ScoreCache` and scores only the texts it lacks.

    It has the same ``score_texts``/``fingerprint``/``settings`` as the scorer it wraps (which
    must also have ``tokenize``: ids and offsets without running the model), so the pipeline and
    calibration use it unchanged.

    Args:
        scorer: the scorer below the cache.
        cache: where entries live.
    """

    def __init__(self, scorer: _Tokenizing, cache: ScoreCache) -> None:
        self.scorer = scorer
        self.cache = cache

    @property
    def fingerprint(self) -> str:
        return self.scorer.fingerprint

    @property
    def settings(self) -> Any:
        return self.scorer.settings

    def __getattr__(self, name: str) -> Any:
        # Everything else (describe(), device, ...) is the wrapped scorer's.
        return getattr(self.scorer, name)

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Scores of each text, from the cache where an entry matches its tokens."""
        keys = [cache_key(self.scorer.fingerprint, self.scorer.settings, text) for text in texts]
        stored = self.cache.get_many(keys)
        found: list[TokenScores | None] = [None] * len(texts)
        candidates = [index for index, key in enumerate(keys) if key in stored]
        if candidates:
            tokens = self.scorer.tokenize([texts[index] for index in candidates])
            for index, tokenized in zip(candidates, tokens):
                found[index] = decode_entry(stored[keys[index]], tokenized)
        missing = [index for index, scores in enumerate(found) if scores is None]
        self.cache.hits += len(texts) - len(missing)
        self.cache.misses += len(missing)
        if missing:
            with relabelled(missing):  # progress sees indices into this call's texts
                fresh = self.scorer.score_texts([texts[index] for index in missing])
            if len(fresh) != len(missing):
                raise ValueError(f"the scorer returned {len(fresh)} results for {len(missing)} texts")
            # Keyed again: loading the model may have told the scorer its real identity.
            fingerprint, settings = self.scorer.fingerprint, self.scorer.settings
            entries = {}
            for index, scores in zip(missing, fresh):
                found[index] = scores
                entries[cache_key(fingerprint, settings, texts[index])] = encode_entry(scores)
            self.cache.put_many(entries)
        return [scores for scores in found if scores is not None]
