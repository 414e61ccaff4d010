"""smscan: find what a reference language model finds surprising in code."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# The masking API (smscan/api.py), imported on first use so that `import smscan` stays light.
_API = ("MaskRule", "batch_masker", "load_masking_scorer", "mask_records", "mask_texts")

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        from smscan import api

        return getattr(api, name)
    raise AttributeError(f"module 'smscan' has no attribute {name!r}")
