"""Find the model a string names: its folder and fingerprint (``ModelSource``), without loading it.

A model is named by a string (``--model``, ``SMSCAN_MODEL`` or the config):
- None, ``default`` or ``SmolLM2-135M-Instruct`` (any case): the converted default model in the
  cache (``pull.py``).
- An existing folder: a Hugging Face causal LM saved with safetensors weights.
- Anything else: a Hugging Face Hub id, fetched (weights as safetensors only) into the hub cache;
  with no network the hub's local cache is used, and ``HF_HUB_OFFLINE=1`` is honoured.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from smscan.errors import ModelError
from smscan.model.fingerprint import Fingerprint, fingerprint_default, fingerprint_folder
from smscan.model.hf import describe_error, quiet_transformers
from smscan.model.pull import pull_default_model
from smscan.model.default_model import CONVERSION_VERSION, DEFAULT_GGUF_SHA256, DEFAULT_MODEL_NAME, default_model_dir
from smscan.model.names import DEFAULT_ALIASES as DEFAULT_ALIASES, is_default_model as is_default_model
from smscan.model.store import MANIFEST_NAME, cache_root, read_manifest

# Only these are fetched from the Hub: safetensors weights, configs and tokenizer files.
HUB_PATTERNS = (
    "*.safetensors", "*.safetensors.index.json", "config.json", "generation_config.json",
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
    "vocab.json", "vocab.txt", "merges.txt", "tokenizer.model",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ModelSource:
    """A model found on disk: ``name`` as the user gave it (normalised for the default)."""

    name: str
    folder: Path
    is_default: bool
    fingerprint: Fingerprint


def resolve_model(
    spec: str | None,
    *,
    cache_dir: Path | None = None,
    pull_if_missing: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> ModelSource:
    """Find the folder and fingerprint of the model a string names (module docstring).

    Args:
        spec: the model string; None means the default model.
        cache_dir: smscan's cache root; None uses ``store.cache_root(environ)``.
        pull_if_missing: pull the default model when it has not been pulled yet.
        environ: the environment to read the cache location from.

    Returns:
        The model's source.

    Raises:
        ModelError: the default model is not pulled or its cache is damaged; the folder has no
            ``*.safetensors``; the hub id cannot be fetched.
    """
    root = cache_dir or cache_root(environ)
    if is_default_model(spec):
        return _resolve_default(root, pull_if_missing=pull_if_missing, environ=environ)
    assert spec is not None
    path = Path(spec).expanduser()
    if path.is_dir():
        folder = path.resolve()
    elif path.exists():
        raise ModelError(f"model {spec!r} is a file; pass a model folder or a Hugging Face Hub id")
    elif spec.startswith((".", "/", "~")) or spec.count("/") > 1:
        raise ModelError(f"model folder {spec!r} does not exist")
    else:
        folder = _download_snapshot(spec)
    if (folder / MANIFEST_NAME).is_file():  # a converted default model, named by its folder
        manifest = read_manifest(folder)
        fingerprint = fingerprint_default(manifest.gguf_sha256, manifest.conversion_version)
        return ModelSource(spec, folder, is_default=False, fingerprint=fingerprint)
    if not any(folder.glob("*.safetensors")):
        raise ModelError(
            f"model {spec!r} ({folder}) has no *.safetensors weights; smscan never loads pickled "
            ".bin weights: save the model with safe_serialization=True"
        )
    fingerprint = fingerprint_folder(folder, hash_cache=root / "file-hashes.json")
    return ModelSource(spec, folder, is_default=False, fingerprint=fingerprint)


def _resolve_default(root: Path, *, pull_if_missing: bool, environ: Mapping[str, str]) -> ModelSource:
    folder = default_model_dir(root, environ)
    if not folder.exists():
        if not pull_if_missing:
            raise ModelError(f"the default model is not pulled yet ({folder}): run `smscan model pull`")
        pull_default_model(cache_dir=root, environ=environ)
    manifest = read_manifest(folder)
    if (manifest.gguf_sha256, manifest.conversion_version) != (DEFAULT_GGUF_SHA256, CONVERSION_VERSION):
        raise ModelError(
            f"model cache {folder} was converted by another smscan version: run `smscan model pull --force`"
        )
    fingerprint = fingerprint_default(manifest.gguf_sha256, manifest.conversion_version)
    return ModelSource(DEFAULT_MODEL_NAME, folder, is_default=True, fingerprint=fingerprint)


def _download_snapshot(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download

    try:
        with quiet_transformers():
            return Path(snapshot_download(repo_id, allow_patterns=list(HUB_PATTERNS)))
    except Exception as exc:  # noqa: BLE001 - every hub failure is one ModelError
        raise ModelError(
            f"model {repo_id!r} is not a local folder and could not be fetched from the Hugging Face "
            f"Hub ({describe_error(exc)}); check the name, the network, or pass a local folder"
        ) from exc
