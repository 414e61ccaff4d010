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
from smscan.model.passes import ForwardPass, is_listened_to, report_pass
from smscan.records import TokenScores

if TYPE_CHECKING:
    from smscan.model.load import LoadedModel

Dtype = Literal["bf16", "fp16", "fp32", "int8"]
Runtime = Literal["torch", "ctranslate2"]
# The precisions each runtime scores in (int8: CTranslate2's int8 weights, float32 activations).
RUNTIME_DTYPES: dict[str, tuple[str, ...]] = {"torch": ("bf16", "fp16", "fp32"), "ctranslate2": ("fp32", "int8")}
DEFAULT_CONTEXT_TOKENS = 512
DEFAULT_STRIDE = 384
DEFAULT_BATCH_SIZE = 1
# Chunks per forward pass when the caller does not say: batching full chunks does not speed up a
# CPU (measured in docs/BENCHMARKS.md) and multiplies the (batch, tokens, vocab) logits;
# accelerators need it. Short chunks are packed beyond it (ScoringSettings.pack_tokens).
DEVICE_BATCH_SIZES = {"cpu": 1, "mps": 4, "cuda": 8}


@dataclass(frozen=True, slots=True)
class ScoringSettings:
    """How texts are scored; everything but ``batch_size`` can change a score.

    Attributes:
        context_tokens: the most tokens fed to the model at once (a chunk).
        stride: new tokens scored per chunk after the first; each later chunk re-feeds
            ``context_tokens - stride`` tokens of left context.
        dtype: the resolved weight dtype: ``bf16``, ``fp16`` or ``fp32`` on torch, ``fp32`` or
            ``int8`` on CTranslate2.
        batch_size: chunks per forward pass (speed and memory only; ``load_scorer`` picks it
            per device unless told).
        runtime: what computes the scores, ``torch`` or ``ctranslate2``.
        pack_tokens: short chunks share a forward pass beyond ``batch_size`` while the padded
            pass holds at most this many tokens (rows x longest row), so many tiny files cost
            a few passes, not one each: every pass reads all the weights, which dominates a
            short one. 0 packs nothing (``--deterministic``: scores independent of batching).
            Speed only, as ``batch_size``; ``load_scorer`` sets ``batch_size * context_tokens``
            unless the batch size is given.

    Example:
        >>> ScoringSettings().key()
        'ctx512-stride384-fp32'
        >>> ScoringSettings(runtime="ctranslate2", dtype="int8").key()
        'ctx512-stride384-ct2-int8'
    """

    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    stride: int = DEFAULT_STRIDE
    dtype: Dtype = "fp32"
    batch_size: int = DEFAULT_BATCH_SIZE
    runtime: Runtime = "torch"
    pack_tokens: int = 0

    def __post_init__(self) -> None:
        check_window(self.context_tokens, self.stride)
        allowed = RUNTIME_DTYPES.get(self.runtime)
        if allowed is None:
            raise ValueError(f"runtime must be torch or ctranslate2, got {self.runtime!r}")
        if self.dtype not in allowed:
            raise ValueError(
                f"dtype must be a resolved dtype of runtime {self.runtime} ({', '.join(allowed)}), "
                f"got {self.dtype!r}"
            )
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")

    def key(self) -> str:
        """A stable string of the fields that change scores, for cache keys (torch's keys are
        those from before there was a second runtime, so existing caches stay valid)."""
        runtime = "" if self.runtime == "torch" else "ct2-"
        return f"ctx{self.context_tokens}-stride{self.stride}-{runtime}{self.dtype}"


class Scorer(Protocol):
    """Anything that turns texts into per-token scores (``TransformersScorer``, ``FakeScorer``)."""

    fingerprint: str
    settings: ScoringSettings

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text independently; one ``TokenScores`` per text, in order."""
        ...


@dataclass(frozen=True, slots=True)
class Tokenised:
    """One text's tokens and offsets, and its NLLs as the chunks get scored."""

    token_ids: np.ndarray  # (n_tokens,) int64
    char_starts: np.ndarray  # (n_tokens,) int64
    char_ends: np.ndarray  # (n_tokens,) int64
    feed_ids: np.ndarray  # (shift + n_tokens,) int64: the optional BOS, then token_ids
    shift: int  # 1 when a BOS is fed before the text, else 0
    nll: np.ndarray = field(init=False)  # (n_tokens,) float64, NaN until scored

    def __post_init__(self) -> None:
        object.__setattr__(self, "nll", np.full(self.token_ids.shape, np.nan, dtype=np.float64))

    def scores(self) -> TokenScores:
        """The record handed on (sharing this object's arrays)."""
        return TokenScores(self.token_ids, self.char_starts, self.char_ends, self.nll)


