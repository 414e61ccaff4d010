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
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from smscan.errors import ModelError
from smscan.model.chunked import ChunkedScorer
from smscan.model.context import Chunk
from smscan.model.offsets import replace_surrogates
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.tokenised import Tokenised, tokenised_text
from smscan.records import TokenScores

if TYPE_CHECKING:
    from smscan.model.transformers_load import LoadedModel


class Scorer(Protocol):
    """Anything that turns texts into per-token scores (``TransformersScorer``, ``FakeScorer``).

    ``fingerprint`` and ``settings`` are read, never set, through this protocol: a wrapper
    (``CachedScorer``) may pass its scorer's on as read-only properties.
    """

    @property
    def fingerprint(self) -> str: ...

    @property
    def settings(self) -> ScoringSettings: ...

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text independently; one ``TokenScores`` per text, in order."""
        ...

class TransformersScorer(ChunkedScorer):
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
        self.runtime = "torch"
        self.bos_id = default_bos_id(loaded.tokenizer)

    def with_settings(self, **changes: Any) -> TransformersScorer:
        """A scorer sharing this model with some settings changed (not ``dtype``)."""
        return TransformersScorer(self.loaded, replace(self.settings, **changes))

    def _tokenise(self, texts: Sequence[str]) -> list[Tokenised]:
        if not texts:
            return []
        clean = [replace_surrogates(text) for text in texts]
        encoded = self.loaded.tokenizer(
            clean,
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
        )
        return [
            tokenised_text(text, ids, offsets, self.bos_id)
            for text, ids, offsets in zip(clean, encoded["input_ids"], encoded["offset_mapping"])
        ]

    def _score_batch(self, tokenised: list[Tokenised], batch: list[tuple[int, Chunk]]) -> None:
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
