"""Export-test fixtures: the tiny random-init causal LM (offline, seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import build_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-init Llama with a byte-level BPE tokenizer, saved as safetensors."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))
