from __future__ import annotations

import pytest

from smscan.errors import ModelError
from smscan.model.device import has_native_cpu_bf16, resolve_device, resolve_dtype


def test_auto_device_is_available() -> None:
    assert resolve_device("auto") in ("cpu", "cuda", "mps")
    assert resolve_device("cpu") == "cpu"


def test_unavailable_device_is_a_model_error() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ModelError, match="not available"):
        resolve_device("cuda")


@pytest.mark.parametrize(
    ("dtype", "device", "expected"),
    [("fp32", "cuda", "fp32"), ("bf16", "cpu", "bf16"), ("fp16", "mps", "fp16"), ("auto", "mps", "fp32")],
)
def test_explicit_and_mps_dtypes(dtype: str, device: str, expected: str) -> None:
    assert resolve_dtype(dtype, device) == expected  # type: ignore[arg-type]


def test_auto_dtype_on_cpu_follows_native_bf16() -> None:
    assert resolve_dtype("auto", "cpu") == ("bf16" if has_native_cpu_bf16() else "fp32")


@pytest.mark.parametrize(("bf16", "expected"), [(True, "bf16"), (False, "fp16")])
def test_auto_dtype_on_cuda(monkeypatch: pytest.MonkeyPatch, bf16: bool, expected: str) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: bf16)
    assert resolve_dtype("auto", "cuda") == expected


def test_unknown_dtype() -> None:
    with pytest.raises(ModelError, match="unknown dtype 'int4'"):
        resolve_dtype("int4", "cpu")
