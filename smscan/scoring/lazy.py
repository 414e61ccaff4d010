"""A scorer that loads the model only when a text must be scored, for the score cache to sit on.

Loading the weights (and importing torch) costs seconds; a rescan whose texts are all in the score
cache needs none of it. What the cache needs from the layer below without scoring:

- ``fingerprint`` and ``settings``: remembered per load request (the resolved model and the load
  options) from the last time such a scorer was loaded, in the cache's own table. Unknown the
  first time: then they load the model.
- ``tokenize``: token ids and character offsets, made from the model folder's ``tokenizer.json``
  with the ``tokenizers`` library alone (no torch, no transformers), the way
  ``TransformersScorer.tokenize`` makes them. That tokenizer is used before loading only once it
  was seen to agree with the loaded scorer's tokens on the texts it scored (remembered with the
  identity); otherwise tokenizing loads the model too.

Everything else (``score_texts``, ``describe`` once loaded, other attributes) is the loaded scorer's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from smscan.model.tokenised import tokenise_with
from smscan.records import TokenScores


class IdentityMemo(Protocol):
    """Where identities are remembered (``smscan.scoring.cache.ScoreCache``)."""

    def recall(self, request: str) -> dict[str, Any] | None: ...

    def remember(self, request: str, identity: Mapping[str, Any]) -> None: ...


class RememberedSettings:
    """Scoring settings known only by their key (from a remembered identity)."""

    def __init__(self, key: str) -> None:
        self._key = key

    def key(self) -> str:
        """The settings key the loaded scorer reported."""
        return self._key

    def __repr__(self) -> str:
        return f"RememberedSettings({self._key!r})"


class LazyScorer:
    """A ``Scorer`` that calls ``load`` on the first text it must score (module docstring).

    Args:
        load: returns the real scorer (``load_scorer`` with the command's options).
        request: a string naming the resolved model and load options; None when the model could
            not be resolved cheaply (then nothing is remembered and the first use loads).
        tokenizer_file: the model's ``tokenizer.json``, if it has one.
        memo: where identities are remembered.
        weights_fingerprint: the resolved model's fingerprint; an identity is remembered only
            when the loaded scorer's fingerprint is that one (or it with a runtime suffix such as
            ``+ct2-fp32``), so a stand-in scorer can never be remembered for a real model.

    Example:
        >>> scorer = LazyScorer(lambda: load_scorer(), request=req, tokenizer_file=f, memo=cache)  # doctest: +SKIP
        >>> scorer.fingerprint  # remembered: no weights loaded  # doctest: +SKIP
    """

    def __init__(
        self,
        load: Callable[[], Any],
        *,
        request: str | None = None,
        tokenizer_file: Path | None = None,
        memo: IdentityMemo | None = None,
        weights_fingerprint: str | None = None,
    ) -> None:
        self._load = load
        self._weights = weights_fingerprint
        self._request = request
        self._tokenizer_file = tokenizer_file
        self._memo = memo
        self._scorer: Any = None
        self._file_tokenizer: Any = None
        self._file_agrees: bool | None = None  # in this run, once scored texts were compared
        self._identity = _valid_identity(memo.recall(request)) if memo is not None and request else None
        if self._identity is not None and not self._of_these_weights(self._identity):
            self._identity = None

    @property
    def is_loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._scorer is not None

    @property
    def scorer(self) -> Any:
        """The real scorer, loaded on first access."""
        if self._scorer is None:
            self._scorer = self._load()
            if self._identity is None:
                self._remember(file_tokenizer=False)
        return self._scorer

    @property
    def fingerprint(self) -> str:
        if self._scorer is None and self._identity is not None:
            return str(self._identity["fingerprint"])
        return str(self.scorer.fingerprint)

    @property
    def settings(self) -> Any:
        if self._scorer is None and self._identity is not None:
            return RememberedSettings(self._identity["settings"])
        return self.scorer.settings

    def describe(self) -> dict[str, object]:
        """What reports record about the model (remembered, or the loaded scorer's)."""
        if self._scorer is None and self._identity is not None:
            return dict(self._identity["description"])
        return _describe(self.scorer)

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Token ids and offsets as the loaded scorer makes them, every ``nll`` NaN."""
        if self._scorer is None and self._identity is not None and self._identity["file_tokenizer"]:
            tokenizer = self._tokenizer()
            if tokenizer is not None:
                return tokenize_with(tokenizer, texts)
        scorer = self.scorer
        if hasattr(scorer, "tokenize"):
            return list(scorer.tokenize(texts))
        tokenizer = self._tokenizer()
        if tokenizer is None:
            raise TypeError(f"{type(scorer).__name__} cannot tokenize without scoring")
        return tokenize_with(tokenizer, texts)

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score with the loaded model, checking the file tokenizer against its tokens."""
        scored = list(self.scorer.score_texts(texts))
        tokenizer = self._tokenizer()
        if tokenizer is not None and any(len(scores) for scores in scored):
            agrees = all(_same_tokens(a, b) for a, b in zip(tokenize_with(tokenizer, texts), scored))
            # One disagreement in a run settles it for the run; the next run checks again.
            self._file_agrees = agrees and self._file_agrees is not False
            self._remember(file_tokenizer=self._file_agrees)
        return scored

    def __getattr__(self, name: str) -> Any:
        # Anything else (loaded, device, with_settings ...) needs the real scorer.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.scorer, name)

    def _remember(self, *, file_tokenizer: bool) -> None:
        assert self._scorer is not None
        if getattr(self._scorer, "is_remote", False):
            return  # a warm worker's word about itself is not stored (only what this process loaded)
        identity = _identity_of(self._scorer, file_tokenizer)
        if identity != self._identity and self._memo is not None and self._request and self._of_these_weights(identity):
            self._memo.remember(self._request, identity)
        self._identity = identity

    def _of_these_weights(self, identity: Mapping[str, Any]) -> bool:
        # A runtime adds a suffix to the weights' fingerprint (``+ct2-fp32``), nothing else may differ.
        return self._weights is None or str(identity["fingerprint"]).split("+", 1)[0] == self._weights

    def _tokenizer(self) -> Any:
        if self._file_tokenizer is None and self._tokenizer_file is not None:
            try:
                self._file_tokenizer = load_tokenizer_file(self._tokenizer_file)
            except Exception:  # noqa: BLE001 - an unreadable tokenizer.json: tokenize by loading
                self._tokenizer_file = None
        return self._file_tokenizer


def load_tokenizer_file(path: Path) -> Any:
    """A ``tokenizers.Tokenizer`` from ``tokenizer.json`` with no truncation or padding (as
    transformers uses it when nothing is asked for)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def tokenize_with(tokenizer: Any, texts: Sequence[str]) -> list[TokenScores]:
    """Tokens of each text as ``TransformersScorer.tokenize`` makes them (``scorer.tokenise_with``
    without a BOS: one is fed, never reported), every ``nll`` NaN."""
    return [item.scores() for item in tokenise_with(tokenizer, texts, None)]


def _same_tokens(a: TokenScores, b: TokenScores) -> bool:
    return (
        np.array_equal(a.token_ids, b.token_ids)
        and np.array_equal(a.char_starts, b.char_starts)
        and np.array_equal(a.char_ends, b.char_ends)
    )


def _describe(scorer: Any) -> dict[str, object]:
    describe = getattr(scorer, "describe", None)
    return dict(describe()) if callable(describe) else {"fingerprint": scorer.fingerprint}


def _identity_of(scorer: Any, file_tokenizer: bool) -> dict[str, Any]:
    settings = scorer.settings
    key = settings.key() if callable(getattr(settings, "key", None)) else str(settings)
    return {
        "fingerprint": str(scorer.fingerprint),
        "settings": str(key),
        "description": _describe(scorer),
        "file_tokenizer": bool(file_tokenizer),
    }


def _valid_identity(identity: dict[str, Any] | None) -> dict[str, Any] | None:
    # A remembered identity written by another version, or damaged, is ignored (the model loads).
    if (
        identity is not None
        and isinstance(identity.get("fingerprint"), str)
        and isinstance(identity.get("settings"), str)
        and isinstance(identity.get("description"), dict)
        and isinstance(identity.get("file_tokenizer"), bool)
    ):
        return identity
    return None
