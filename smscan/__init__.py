"""smscan: find what a reference language model finds surprising in code."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
