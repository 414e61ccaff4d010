"""Per-text score cache, so calibration sweeps and repeated scans never rescore.

A cached entry is the :class:`~smscan.records.TokenScores` of one text, keyed by
(model fingerprint, scoring settings, sha256 of the text). Scoring settings are whatever changes
the numbers besides the weights (context length, stride, dtype, device); the scorer reports them.
Entries are ``.npz`` files (no pickles) written through a temporary file and a rename, so a crash
or a concurrent writer never leaves a partial entry. Layout::

    ROOT/<key digest[:2]>/<key digest>.npz

The default root is ``$SMSCAN_CACHE_DIR/scores`` or ``$XDG_CACHE_HOME/smscan/scores``
(``~/.cache/smscan/scores``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from smscan.errors import SmscanError
from smscan.records import TokenScores

_ARRAYS = ("token_ids", "char_starts", "char_ends", "nll")


def default_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where scores are cached unless told otherwise."""
    if environ.get("SMSCAN_CACHE_DIR"):
        return Path(environ["SMSCAN_CACHE_DIR"]) / "scores"
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "smscan" / "scores"


def settings_key(settings: Any) -> str:
    """A stable string of scoring settings: their own ``key()`` (the model package's
    ``ScoringSettings``), or the sorted JSON of a mapping."""
    key = getattr(settings, "key", None)
    if callable(key):
        return str(key())
    return json.dumps(dict(settings), sort_keys=True, default=str)


def cache_key(fingerprint: str, settings: Any, text: str) -> str:
    """The hex digest that names one text's scores under one model and scoring settings.

    Example:
        >>> cache_key("m", {"stride": 384}, "x") == cache_key("m", {"stride": 384}, "x")
        True
    """
    text_digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    identity = json.dumps(
        {"fingerprint": fingerprint, "settings": settings_key(settings), "text": text_digest},
        sort_keys=True,
    )
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()


class ScoreCache:
    """Token scores on disk under ``root``, one file per (model, settings, text)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.npz"

    def get(self, key: str) -> TokenScores | None:
        """The cached scores, or None when absent or unreadable (a broken entry is a miss)."""
        path = self._path(key)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in _ARRAYS}
        except (OSError, KeyError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return TokenScores(
            token_ids=arrays["token_ids"].astype(np.int64),
            char_starts=arrays["char_starts"].astype(np.int64),
            char_ends=arrays["char_ends"].astype(np.int64),
            nll=arrays["nll"].astype(np.float64),
        )

    def put(self, key: str, scores: TokenScores) -> None:
        """Store scores atomically; a cache that cannot be written is an error naming the folder."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".npz")
            with os.fdopen(handle, "wb") as temp:
                np.savez(
                    temp,
                    token_ids=scores.token_ids,
                    char_starts=scores.char_starts,
                    char_ends=scores.char_ends,
                    nll=scores.nll,
                )
            os.replace(temp_name, path)
        except OSError as error:
            raise SmscanError(
                f"{self.root}: cannot write the score cache ({error.strerror}); "
                "set SMSCAN_CACHE_DIR to a writable folder"
            ) from error


class _Scoring(Protocol):
    """What the cache needs of a scorer (the model package's ``Scorer`` satisfies it)."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def settings(self) -> Any: ...

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]: ...


class CachedScorer:
    """A scorer that answers from a :class:`ScoreCache` and scores only the texts it lacks.

    It has the same ``score_texts``/``fingerprint``/``settings`` as the scorer it wraps, so the
    pipeline and calibration use it unchanged.
    """

    def __init__(self, scorer: _Scoring, cache: ScoreCache) -> None:
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
        fingerprint, settings = self.scorer.fingerprint, self.scorer.settings
        keys = [cache_key(fingerprint, settings, text) for text in texts]
        found: list[TokenScores | None] = [self.cache.get(key) for key in keys]
        missing = [index for index, scores in enumerate(found) if scores is None]
        if missing:
            fresh = self.scorer.score_texts([texts[index] for index in missing])
            for index, scores in zip(missing, fresh):
                self.cache.put(keys[index], scores)
                found[index] = scores
        complete = [scores for scores in found if scores is not None]
        if len(complete) != len(texts):
            raise ValueError(f"the scorer returned {len(complete)} results for {len(texts)} texts")
        return complete
