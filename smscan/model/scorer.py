"""Per-token NLL of texts under a reference model: the Scorer protocol and its transformers version.

How a text is scored (``TransformersScorer``):
- Tokenised by the model's fast tokenizer without special tokens; every token ``j`` but the first
  gets ``-log p(x_j | x_<j)`` in nats. The first token has no context and gets NaN, unless the
  tokenizer adds a BOS token by default (Llama-2, Gemma, Mistral...): then BOS is fed before the
  text, as those models expect, and the first token is scored as ``-log p(x_0 | BOS)``. The
  default model's tokenizer adds no BOS, so its first token is NaN.
- Texts longer than ``context_tokens`` are cut into left-context chunks (``context.py``).
- Chunks of all texts are sorted by length and batched (right padding plus an attention mask,
  so real tokens never see padding); log-probabilities are computed in float32 from the logits.
- Offsets follow ``offsets.py``: tokens partition the text's code points.

Scores are a function of (model, settings, text) only: which other texts share a batch changes
padding and matrix shapes, which can move results by float rounding (about 1e-5 nats in fp32,
about 1e-2 in bf16) but never by more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from smscan.errors import ModelError
from smscan.model.context import Chunk, check_window, plan_chunks
from smscan.model.offsets import partition_offsets, replace_surrogates
from smscan.records import TokenScores

if TYPE_CHECKING:
    from smscan.model.load import LoadedModel

Dtype = Literal["bf16", "fp16", "fp32"]
DEFAULT_CONTEXT_TOKENS = 512
DEFAULT_STRIDE = 384
DEFAULT_BATCH_SIZE = 1
# Chunks per forward pass when the caller does not say: batching does not speed up a CPU (measured
# in docs/BENCHMARKS.md) and multiplies the (batch, tokens, vocab) logits; accelerators need it.
DEVICE_BATCH_SIZES = {"cpu": 1, "mps": 4, "cuda": 8}


@dataclass(frozen=True, slots=True)
class ScoringSettings:
    """How texts are scored; everything but ``batch_size`` can change a score.

    Attributes:
        context_tokens: the most tokens fed to the model at once (a chunk).
        stride: new tokens scored per chunk after the first; each later chunk re-feeds
            ``context_tokens - stride`` tokens of left context.
        dtype: the resolved weight dtype, ``bf16``, ``fp16`` or ``fp32``.
        batch_size: chunks per forward pass (speed and memory only; ``load_scorer`` picks it
            per device unless told).

    Example:
        >>> ScoringSettings().key()
        'ctx512-stride384-fp32'
    """

    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    stride: int = DEFAULT_STRIDE
    dtype: Dtype = "fp32"
    batch_size: int = DEFAULT_BATCH_SIZE

    def __post_init__(self) -> None:
        check_window(self.context_tokens, self.stride)
        if self.dtype not in ("bf16", "fp16", "fp32"):
            raise ValueError(f"dtype must be a resolved dtype (bf16, fp16, fp32), got {self.dtype!r}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")

    def key(self) -> str:
        """A stable string of the fields that change scores, for cache keys."""
        return f"ctx{self.context_tokens}-stride{self.stride}-{self.dtype}"


class Scorer(Protocol):
    """Anything that turns texts into per-token scores (``TransformersScorer``, ``FakeScorer``)."""

    fingerprint: str
    settings: ScoringSettings

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text independently; one ``TokenScores`` per text, in order."""
        ...


@dataclass(frozen=True, slots=True)
class _Tokenised:
    token_ids: np.ndarray  # (n_tokens,) int64
    char_starts: np.ndarray  # (n_tokens,) int64
    char_ends: np.ndarray  # (n_tokens,) int64
    feed_ids: np.ndarray  # (shift + n_tokens,) int64: the optional BOS, then token_ids
    shift: int  # 1 when a BOS is fed before the text, else 0
    nll: np.ndarray = field(init=False)  # (n_tokens,) float64, NaN until scored

    def __post_init__(self) -> None:
        object.__setattr__(self, "nll", np.full(self.token_ids.shape, np.nan, dtype=np.float64))


