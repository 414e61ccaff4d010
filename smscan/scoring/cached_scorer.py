"""The score cache as a layer of the scorer chain: answers what it has, scores only what it lacks.

Only a process that ran the model writes the cache: scores a warm worker sent (the scorer below
says ``answered_by_worker``) are used for this command and never stored, and neither are the
judgements made from them (``judgement_store``), so a stand-in at the worker's socket cannot
make a later command, with or without a worker, pass what it hid. The worker keeps its own
cache of what it scored.
"""

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

    @property
    def is_computed_here(self) -> bool:
        """Whether every score this layer got from below was computed in this process."""
        return not getattr(self.scorer, "answered_by_worker", False)

    def judgement_store(self) -> JudgementStore:
        """The cache as the judgement memo may use it: read always, written only while
        ``is_computed_here``."""
        return JudgementStore(self)

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
            # A text that repeats in one call (a key copied into three folders, the same test
            # lines in many snippets) is scored once: a score is a function of the text.
            first: dict[str, int] = {}
            for index in missing:
                first.setdefault(texts[index], index)
            unique = list(first.values())
            with relabelled(unique):  # progress sees indices into this call's texts
                fresh = self.scorer.score_texts([texts[index] for index in unique])
            if len(fresh) != len(unique):
                raise ValueError(f"the scorer returned {len(fresh)} results for {len(unique)} texts")
            # Keyed again: loading the model may have told the scorer its real identity.
            fingerprint, settings = self.scorer.fingerprint, self.scorer.settings
            entries = {}
            scored = dict(zip(unique, fresh))
            for index in missing:
                found[index] = scored[first[texts[index]]]
            for index, scores in scored.items():
                entries[cache_key(fingerprint, settings, texts[index])] = encode_entry(scores)
            if self.is_computed_here:
                self.cache.put_many(entries)
        return [scores for scores in found if scores is not None]


class JudgementStore:
    """A ``CachedScorer``'s cache for the judgement memo: written only from scores computed here."""

    def __init__(self, owner: CachedScorer) -> None:
        self._owner = owner

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The cache's entries for ``keys``."""
        found: dict[str, bytes] = self._owner.cache.get_many(keys)
        return found

    def put_many(self, entries: dict[str, bytes]) -> None:
        """Store ``entries`` unless a worker's answers went into them."""
        if self._owner.is_computed_here:
            self._owner.cache.put_many(entries)
