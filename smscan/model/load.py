"""Find and load the reference model; every loading failure becomes one ``ModelError`` here.

A model is named by a string (``--model``, ``SMSCAN_MODEL`` or the config):
- None, ``default`` or ``SmolLM2-135M-Instruct`` (any case): the converted default model in the
  cache (``pull.py``).
- An existing folder: a Hugging Face causal LM saved with safetensors weights.
- Anything else: a Hugging Face Hub id, fetched (weights as safetensors only) into the hub cache;
  with no network the hub's local cache is used, and ``HF_HUB_OFFLINE=1`` is honoured.

Weights load only from ``*.safetensors`` (never pickled ``.bin``) and never with
``trust_remote_code``. ``load_scorer`` picks the runtime (``runtime.py``): the default model on CPU
is scored by CTranslate2 from a copy made once (``ct2_model.py``), any other by transformers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from smscan.errors import ModelError
from smscan.model.device import Device, resolve_device, resolve_dtype, torch_dtype
from smscan.model.fingerprint import Fingerprint, fingerprint_default, fingerprint_folder
from smscan.model.hf import describe_error, quiet_transformers
from smscan.model.ct2 import CT2Scorer
from smscan.model.pull import (
    CONVERSION_VERSION,
    DEFAULT_GGUF_SHA256,
    DEFAULT_MODEL_NAME,
    default_model_dir,
    pull_default_model,
)
from smscan.model.scorer import (
    DEFAULT_BATCH_SIZE,
    DEVICE_BATCH_SIZES,
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_STRIDE,
    Dtype,
    ScoringSettings,
    TransformersScorer,
)
from smscan.model.runtime import resolve_runtime
from smscan.model.threads import choose_threads
from smscan.model.store import MANIFEST_NAME, cache_root, corrupted_cache, read_manifest

DEFAULT_ALIASES = frozenset({"default", DEFAULT_MODEL_NAME.lower()})
# Only these are fetched from the Hub: safetensors weights, configs and tokenizer files.
HUB_PATTERNS = (
    "*.safetensors", "*.safetensors.index.json", "config.json", "generation_config.json",
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
    "vocab.json", "vocab.txt", "merges.txt", "tokenizer.model",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ModelSource:
    """A model found on disk: ``name`` as the user gave it (normalised for the default)."""

    name: str
    folder: Path
    is_default: bool
    fingerprint: Fingerprint


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A model and tokenizer ready to score, and how they were loaded."""

    source: ModelSource
    model: Any
    tokenizer: Any
    device: Device
    dtype: Dtype
    load_seconds: float


def is_default_model(spec: str | None) -> bool:
    """Whether a model string names the default model."""
    return spec is None or spec.strip().lower() in DEFAULT_ALIASES