class TransformersScorer:
    """Scores texts with a loaded Hugging Face causal LM (see the module docstring).

    Args:
        loaded: the model, tokenizer, device and fingerprint from ``load_model``.
        settings: scoring settings; ``dtype`` must match the loaded model's
            (default: ``ScoringSettings(dtype=loaded.dtype)``).

    Raises:
        ValueError: ``settings.dtype`` differs from the loaded model's dtype.
        ModelError: ``settings.context_tokens`` exceeds the model's position limit.

    Example:
        >>> scorer = load_scorer()  # doctest: +SKIP
        >>> scorer.score_texts(["x = 1\\n"])[0].nll  # doctest: +SKIP
        array([nan, 3.1, 1.2, 0.8])
    """

    def __init__(self, loaded: LoadedModel, settings: ScoringSettings | None = None) -> None:
        if settings is None:
            settings = ScoringSettings(dtype=loaded.dtype)
        if settings.dtype != loaded.dtype:
            raise ValueError(f"settings.dtype {settings.dtype} != loaded model dtype {loaded.dtype}")
        config = getattr(loaded.model, "config", None)
        limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        if isinstance(limit, int) and settings.context_tokens > limit:
            raise ModelError(
                f"context_tokens {settings.context_tokens} exceeds the {limit} positions of model "
                f"{loaded.source.name!r}"
            )
        self.loaded = loaded
        self.settings = settings
        self.fingerprint = loaded.source.fingerprint.short
        self.bos_id = default_bos_id(loaded.tokenizer)

    def describe(self) -> dict[str, object]:
        """What reports record about the model: name, fingerprint, device, dtype, settings key."""
        return {
            "name": self.loaded.source.name,
            "fingerprint": self.fingerprint,
            "device": self.loaded.device,
            "dtype": self.settings.dtype,
            "settings": self.settings.key(),
        }

    def with_settings(self, **changes: Any) -> TransformersScorer:
        """A scorer sharing this model with some settings changed (not ``dtype``)."""
        return TransformersScorer(self.loaded, replace(self.settings, **changes))

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text; see the module docstring for tokens, offsets and the first token.

        Args:
            texts: the texts; an empty text gives zero tokens.

        Returns:
            One ``TokenScores`` per text, in order.
        """
        tokenised = self._tokenise(texts)
        work = [
            (index, chunk)
            for index, item in enumerate(tokenised)
            for chunk in plan_chunks(
                len(item.feed_ids),
                context_tokens=self.settings.context_tokens,
                stride=self.settings.stride,
            )
        ]
        work.sort(key=lambda pair: pair[1].end - pair[1].start, reverse=True)
        size = self.settings.batch_size
        for first in range(0, len(work), size):
            self._score_batch(tokenised, work[first : first + size])
        return [
            TokenScores(
                token_ids=item.token_ids,
                char_starts=item.char_starts,
                char_ends=item.char_ends,
                nll=item.nll,
            )
            for item in tokenised
        ]

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Tokens and offsets exactly as ``score_texts`` makes them, without running the model.

        Args:
            texts: the texts.

        Returns:
            One ``TokenScores`` per text with every ``nll`` NaN.
        """
        return [
            TokenScores(item.token_ids, item.char_starts, item.char_ends, item.nll.copy())
            for item in self._tokenise(texts)
        ]

    def _tokenise(self, texts: Sequence[str]) -> list[_Tokenised]:
        if not texts:
            return []
        clean = [replace_surrogates(text) for text in texts]
        encoded = self.loaded.tokenizer(
            clean,
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
        )
        prefix = np.array([] if self.bos_id is None else [self.bos_id], dtype=np.int64)
        result = []
        for text, ids, offsets in zip(clean, encoded["input_ids"], encoded["offset_mapping"]):
            starts, ends = partition_offsets(offsets, len(text))
            token_ids = np.asarray(ids, dtype=np.int64).reshape(-1)  # (n_tokens,)
            feed_ids = np.concatenate([prefix, token_ids])  # (shift + n_tokens,)
            result.append(_Tokenised(token_ids, starts, ends, feed_ids, len(prefix)))
        return result

    def _score_batch(self, tokenised: list[_Tokenised], batch: list[tuple[int, Chunk]]) -> None:
        import torch

        width = max(chunk.end - chunk.start for _, chunk in batch)
        input_ids = torch.zeros((len(batch), width), dtype=torch.long)  # (B, T)
        attention_mask = torch.zeros((len(batch), width), dtype=torch.long)  # (B, T)
        for row, (index, chunk) in enumerate(batch):
            ids = tokenised[index].feed_ids[chunk.start : chunk.end]
            input_ids[row, : len(ids)] = torch.from_numpy(ids)
            attention_mask[row, : len(ids)] = 1
        device = self.loaded.device
        model = self.loaded.model
        with torch.no_grad():
            logits = model(
                input_ids=input_ids.to(device),
                attention_mask=attention_mask.to(device),
                use_cache=False,
            ).logits  # (B, T, V)
            for row, (index, chunk) in enumerate(batch):
                first = chunk.score_from - chunk.start - 1  # position predicting score_from
                last = chunk.end - chunk.start - 1  # one past the position predicting end - 1
                predicted = logits[row, first:last].float()  # (k, V)
                targets = input_ids[row, first + 1 : last + 1].to(predicted.device)  # (k,)
                log_norm = torch.logsumexp(predicted, dim=-1)  # (k,)
                target_logits = predicted.gather(-1, targets[:, None]).squeeze(-1)  # (k,)
                nll = (log_norm - target_logits).cpu().double().numpy()  # (k,)
                shift = tokenised[index].shift
                tokenised[index].nll[chunk.score_from - shift : chunk.end - shift] = nll


def default_bos_id(tokenizer: Any) -> int | None:
    """The BOS id when the tokenizer prepends one by default (so the model expects it), else None."""
    bos_id = getattr(tokenizer, "bos_token_id", None)
    if bos_id is None:
        return None
    probe = tokenizer("x", add_special_tokens=True)["input_ids"]
    return int(bos_id) if len(probe) and int(probe[0]) == int(bos_id) else None
