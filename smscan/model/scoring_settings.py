"""How texts are scored, as a value: window, stride, precision, runtime and batching (``ScoringSettings``).

Everything but the batching changes a score, so ``ScoringSettings.key()`` is part of every cache key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from smscan.model.context import check_window

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
