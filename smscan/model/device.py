"""Device and dtype choice for the reference model.

- device ``auto``: ``cuda`` if available, then ``mps``, then ``cpu``.
- dtype ``auto``: on CPU ``bf16`` only where oneDNN reports native bf16 support (AVX512-BF16 or
  AMX), else ``fp32``: without them bf16 matmuls fall back to slow kernels, measured 2-8x slower
  than fp32 (docs/BENCHMARKS.md). On CUDA ``bf16`` where supported, else ``fp16``. On MPS ``fp32``: the
  model is small, and fp32 avoids MPS's uneven bf16/fp16 kernel coverage.
- ``bf16``/``fp16`` mean the weights are cast: with native bf16 that measured faster than fp32
  weights under bf16 autocast, and it halves the memory.
"""

from __future__ import annotations

from typing import Literal, cast

from smscan.errors import ModelError
from smscan.model.scoring_settings import Dtype

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("auto", "bf16", "fp16", "fp32")
Device = Literal["cpu", "cuda", "mps"]


def resolve_device(device: str) -> Device:
    """Turn ``auto|cpu|cuda|mps`` into an available device.

    Args:
        device: the requested device.

    Returns:
        ``cpu``, ``cuda`` or ``mps``.

    Raises:
        ModelError: an unknown name, or a device this machine's torch cannot use.
    """
    import torch

    if device not in DEVICES:
        raise ModelError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    has_cuda = torch.cuda.is_available()
    has_mps = torch.backends.mps.is_available()
    if device == "auto":
        return "cuda" if has_cuda else "mps" if has_mps else "cpu"
    if (device == "cuda" and not has_cuda) or (device == "mps" and not has_mps):
        raise ModelError(f"device {device!r} is not available to this torch; use --device cpu or auto")
    return cast(Device, device)


def resolve_dtype(dtype: str, device: Device) -> Dtype:
    """Turn ``auto|bf16|fp16|fp32`` into the dtype used on ``device`` (module docstring).

    Args:
        dtype: the requested dtype.
        device: a resolved device.

    Returns:
        ``bf16``, ``fp16`` or ``fp32``.

    Raises:
        ModelError: an unknown name.
    """
    if dtype not in DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    if dtype != "auto":
        return cast(Dtype, dtype)
    if device == "cuda":
        import torch

        return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    if device == "cpu" and has_native_cpu_bf16():
        return "bf16"
    return "fp32"


def has_native_cpu_bf16() -> bool:
    """Whether oneDNN has native bf16 kernels on this CPU (AVX512-BF16 or AMX)."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def torch_dtype(dtype: Dtype) -> object:
    """The torch dtype object for a resolved dtype name."""
    import torch

    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
