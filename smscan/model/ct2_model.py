"""The CTranslate2 copies of the default model: where they live, making them, checking them.

Each precision has its own folder beside the converted default model::

    models/SmolLM2-135M-Instruct/            the GGUF, tokenizer and config files (pull.py)
    models/SmolLM2-135M-Instruct-ct2-fp32/   model.bin (float32 weights), config.json,
                                             vocabulary.json, smscan-manifest.json
    models/SmolLM2-135M-Instruct-ct2-int8/   the same with int8 weights (made on first use)

A copy is made by ctranslate2's transformers converter (which imports torch and transformers:
making it is the only step that does) from the float32 model a pull has just dequantised in
memory (``pull.py``: one conversion, no intermediate files), or, for a copy made later (int8,
or a damaged copy), from the model folder: the GGUF dequantised again, or the float32
safetensors of a cache made by an earlier smscan. It is built under a temporary name and
renamed into place (``store.py``), with a manifest naming the GGUF and conversion it derives
from; one process at a time (``store.build_lock``). Scoring only reads it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smscan.errors import ModelError
from smscan.model.hf import describe_error, quiet_transformers
from smscan.model.default_model import CONVERSION_VERSION, DEFAULT_GGUF_NAME, DEFAULT_GGUF_SHA256, DEFAULT_MODEL_NAME, default_model_dir
from smscan.model.store import (
    Manifest,
    build_lock,
    corrupted_cache,
    install_dir,
    intact_manifest,
    make_staging_dir,
    read_manifest,
    write_manifest,
)

# smscan dtype -> ctranslate2 quantization of the stored weights.
CT2_QUANTIZATIONS = {"fp32": "float32", "int8": "int8"}
# Bump when the CTranslate2 conversion changes its output.
CT2_CONVERSION = "ctranslate2/1"
CT2_FILES = ("model.bin", "config.json", "vocabulary.json")


def ct2_model_dir(dtype: str, cache_dir: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """Where the CTranslate2 copy of the default model in ``dtype`` (``fp32``/``int8``) lives."""
    base = default_model_dir(cache_dir, environ)
    return base.parent / f"{base.name}-ct2-{dtype}"


def ct2_conversion_version(dtype: str) -> str:
    """The manifest's conversion string: the safetensors conversion, then CTranslate2's."""
    return f"{CONVERSION_VERSION}|{CT2_CONVERSION}-{CT2_QUANTIZATIONS[dtype]}"


def ensure_ct2_model(
    source: Path, dtype: str, *, cache_dir: Path | None = None, environ: Mapping[str, str] = os.environ
) -> Path:
    """The CTranslate2 copy in ``dtype``, made from ``source`` when missing or outdated.

    Only the manifest and file sizes are checked (no re-hashing), so this is cheap when present.

    Args:
        source: the converted default model folder (safetensors and tokenizer files).
        dtype: ``fp32`` or ``int8``.
        cache_dir: smscan's cache root.
        environ: the environment to read the cache location from.

    Returns:
        The folder.

    Raises:
        ModelError: the folder is damaged (its manifest is unreadable or a file is missing or the
            wrong size), or the conversion fails.
    """
    folder = ct2_model_dir(dtype, cache_dir, environ)
    if folder.is_dir():
        manifest = read_manifest(folder)
        if _is_current(manifest, dtype):
            return folder
    return make_ct2_model(source, dtype, cache_dir=cache_dir, environ=environ)


def is_ct2_model_intact(dtype: str, *, cache_dir: Path | None = None, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the copy exists, is current and every file matches its recorded sha256 (slow)."""
    manifest = intact_manifest(ct2_model_dir(dtype, cache_dir, environ))
    return manifest is not None and _is_current(manifest, dtype) and all(name in manifest.files for name in CT2_FILES)


def make_ct2_model(
    source: Path,
    dtype: str,
    *,
    model: Any = None,
    cache_dir: Path | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Path:
    """Convert the default model into a CTranslate2 folder in ``dtype`` and install it atomically.

    Args:
        source: the default model folder (config and tokenizer files, and the GGUF or float32
            safetensors).
        dtype: ``fp32`` or ``int8``.
        model: the float32 ``transformers`` model already in memory (a pull's); None reads it
            from ``source``.
        cache_dir: smscan's cache root.
        environ: the environment to read the cache location from.

    Returns:
        The installed folder.

    Raises:
        ModelError: ctranslate2 is missing or cannot convert the model.
    """
    final = ct2_model_dir(dtype, cache_dir, environ)
    with build_lock(final) as waited:
        # Another process converted it while this one waited: use its copy, never convert twice.
        if waited and final.is_dir() and _is_current(read_manifest(final), dtype):
            return final
        staging = make_staging_dir(final)
        try:
            convert_to_ct2(source, staging, dtype, model=model)
            write_manifest(
                staging,
                model=f"{DEFAULT_MODEL_NAME} (ctranslate2 {dtype})",
                gguf_sha256=DEFAULT_GGUF_SHA256,
                conversion_version=ct2_conversion_version(dtype),
            )
            install_dir(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return final


def convert_to_ct2(source: Path, out: Path, dtype: str, *, model: Any = None) -> None:
    """Write the CTranslate2 files of the default model into ``out``.

    Args:
        source: the model folder (config and tokenizer files, and the GGUF or safetensors).
        out: the folder to write.
        dtype: ``fp32`` or ``int8``.
        model: the float32 model in memory; None loads it from ``source`` (the GGUF when the
            folder has no safetensors).

    Raises:
        ModelError: ctranslate2 is missing or its converter fails.
    """
    try:
        from ctranslate2.converters import TransformersConverter
    except ImportError as exc:
        raise ModelError("the ctranslate2 runtime needs ctranslate2: pip install ctranslate2") from exc
    if model is None and not any(source.glob("*.safetensors")) and (source / DEFAULT_GGUF_NAME).is_file():
        from smscan.model.gguf_convert import load_gguf_model

        model = load_gguf_model(source / DEFAULT_GGUF_NAME)

    class InMemoryConverter(TransformersConverter):  # type: ignore[misc]
        # ctranslate2 reads the config and tokenizer from the folder and asks for the model
        # through load_model: hand it the one already in memory instead of reading weights.
        def load_model(self, model_class: Any, model_name_or_path: str, **kwargs: Any) -> Any:
            return model if model is not None else super().load_model(model_class, model_name_or_path, **kwargs)

    try:
        with quiet_transformers():
            InMemoryConverter(str(source)).convert(str(out), quantization=CT2_QUANTIZATIONS[dtype], force=True)
    except Exception as exc:  # noqa: BLE001 - every converter failure is one ModelError
        raise ModelError(
            f"could not convert {source} for ctranslate2 ({describe_error(exc)}); "
            "run `smscan model pull --force`, or use runtime torch"
        ) from exc
    missing = _missing_files(out)
    if missing:
        raise ModelError(f"the ctranslate2 converter wrote no {', '.join(missing)} for {source}")


def check_ct2_folder(folder: Path) -> None:
    """Raise the damaged-cache error unless ``folder`` has the files a CTranslate2 model needs."""
    missing = _missing_files(folder)
    if missing:
        raise corrupted_cache(folder, f"{', '.join(missing)} missing")


def _missing_files(folder: Path) -> list[str]:
    return [name for name in CT2_FILES if not (folder / name).is_file()]


def _is_current(manifest: Manifest, dtype: str) -> bool:
    return (manifest.gguf_sha256, manifest.conversion_version) == (DEFAULT_GGUF_SHA256, ct2_conversion_version(dtype))
