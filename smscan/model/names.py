"""The default model's name and the cache root: all that a worker's key needs to know of the
model (``smscan.scoring.worker_address.worker_key``), kept apart from the pull, the store and the
runtimes so that the hook's thin client imports nothing else of ``smscan.model``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"
DEFAULT_ALIASES = frozenset({"default", DEFAULT_MODEL_NAME.lower()})


def is_default_model(spec: str | None) -> bool:
    """Whether a model string names the default model."""
    return spec is None or spec.strip().lower() in DEFAULT_ALIASES


def cache_root(environ: Mapping[str, str] = os.environ) -> Path:
    """The cache root: ``$SMSCAN_CACHE``, else ``$XDG_CACHE_HOME/smscan``, else ``~/.cache/smscan``."""
    if environ.get("SMSCAN_CACHE"):
        return Path(environ["SMSCAN_CACHE"]).expanduser()
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]).expanduser() / "smscan"
    return Path.home() / ".cache" / "smscan"
