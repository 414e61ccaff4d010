"""Dequantise the default model's GGUF with transformers into float32 safetensors and tokenizer files."""

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


def convert_gguf(gguf: Path, out: Path, report: ProgressFn) -> None:
    """Dequantise a GGUF with transformers into float32 safetensors and tokenizer files in ``out``.

    Raises:
        ModelError: ``accelerate`` is missing or transformers cannot convert the file.
    """
    if importlib.util.find_spec("accelerate") is None:
        raise ModelError("converting the default model needs `accelerate`: pip install accelerate")
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    report("convert", 0, None)
    try:
        with quiet_transformers(), _no_gguf_progress_bar():
            quantized = AutoModelForCausalLM.from_pretrained(
                gguf.parent, gguf_file=gguf.name, dtype=torch.float32
            )
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            # The GGUF-loaded model refuses save_pretrained (it counts as quantized although its
            # weights are already dequantised): copy them into a plain model of the same config.
            config = quantized.config
            if hasattr(config, "quantization_config"):
                del config.quantization_config
            auto_model: Any = AutoModelForCausalLM  # from_config is unannotated
            plain = auto_model.from_config(config, dtype=torch.float32)
            plain.load_state_dict(quantized.state_dict(), strict=True)
            report("convert", 1, 1)
            report("save", 0, None)
            plain.save_pretrained(out, safe_serialization=True)
            tokenizer.save_pretrained(out)
            report("save", 1, 1)
    except Exception as exc:  # noqa: BLE001 - every transformers/gguf failure is one ModelError
        raise ModelError(
            f"could not convert {gguf.name} with transformers {transformers.__version__} "
            f"({describe_error(exc)})"
        ) from exc


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
