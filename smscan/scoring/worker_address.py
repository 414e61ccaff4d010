"""Where a worker listens, and which worker a command may use.

One worker serves one (smscan version, model, device, dtype, threads, runtime, scoring rule and
instructions) combination: the
``worker_key`` of those values names its socket, ``<run dir>/<key>.sock``, and the worker repeats
the key in its hello so a client can refuse a mismatch. The run dir is ``$XDG_RUNTIME_DIR/smscan``
or, without one, ``<smscan cache root>/run``; it must be a folder of this user with mode 0700,
since anyone who can connect to the socket can make the worker score text and read the scores.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from smscan.config.settings import Settings
from smscan.errors import SmscanError

# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS), including the final NUL.
MAX_SOCKET_PATH_BYTES = 100
# Settings fields that decide how the model is built; a field a later version adds (a runtime
# choice) joins the key when it exists.
MODEL_FIELDS = ("model", "device", "dtype", "threads", "runtime", "scoring_rule", "instructions")


class WorkerPlaceError(SmscanError):
    """The run dir or socket path cannot be used safely (the message says why and the fix)."""


def run_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The folder for worker sockets: ``$XDG_RUNTIME_DIR/smscan``, else ``<cache root>/run``."""
    if environ.get("XDG_RUNTIME_DIR"):
        return Path(environ["XDG_RUNTIME_DIR"]) / "smscan"
    from smscan.model.store import cache_root

    return cache_root(environ) / "run"


def worker_key(
    settings: Settings, *, dtype: str | None = None, environ: Mapping[str, str] = os.environ
) -> str:
    """A short stable key of what the worker's model depends on (see the module docstring).

    Args:
        settings: the command's settings.
        dtype: the command's dtype override, as ``build_scorer`` takes it.
        environ: where the default model's cache lives (``SMSCAN_CACHE``, ``XDG_CACHE_HOME``).

    Returns:
        16 hex characters.
    """
    from smscan import __version__
    from smscan.model.source import is_default_model
    from smscan.model.store import cache_root

    values: dict[str, object] = {name: getattr(settings, name, None) for name in MODEL_FIELDS}
    if dtype is not None:
        values["dtype"] = dtype
    if values.get("scoring_rule") == "unprompted":  # keys from before scoring rules stay valid
        del values["scoring_rule"], values["instructions"]
    spec = settings.model
    if is_default_model(spec):
        values["model"] = f"default@{cache_root(environ)}"
    elif Path(spec).expanduser().is_dir():
        values["model"] = str(Path(spec).expanduser().resolve())
    values["smscan"] = __version__
    text = json.dumps(values, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def check_private_dir(folder: Path, *, uid: int | None = None) -> None:
    """Refuse a folder that is a symlink, not this user's, or open to group or others.

    Raises:
        WorkerPlaceError: naming the folder and the fix.
    """
    try:
        info = folder.lstat()
    except OSError as error:
        raise WorkerPlaceError(f"worker folder {folder}: cannot read it ({error.strerror})") from error
    if not stat.S_ISDIR(info.st_mode):
        raise WorkerPlaceError(f"worker folder {folder} is not a folder (a symlink?); remove it")
    owner = os.getuid() if uid is None else uid
    if info.st_uid != owner:
        raise WorkerPlaceError(
            f"worker folder {folder} belongs to another user (uid {info.st_uid}); smscan will not "
            "use it: set XDG_RUNTIME_DIR to a folder of yours"
        )
    if info.st_mode & 0o077:
        raise WorkerPlaceError(
            f"worker folder {folder} has mode {stat.S_IMODE(info.st_mode):03o}; others could reach "
            f"the worker: run `chmod 700 {folder}` or remove it"
        )


def make_private_dir(folder: Path) -> None:
    """Create the run dir with mode 0700 (parents as needed), then check it."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise WorkerPlaceError(f"worker folder {folder}: cannot create it ({error.strerror})") from error
    check_private_dir(folder)


def socket_path(folder: Path, key: str) -> Path:
    """``<folder>/<key>.sock``; WorkerPlaceError when too long for a Unix socket."""
    path = folder / f"{key}.sock"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES:
        raise WorkerPlaceError(
            f"worker socket path {path} is too long for a Unix socket; set XDG_RUNTIME_DIR to a "
            "shorter folder"
        )
    return path


def is_claimed(folder: Path, key: str) -> bool:
    """Whether a worker for ``key`` holds its lock (it is loading or serving)."""
    try:
        fd = os.open(folder / f"{key}.lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
