"""Which runtime a model, device and dtype get (no model is loaded)."""

from __future__ import annotations

import pytest

from smscan.errors import ModelError
from smscan.model import runtime as runtime_module
from smscan.model.runtime import RuntimeChoice, resolve_runtime


@pytest.fixture(autouse=True)
def no_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_module, "_has_accelerator", lambda: False)


@pytest.mark.parametrize(
    ("runtime", "default", "device", "dtype", "expected"),
    [
        ("auto", True, "auto", "auto", RuntimeChoice("ctranslate2", "fp32")),
        ("auto", True, "cpu", "fp32", RuntimeChoice("ctranslate2", "fp32")),
        ("auto", True, "cpu", "int8", RuntimeChoice("ctranslate2", "int8")),
        ("auto", True, "cpu", "bf16", RuntimeChoice("torch", "bf16")),
        ("auto", True, "cuda", "auto", RuntimeChoice("torch", "auto")),
        ("auto", True, "mps", "fp32", RuntimeChoice("torch", "fp32")),
        ("auto", False, "cpu", "auto", RuntimeChoice("torch", "auto")),
        ("torch", True, "cpu", "auto", RuntimeChoice("torch", "auto")),
        ("ctranslate2", True, "auto", "auto", RuntimeChoice("ctranslate2", "fp32")),
        ("ctranslate2", True, "cpu", "int8", RuntimeChoice("ctranslate2", "int8")),
    ],
)
def test_resolve_runtime(runtime: str, default: bool, device: str, dtype: str, expected: RuntimeChoice) -> None:
    assert resolve_runtime(runtime, is_default_model=default, device=device, dtype=dtype, model="m") == expected


def test_auto_picks_torch_when_an_accelerator_is_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_module, "_has_accelerator", lambda: True)
    assert resolve_runtime("auto", is_default_model=True, device="auto", dtype="auto", model="m").runtime == "torch"
    assert resolve_runtime("auto", is_default_model=True, device="cpu", dtype="auto", model="m").runtime == "ctranslate2"


@pytest.mark.parametrize(
    ("runtime", "default", "device", "dtype", "match"),
    [
        ("torch", True, "cpu", "int8", "int8 needs runtime ctranslate2"),
        ("ctranslate2", False, "cpu", "auto", "default model only"),
        ("ctranslate2", True, "cuda", "auto", "CPU only"),
        ("ctranslate2", True, "cpu", "fp16", "fp32 or int8"),
        ("auto", False, "cpu", "int8", "default model only"),
        ("auto", True, "cuda", "int8", "CPU only"),
        ("tensorrt", True, "cpu", "auto", "unknown runtime"),
        ("auto", True, "tpu", "auto", "unknown device"),
        ("auto", True, "cpu", "int4", "unknown dtype"),
    ],
)
def test_impossible_combinations_are_model_errors(runtime: str, default: bool, device: str, dtype: str, match: str) -> None:
    with pytest.raises(ModelError, match=match):
        resolve_runtime(runtime, is_default_model=default, device=device, dtype=dtype, model="some/model")


def test_auto_falls_back_to_torch_without_ctranslate2(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = runtime_module.importlib.util.find_spec
    monkeypatch.setattr(
        runtime_module.importlib.util, "find_spec", lambda name: None if name == "ctranslate2" else real_find_spec(name)
    )
    assert resolve_runtime("auto", is_default_model=True, device="cpu", dtype="auto", model="m").runtime == "torch"
    with pytest.raises(ModelError, match="pip install ctranslate2"):
        resolve_runtime("ctranslate2", is_default_model=True, device="cpu", dtype="auto", model="m")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('runtime = "tensorrt"\n', "runtime must be one of auto, torch, ctranslate2"),
        ('runtime = "torch"\ndtype = "int8"\n', "dtype int8 needs runtime ctranslate2"),
        ('dtype = "int4"\n', "dtype must be one of"),
    ],
)
def test_bad_runtime_config_is_a_config_error(tmp_path, toml: str, message: str) -> None:
    from smscan.config.settings import load_settings
    from smscan.errors import ConfigError

    (tmp_path / ".smscan.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path)


def test_build_scorer_passes_the_configured_runtime(tmp_path) -> None:
    from smscan.config.settings import load_settings
    from smscan.scoring.chain import build_scorer

    (tmp_path / ".smscan.toml").write_text('runtime = "ctranslate2"\ndtype = "int8"\nthreads = 1\nscore_cache = false\n')
    calls = []
    loader = lambda *args, **kwargs: calls.append(kwargs) or "scorer"  # noqa: E731 - records the load's options
    assert build_scorer(load_settings(tmp_path), environ={}, load=loader) == "scorer"
    assert calls[0]["runtime"] == "ctranslate2" and calls[0]["dtype"] == "int8" and calls[0]["threads"] == 1
