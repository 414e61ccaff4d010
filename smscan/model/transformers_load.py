"""Load a resolved model and its fast tokenizer with transformers, in eval mode (``LoadedModel``).

Weights load only from ``*.safetensors`` (never pickled ``.bin``), or for the default model from
its pinned GGUF, and never with ``trust_remote_code``; every loading failure becomes one
``ModelError`` here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.errors import ModelError
from smscan.model.device import Device, resolve_device, resolve_dtype, torch_dtype
from smscan.model.gguf_convert import load_gguf_model
from smscan.model.hf import describe_error, quiet_transformers
from smscan.model.default_model import DEFAULT_GGUF_NAME
from smscan.model.scoring_settings import Dtype
from smscan.model.source import ModelSource
from smscan.model.store import corrupted_cache


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A model and tokenizer ready to score, and how they were loaded."""

    source: ModelSource
    model: Any
    tokenizer: Any
    device: Device
    dtype: Dtype
    load_seconds: float


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
            gguf = _default_gguf(source)
            if gguf is not None:  # a pull keeps the default model's weights as the pinned GGUF
                model, loading_info = load_gguf_model(gguf, dtype=torch_dtype(resolved_dtype)), {}
            else:
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


def _default_gguf(source: ModelSource) -> Path | None:
    # The default model folder of a pull holds the GGUF and no safetensors; an earlier smscan's
    # cache holds float32 safetensors, read as any folder's.
    if not source.is_default or any(source.folder.glob("*.safetensors")):
        return None
    gguf = source.folder / DEFAULT_GGUF_NAME
    return gguf if gguf.is_file() else None