def resolve_model(
    spec: str | None,
    *,
    cache_dir: Path | None = None,
    pull_if_missing: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> ModelSource:
    """Find the folder and fingerprint of the model a string names (module docstring).

    Args:
        spec: the model string; None means the default model.
        cache_dir: smscan's cache root; None uses ``store.cache_root(environ)``.
        pull_if_missing: pull the default model when it has not been pulled yet.
        environ: the environment to read the cache location from.

    Returns:
        The model's source.

    Raises:
        ModelError: the default model is not pulled or its cache is damaged; the folder has no
            ``*.safetensors``; the hub id cannot be fetched.
    """
    root = cache_dir or cache_root(environ)
    if is_default_model(spec):
        return _resolve_default(root, pull_if_missing=pull_if_missing, environ=environ)
    assert spec is not None
    path = Path(spec).expanduser()
    if path.is_dir():
        folder = path.resolve()
    elif path.exists():
        raise ModelError(f"model {spec!r} is a file; pass a model folder or a Hugging Face Hub id")
    elif spec.startswith((".", "/", "~")) or spec.count("/") > 1:
        raise ModelError(f"model folder {spec!r} does not exist")
    else:
        folder = _download_snapshot(spec)
    if (folder / MANIFEST_NAME).is_file():  # a converted default model, named by its folder
        manifest = read_manifest(folder)
        fingerprint = fingerprint_default(manifest.gguf_sha256, manifest.conversion_version)
        return ModelSource(spec, folder, is_default=False, fingerprint=fingerprint)
    if not any(folder.glob("*.safetensors")):
        raise ModelError(
            f"model {spec!r} ({folder}) has no *.safetensors weights; smscan never loads pickled "
            ".bin weights: save the model with safe_serialization=True"
        )
    fingerprint = fingerprint_folder(folder, hash_cache=root / "file-hashes.json")
    return ModelSource(spec, folder, is_default=False, fingerprint=fingerprint)


def load_model(source: ModelSource, *, device: str = "auto", dtype: str = "auto") -> LoadedModel:
    """Load a resolved model and its fast tokenizer onto a device, in eval mode.

    Args:
        source: from ``resolve_model``.
        device: ``auto|cpu|cuda|mps`` (``device.py``).
        dtype: ``auto|bf16|fp16|fp32`` (``device.py``).

    Returns:
        The loaded model.

    Raises:
        ModelError: an unknown or unavailable device or dtype, or a folder transformers cannot
            load as a causal LM with a fast tokenizer (for the default model: a damaged cache).
    """
    started = time.perf_counter()
    resolved_device = resolve_device(device)
    resolved_dtype = resolve_dtype(dtype, resolved_device)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(
                source.folder, local_files_only=True, trust_remote_code=False
            )
            with_info: Any = AutoModelForCausalLM.from_pretrained(
                source.folder,
                local_files_only=True,
                use_safetensors=True,
                trust_remote_code=False,
                dtype=torch_dtype(resolved_dtype),
                output_loading_info=True,
            )
            model, loading_info = with_info  # (model, dict of missing/unexpected keys)
        missing = sorted(loading_info.get("missing_keys") or ())
        if missing:  # transformers would silently score with randomly initialised weights
            raise ValueError(f"the weights lack {len(missing)} tensors of the model, e.g. {missing[0]}")
    except Exception as exc:  # noqa: BLE001 - every transformers failure is one ModelError
        if source.is_default:
            raise corrupted_cache(source.folder, describe_error(exc)) from exc
        raise ModelError(
            f"cannot load model {source.name!r} ({source.folder}) as a causal LM: {describe_error(exc)}"
        ) from exc
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(f"model {source.name!r} has no fast tokenizer (tokenizer.json); smscan needs offsets")
    tokenizer.model_max_length = 1 << 62  # the scorer chunks long texts itself: no length warning
    model.to(resolved_device)
    model.eval()
    elapsed = time.perf_counter() - started
    return LoadedModel(source, model, tokenizer, resolved_device, resolved_dtype, elapsed)


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
    threads = choose_threads(threads, runtime=choice.runtime, environ=environ)
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
        dtype=dtype,  # type: ignore[arg-type]
        batch_size=batch_size or DEFAULT_BATCH_SIZE,
        runtime="ctranslate2",
        pack_tokens=_pack_tokens(batch_size, DEFAULT_BATCH_SIZE, context_tokens),
    )
    return CT2Scorer(loaded, settings)


def _resolve_default(root: Path, *, pull_if_missing: bool, environ: Mapping[str, str]) -> ModelSource:
    folder = default_model_dir(root, environ)
    if not folder.exists():
        if not pull_if_missing:
            raise ModelError(f"the default model is not pulled yet ({folder}): run `smscan model pull`")
        pull_default_model(cache_dir=root, environ=environ)
    manifest = read_manifest(folder)
    if (manifest.gguf_sha256, manifest.conversion_version) != (DEFAULT_GGUF_SHA256, CONVERSION_VERSION):
        raise ModelError(
            f"model cache {folder} was converted by another smscan version: run `smscan model pull --force`"
        )
    fingerprint = fingerprint_default(manifest.gguf_sha256, manifest.conversion_version)
    return ModelSource(DEFAULT_MODEL_NAME, folder, is_default=True, fingerprint=fingerprint)


def _download_snapshot(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download

    try:
        with quiet_transformers():
            return Path(snapshot_download(repo_id, allow_patterns=list(HUB_PATTERNS)))
    except Exception as exc:  # noqa: BLE001 - every hub failure is one ModelError
        raise ModelError(
            f"model {repo_id!r} is not a local folder and could not be fetched from the Hugging Face "
            f"Hub ({describe_error(exc)}); check the name, the network, or pass a local folder"
        ) from exc