def tokenised_text(text: str, ids: Sequence[int], offsets: Sequence[tuple[int, int]], bos_id: int | None) -> Tokenised:
    """A ``Tokenised`` from a tokenizer's ids and code-point offsets of ``text`` (``offsets.py``).

    Args:
        text: the text as tokenised (surrogates already replaced).
        ids: the token ids, without special tokens.
        offsets: one ``(start, end)`` per token.
        bos_id: the BOS id fed before the text, or None.

    Returns:
        The tokens with NaN NLLs.
    """
    starts, ends = partition_offsets(offsets, len(text))
    token_ids = np.asarray(ids, dtype=np.int64).reshape(-1)  # (n_tokens,)
    prefix = np.array([] if bos_id is None else [bos_id], dtype=np.int64)
    feed_ids = np.concatenate([prefix, token_ids])  # (shift + n_tokens,)
    return Tokenised(token_ids, starts, ends, feed_ids, len(prefix))


def tokenise_with(tokenizer: Any, texts: Sequence[str], bos_id: int | None) -> list[Tokenised]:
    """``texts`` as a ``tokenizers.Tokenizer`` (a model's ``tokenizer.json``) tokenises them for
    scoring: lone surrogates replaced, no special tokens, offsets a partition of each text.

    Args:
        tokenizer: the tokenizer.
        texts: the texts.
        bos_id: the BOS id fed before each text, or None.

    Returns:
        One ``Tokenised`` per text, NLLs NaN.
    """
    if not texts:
        return []
    clean = [replace_surrogates(text) for text in texts]
    encoded = tokenizer.encode_batch(clean, add_special_tokens=False)
    return [tokenised_text(text, encoding.ids, encoding.offsets, bos_id) for text, encoding in zip(clean, encoded)]


def plan_batches(tokenised: Sequence[Tokenised], settings: ScoringSettings) -> list[list[tuple[int, Chunk]]]:
    """All chunks of all texts as (text index, chunk), longest first, cut into forward passes.

    Args:
        tokenised: the texts' tokens.
        settings: chunk window, stride and batch size.

    Returns:
        Batches of at most ``settings.batch_size`` chunks, or more short ones while the padded
        batch holds at most ``settings.pack_tokens`` tokens; each chunk of each text appears once.
    """
    work = [
        (index, chunk)
        for index, item in enumerate(tokenised)
        for chunk in plan_chunks(len(item.feed_ids), context_tokens=settings.context_tokens, stride=settings.stride)
    ]
    work.sort(key=lambda pair: pair[1].end - pair[1].start, reverse=True)
    batches: list[list[tuple[int, Chunk]]] = []
    for pair in work:
        current = batches[-1] if batches else None
        # Longest first, so a batch's first chunk sets its padded width.
        if current is not None and (
            len(current) < settings.batch_size
            or (len(current) + 1) * (current[0][1].end - current[0][1].start) <= settings.pack_tokens
        ):
            current.append(pair)
        else:
            batches.append([pair])
    return batches


class ChunkedScorer:
    """What every runtime's scorer shares: chunked, batched scoring and what reports record.

    A runtime's scorer sets ``loaded`` (with ``source.name`` and ``device``), ``settings``,
    ``fingerprint`` and ``runtime``, and implements ``_tokenise`` (texts -> ``Tokenised``) and
    ``_score_batch`` (fill the NLL of a batch of chunks).
    """

    loaded: Any
    settings: ScoringSettings
    fingerprint: str
    runtime: str

    def describe(self) -> dict[str, object]:
        """What reports record about the model: name, fingerprint, device, runtime, dtype, settings key."""
        return {
            "name": self.loaded.source.name,
            "fingerprint": self.fingerprint,
            "device": self.loaded.device,
            "runtime": self.runtime,
            "dtype": self.settings.dtype,
            "settings": self.settings.key(),
        }

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text; see the module docstring for tokens, offsets and the first token.

        Args:
            texts: the texts; an empty text gives zero tokens.

        Returns:
            One ``TokenScores`` per text, in order.
        """
        tokenised = self._tokenise(texts)
        batches = plan_batches(tokenised, self.settings)
        total = sum(chunk.end - chunk.start for batch in batches for _, chunk in batch) if is_listened_to() else 0
        done = 0
        for batch in batches:
            self._score_batch(tokenised, batch)
            if total:  # a progress display listens (model/passes.py)
                fed = sum(chunk.end - chunk.start for _, chunk in batch)
                done += fed
                report_pass(ForwardPass(tuple(sorted({index for index, _ in batch})), fed, done, total))
        return [item.scores() for item in tokenised]

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Tokens and offsets exactly as ``score_texts`` makes them, without running the model.

        Args:
            texts: the texts.

        Returns:
            One ``TokenScores`` per text with every ``nll`` NaN.
        """
        return [item.scores() for item in self._tokenise(texts)]

    def _tokenise(self, texts: Sequence[str]) -> list[Tokenised]:
        raise NotImplementedError

    def _score_batch(self, tokenised: list[Tokenised], batch: list[tuple[int, Chunk]]) -> None:
        raise NotImplementedError


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
