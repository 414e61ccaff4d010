"""smscan's on-disk model cache: where it lives, its manifest, and atomic installs.

Layout under the cache root (``$SMSCAN_CACHE``, else ``$XDG_CACHE_HOME/smscan``, else
``~/.cache/smscan``)::

    models/SmolLM2-135M-Instruct/      the converted default model
        config.json, model.safetensors, tokenizer.json, ...
        smscan-manifest.json           GGUF sha256, conversion version, files with size and sha256
    file-hashes.json                   per-file hashes for fingerprints (fingerprint.py)

A folder is built under a temporary name beside its final place and renamed into it, so a killed
conversion leaves a stray ``.tmp-*`` folder (removed by the next build) and never a half cache.
Builds of one folder take turns (``build_lock``: an flock on ``locks/<folder>.lock`` under the
cache root), so two processes that find the model missing at once (two hooks, a hook and CI)
convert it once: the second waits, then finds it installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from smscan.errors import ModelError
from smscan.model.fingerprint import sha256_file
from smscan.model.names import cache_root as cache_root

MANIFEST_NAME = "smscan-manifest.json"
MANIFEST_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a converted model folder holds and where it came from."""

    model: str
    gguf_sha256: str
    conversion_version: str
    files: dict[str, tuple[int, str]]  # name -> (size in bytes, sha256 hex)

    def to_json(self) -> str:
        """The manifest as the JSON written to disk."""
        data = {
            "format": MANIFEST_FORMAT,
            "model": self.model,
            "gguf_sha256": self.gguf_sha256,
            "conversion_version": self.conversion_version,
            "files": {name: {"size": size, "sha256": sha} for name, (size, sha) in self.files.items()},
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_manifest(folder: Path, *, model: str, gguf_sha256: str, conversion_version: str) -> Manifest:
    """Hash every file in ``folder`` and write the manifest beside them.

    Args:
        folder: a freshly converted model folder.
        model: the model's display name.
        gguf_sha256: sha256 hex of the GGUF it was converted from.
        conversion_version: smscan's conversion version string.

    Returns:
        The manifest written.
    """
    files = {
        path.name: (path.stat().st_size, sha256_file(path))
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name != MANIFEST_NAME
    }
    manifest = Manifest(model, gguf_sha256, conversion_version, files)
    (folder / MANIFEST_NAME).write_text(manifest.to_json(), encoding="utf-8")
    return manifest


def read_manifest(folder: Path) -> Manifest:
    """Read and check a folder's manifest and that its files are present with their sizes.

    Args:
        folder: a converted model folder.

    Returns:
        The manifest.

    Raises:
        ModelError: the manifest or a listed file is missing, garbled or the wrong size.
    """
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        manifest = Manifest(
            model=str(data["model"]),
            gguf_sha256=str(data["gguf_sha256"]),
            conversion_version=str(data["conversion_version"]),
            files={
                str(name): (int(entry["size"]), str(entry["sha256"]))
                for name, entry in data["files"].items()
            },
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise corrupted_cache(folder, f"unreadable {MANIFEST_NAME}") from exc
    for name, (size, _) in manifest.files.items():
        path = folder / name
        if not path.is_file() or path.stat().st_size != size:
            raise corrupted_cache(folder, f"{name} is missing or the wrong size")
    return manifest


def verify_files(folder: Path, manifest: Manifest) -> None:
    """Re-hash every file listed in the manifest (slow: reads the weights).

    Raises:
        ModelError: a file's hash differs from the manifest.
    """
    for name, (_, sha) in manifest.files.items():
        if sha256_file(folder / name) != sha:
            raise corrupted_cache(folder, f"{name} does not match its recorded sha256")


def intact_manifest(folder: Path) -> Manifest | None:
    """The manifest of ``folder`` when every file it lists is present and matches its sha256
    (slow: reads the weights), else None (no folder, or a damaged one)."""
    if not folder.is_dir():
        return None
    try:
        manifest = read_manifest(folder)
        verify_files(folder, manifest)
    except ModelError:
        return None
    return manifest


def corrupted_cache(folder: Path, reason: str) -> ModelError:
    """The error for a damaged converted-model folder, with the fix."""
    return ModelError(
        f"model cache {folder} is corrupted ({reason}): run `smscan model pull --force` "
        "or delete the folder"
    )


def make_staging_dir(final: Path) -> Path:
    """A fresh empty folder beside ``final`` to build into, removing leftovers first.

    Call it holding ``build_lock(final)``: then every staging, download or retired folder of
    ``final`` was left by a build that was killed (the lock says no other build runs), so all
    are removed, whatever their age. Folders of another model (``NAME-ct2-fp32`` beside
    ``NAME``) have their own lock and are left alone.
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    for leftover in final.parent.glob(f".tmp-{final.name}-*"):
        if _LEFTOVER.fullmatch(leftover.name[len(f".tmp-{final.name}-"):]):
            shutil.rmtree(leftover, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=final.parent))


# What follows ".tmp-NAME-" in the folders a build of NAME makes: mkdtemp's 8 random characters,
# after "dl-" (the download scratch) or "old-" (a replaced folder on its way out).
_LEFTOVER = re.compile(r"(dl-|old-)?[a-z0-9_]{8}")


def install_dir(staging: Path, final: Path) -> None:
    """Move a completed staging folder to ``final``, replacing any folder already there."""
    if final.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-old-", dir=final.parent))
        os.replace(final, retired / final.name)
        os.replace(staging, final)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        os.replace(staging, final)


@contextmanager
def build_lock(final: Path, *, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
    """Hold the exclusive build lock of the model folder ``final`` until the block ends.

    The lock is an ``flock`` on ``<cache root>/locks/<name>.lock`` (outside ``models/``, so the
    models folder holds models only). The kernel drops it when its process dies, so a killed
    build never blocks the next one. The lock files are never deleted: deleting one while
    another process waits on it would let a third lock a new file and build alongside.

    Args:
        final: the folder about to be built.
        on_wait: called once when another process holds the lock (to say why nothing moves).

    Yields:
        Whether another process held the lock first: it may have built ``final`` meanwhile,
        so the caller checks again before building.
    """
    locks = final.parent.parent / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / f"{final.name}.lock").open("a+b") as handle:
        waited = _lock(handle.fileno(), on_wait)
        try:
            yield waited
        finally:
            _unlock(handle.fileno())


def _lock(fd: int, on_wait: Callable[[], None] | None) -> bool:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): builds do not take turns, installs stay atomic
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        if on_wait is not None:
            on_wait()
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True


def _unlock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(fd, fcntl.LOCK_UN)
