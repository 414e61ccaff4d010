"""Load the reference model as a ``Scorer`` in one call; every loading failure is one ``ModelError``.

``load_scorer`` resolves the model string (``source.py``), picks the runtime (``runtime.py``) and
loads: the default model on CPU is scored by CTranslate2 from a copy made once (``ct2_model.py``),
any other model by transformers (``transformers_load.py``). Weights load only from
``*.safetensors`` (never pickled ``.bin``) and never with ``trust_remote_code``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from smscan.model.ct2 import CT2Scorer
from smscan.model.runtime import resolve_runtime
from smscan.model.threads import choose_threads
from smscan.model.scorer import TransformersScorer
from smscan.model.scoring_settings import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_STRIDE,
    DEVICE_BATCH_SIZES,
    ScoringSettings,
)
from smscan.model.source import is_default_model, resolve_model
from smscan.model.transformers_load import LoadedModel, load_model


def load_scorer(
    model: str | None = None,
    *,
    device: str = "auto",
    dtype: str = "auto",
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    stride: int = DEFAULT_STRIDE,
    batch_size: int | None = None,
    cache_dir: Path | None = None,
    pull_if_missing: bool = False,
    threads: int = 0,
    runtime: str = "auto",
    environ: Mapping[str, str] = os.environ,
) -> TransformersScorer | CT2Scorer:
    """Resolve, load and wrap a model as a ``Scorer`` in one call.

    Args:
        model: the model string (None: the default model).
        device: ``auto|cpu|cuda|mps``.
        dtype: ``auto|bf16|fp16|fp32``, or ``int8`` on CTranslate2.
        context_tokens: see ``ScoringSettings``.
        stride: see ``ScoringSettings``.
        batch_size: see ``ScoringSettings``; None picks ``DEVICE_BATCH_SIZES[device]``.
        cache_dir: smscan's cache root.
        pull_if_missing: pull the default model when it has not been pulled yet.
        threads: CPU threads (torch: process-wide; CTranslate2: intra-op threads); 0 chooses
            for a shared machine, and never more than the allowed cores (``threads.py``).
        runtime: ``auto|torch|ctranslate2`` (``runtime.py``).
        environ: the environment to read the cache location from.

    Returns:
        A ready scorer (``TransformersScorer`` or ``CT2Scorer``); ``scorer.loaded`` says what was
        loaded and how long it took.

    Raises:
        ModelError: see ``resolve_model``, ``load_model`` and ``resolve_runtime``; a damaged
            CTranslate2 copy.

    Example:
        >>> scorer = load_scorer(device="cpu")  # doctest: +SKIP
        >>> scorer.fingerprint  # doctest: +SKIP
        'sha256:...'
    """
    started = time.perf_counter()
    choice = resolve_runtime(runtime, is_default_model=is_default_model(model), device=device, dtype=dtype,
                             model=str(model or "default"))
    threads = choose_threads(threads, environ=environ)
    if choice.runtime == "ctranslate2":
        return _load_ct2_scorer(
            model, dtype=choice.dtype, context_tokens=context_tokens, stride=stride, batch_size=batch_size,
            cache_dir=cache_dir, pull_if_missing=pull_if_missing, threads=threads, environ=environ,
            started=started,
        )
    import torch

    torch.set_num_threads(threads)
    source = resolve_model(model, cache_dir=cache_dir, pull_if_missing=pull_if_missing, environ=environ)
    loaded = load_model(source, device=device, dtype=dtype)
    total = time.perf_counter() - started
    loaded = LoadedModel(source, loaded.model, loaded.tokenizer, loaded.device, loaded.dtype, total)
    settings = ScoringSettings(
        context_tokens=context_tokens,
        stride=stride,
        dtype=loaded.dtype,
        batch_size=batch_size or DEVICE_BATCH_SIZES.get(loaded.device, DEFAULT_BATCH_SIZE),
        pack_tokens=_pack_tokens(batch_size, DEVICE_BATCH_SIZES.get(loaded.device, DEFAULT_BATCH_SIZE), context_tokens),
    )
    return TransformersScorer(loaded, settings)


def _pack_tokens(asked: int | None, default_batch: int, context_tokens: int) -> int:
    # Unless a batch size is asked for (--deterministic asks for 1), short chunks share a pass
    # up to the tokens of a full default batch: the same peak memory, far fewer passes.
    return 0 if asked is not None else default_batch * context_tokens


def scorer_fingerprint(
    model: str | None,
    *,
    device: str = "auto",
    dtype: str = "auto",
    runtime: str = "auto",
    pull_if_missing: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> str:
    """The ``fingerprint`` that ``load_scorer`` with these arguments would give, without loading.

    Raises:
        ModelError: see ``resolve_model`` and ``resolve_runtime``.
    """
    from smscan.model.ct2 import ct2_fingerprint

    choice = resolve_runtime(runtime, is_default_model=is_default_model(model), device=device, dtype=dtype,
                             model=str(model or "default"))
    weights = resolve_model(model, pull_if_missing=pull_if_missing, environ=environ).fingerprint.short
    return ct2_fingerprint(weights, choice.dtype) if choice.runtime == "ctranslate2" else weights


def _load_ct2_scorer(
    model: str | None,
    *,
    dtype: str,
    context_tokens: int,
    stride: int,
    batch_size: int | None,
    cache_dir: Path | None,
    pull_if_missing: bool,
    threads: int,
    environ: Mapping[str, str],
    started: float,
) -> CT2Scorer:
    from smscan.model.ct2 import load_ct2_model
    from smscan.model.ct2_model import check_ct2_folder, ensure_ct2_model

    source = resolve_model(model, cache_dir=cache_dir, pull_if_missing=pull_if_missing, environ=environ)
    folder = ensure_ct2_model(source.folder, dtype, cache_dir=cache_dir, environ=environ)
    check_ct2_folder(folder)
    loaded = load_ct2_model(source, folder, dtype=dtype, threads=threads)
    total = time.perf_counter() - started
    loaded = replace(loaded, load_seconds=total)
    settings = ScoringSettings(
        context_tokens=context_tokens,
        stride=stride,
        dtype=dtype,  # type: ignore[arg-type]  # a CTranslate2 copy is made only in ScoringSettings' dtypes
        batch_size=batch_size or DEFAULT_BATCH_SIZE,
        runtime="ctranslate2",
        pack_tokens=_pack_tokens(batch_size, DEFAULT_BATCH_SIZE, context_tokens),
    )
    return CT2Scorer(loaded, settings)
