"""Which runtime computes the scores: torch (transformers) or CTranslate2.

- ``ctranslate2`` serves the default model on CPU only, in ``fp32`` (the same function as torch
  fp32, about 1e-5 nats apart) or ``int8`` (faster; scores shift, so it needs thresholds of its
  own). It imports neither torch nor transformers, so a scan starts in about a third of the time.
- ``torch`` serves every model on every device, in ``bf16``, ``fp16`` or ``fp32``.
- ``auto``: ``ctranslate2`` when the model is the default one, the device is or resolves to
  ``cpu``, the dtype is ``auto``, ``fp32`` or ``int8`` and ctranslate2 is installed; else
  ``torch``. ``auto`` resolves the device without importing torch where it can: a CUDA device is
  looked for through ctranslate2, and only on Apple silicon (where ``mps`` may exist) is torch
  asked.
"""

from __future__ import annotations

import importlib.util
import platform
import sys
from dataclasses import dataclass
from typing import Literal

from smscan.errors import ModelError
from smscan.model.device import DEVICES, DTYPES

RUNTIMES = ("auto", "torch", "ctranslate2")
CT2_DTYPES = ("auto", "fp32", "int8")


@dataclass(frozen=True, slots=True)
class RuntimeChoice:
    """A resolved runtime; ``dtype`` is resolved for ``ctranslate2`` and as given for ``torch``."""

    runtime: Literal["torch", "ctranslate2"]
    dtype: str


def resolve_runtime(runtime: str, *, is_default_model: bool, device: str, dtype: str, model: str) -> RuntimeChoice:
    """Pick the runtime for a model, device and dtype (module docstring).

    Args:
        runtime: ``auto``, ``torch`` or ``ctranslate2``.
        is_default_model: whether the model string names the default model.
        device: the requested device (``auto``, ``cpu``, ``cuda``, ``mps``).
        dtype: the requested dtype (``auto``, ``bf16``, ``fp16``, ``fp32``, ``int8``).
        model: the model string, for messages.

    Returns:
        The runtime, with the dtype CTranslate2 uses (``fp32`` or ``int8``) or torch's request.

    Raises:
        ModelError: an unknown runtime, or a combination no runtime serves (int8 on torch, a
            model other than the default or a GPU on ctranslate2).
    """
    if runtime not in RUNTIMES:
        raise ModelError(f"unknown runtime {runtime!r}; choose one of {', '.join(RUNTIMES)}")
    if device not in DEVICES:
        raise ModelError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if dtype not in (*DTYPES, "int8"):
        raise ModelError(f"unknown dtype {dtype!r}; choose one of {', '.join((*DTYPES, 'int8'))}")
    if runtime == "torch":
        if dtype == "int8":
            raise ModelError("dtype int8 needs runtime ctranslate2 (or auto); torch scores in bf16, fp16 or fp32")
        return RuntimeChoice("torch", dtype)
    reason = _why_not_ct2(is_default_model=is_default_model, device=device, dtype=dtype, model=model)
    if reason is None:
        return RuntimeChoice("ctranslate2", "int8" if dtype == "int8" else "fp32")
    if runtime == "ctranslate2" or dtype == "int8":
        raise ModelError(f"{'runtime ctranslate2' if runtime == 'ctranslate2' else 'dtype int8'}: {reason}")
    return RuntimeChoice("torch", dtype)


def _why_not_ct2(*, is_default_model: bool, device: str, dtype: str, model: str) -> str | None:
    if not is_default_model:
        return (
            f"the ctranslate2 runtime serves the default model only, not {model!r}; "
            "use runtime torch (and a dtype bf16, fp16 or fp32)"
        )
    if dtype not in CT2_DTYPES:
        return f"the ctranslate2 runtime scores in fp32 or int8, not {dtype}; use runtime torch for {dtype}"
    if importlib.util.find_spec("ctranslate2") is None:
        return "ctranslate2 is not installed: pip install ctranslate2, or use runtime torch"
    if device == "cpu":
        return None
    if device in ("cuda", "mps"):
        return f"the ctranslate2 runtime runs on the CPU only; use runtime torch for device {device}"
    if _has_accelerator():
        return "an accelerator is present; the ctranslate2 runtime runs on the CPU only"
    return None


def _has_accelerator() -> bool:
    """Whether device ``auto`` would resolve to ``cuda`` or ``mps`` (torch imported only on Apple silicon)."""
    import ctranslate2

    if ctranslate2.get_cuda_device_count() > 0:
        return True
    if sys.platform == "darwin" and platform.machine() == "arm64":
        from smscan.model.device import resolve_device

        return resolve_device("auto") != "cpu"
    return False
