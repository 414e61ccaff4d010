"""Dequantise the default model's GGUF with transformers, in memory, once per pull.

The pull keeps the GGUF itself and the tokenizer and config files in the model folder, and hands
the float32 model in memory to whatever the runtime needs (the CTranslate2 copy, ``ct2_model.py``),
so the weights are never written as safetensors and then read back to be converted a second time.
The torch runtime dequantises the kept GGUF when it loads (``load_gguf_model``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smscan.errors import ModelError
from smscan.model.hf import describe_error, quiet_transformers

if TYPE_CHECKING:
    from smscan.model.pull_stages import ProgressFn


def convert_gguf(gguf: Path, out: Path, report: ProgressFn) -> Any:
    """Dequantise a GGUF into a float32 model and write its tokenizer and config files to ``out``.

    Args:
        gguf: the pinned GGUF (checked by the caller).
        out: the model folder being built.
        report: progress, stages ``convert`` (dequantising) and ``save`` (tokenizer and config).

    Returns:
        The float32 ``transformers`` model, in memory (``None`` never: a replacement in tests may
        return ``None`` after writing safetensors into ``out`` itself).

    Raises:
        ModelError: ``accelerate`` is missing or transformers cannot convert the file.
    """
    if importlib.util.find_spec("accelerate") is None:
        raise ModelError("converting the default model needs `accelerate`: pip install accelerate")
    import transformers
    from transformers import AutoTokenizer

    report("convert", 0, None)
    try:
        model = load_gguf_model(gguf)
        report("convert", 1, 1)
        report("save", 0, None)
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            model.config.save_pretrained(out)
            model.generation_config.save_pretrained(out)
            tokenizer.save_pretrained(out)
        report("save", 1, 1)
    except ModelError:
        raise
    except Exception as exc:  # noqa: BLE001 - every transformers/gguf failure is one ModelError
        raise ModelError(
            f"could not convert {gguf.name} with transformers {transformers.__version__} "
            f"({describe_error(exc)})"
        ) from exc
    return model


def load_gguf_model(gguf: Path, *, dtype: Any = None) -> Any:
    """The GGUF's weights dequantised into a plain ``transformers`` causal LM (eval mode).

    Args:
        gguf: the GGUF file.
        dtype: a torch dtype; None is float32.

    Returns:
        The model, as if loaded from float32 safetensors of the same weights.

    Raises:
        ModelError: transformers cannot read the file.
    """
    import torch
    from transformers import AutoModelForCausalLM

    try:
        with quiet_transformers(), _no_gguf_progress_bar():
            model: Any = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
            # Its weights are already dequantised float32, but the config still names the GGUF
            # quantization (save_pretrained refuses such a model): drop it, so the config written
            # beside the GGUF is a plain float32 model's. No copy of the weights is made (a copy
            # into a fresh model doubled the first run's peak memory).
            if hasattr(model.config, "quantization_config"):
                del model.config.quantization_config
            if dtype is not None and dtype != torch.float32:
                model = model.to(dtype)
    except Exception as exc:  # noqa: BLE001 - every transformers/gguf failure is one ModelError
        raise ModelError(f"could not read {gguf} with transformers ({describe_error(exc)})") from exc
    return model.eval()


@contextmanager
def _no_gguf_progress_bar() -> Iterator[None]:
    # transformers dequantises GGUF tensors under a bare tqdm bar that its progress-bar switch
    # does not reach; smscan shows its own progress, so swap in a pass-through while converting.
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    original = getattr(gguf_utils, "tqdm", None)
    if original is None:
        yield
        return

    def passthrough(iterable: Any = None, *args: Any, **kwargs: Any) -> Any:
        return iterable

    gguf_utils.tqdm = passthrough  # type: ignore[attr-defined]  # a module global gguf reads, not declared in its stubs
    try:
        yield
    finally:
        gguf_utils.tqdm = original  # type: ignore[attr-defined]  # as above
