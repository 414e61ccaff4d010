"""Where a worker listens, and which worker a command may use.

One worker serves one (smscan version, model, device, dtype, threads, runtime, scoring rule and
instructions) combination: the
``worker_key`` of those values names its socket, ``<run dir>/<key>.sock``, and the worker repeats
the key in its hello so a client can refuse a mismatch. The run dir is ``$XDG_RUNTIME_DIR/smscan``
or, without one, ``<smscan cache root>/run``; it must be a folder of this user with mode 0700,
since anyone who can connect to the socket can make the worker score text and read the scores.

A process opens the run dir once (``open_run_dir``: ``O_DIRECTORY|O_NOFOLLOW``, then ``fstat``)
and reaches the lock, log and socket only relative to that descriptor (``RunDir.entry``), so a
folder swapped or symlinked after the check is never used. Every folder above it must be this
user's or root's and writable by no one else (a world-writable one only with the sticky bit, as
``/tmp``): whoever can write a parent can rename the run dir and put their own in its place.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

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
    from smscan.model.names import cache_root, is_default_model  # light: the thin client computes this

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
    _check_private(folder, info, uid=uid)


def _check_private(folder: Path, info: os.stat_result, *, uid: int | None = None) -> None:
    if not stat.S_ISDIR(info.st_mode):
        raise WorkerPlaceError(f"worker folder {folder} is not a folder (a symlink?); remove it")
    owner = os.geteuid() if uid is None else uid
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


def check_parents(folder: Path, *, uid: int | None = None) -> Path:
    """Refuse a run dir whose parents another user could write; returns its resolved parent.

    Each folder from the resolved parent up to ``/`` must belong to this user or root and be
    writable by no one else, unless it has the sticky bit (``/tmp``): there others cannot rename
    what is ours.

    Raises:
        WorkerPlaceError: naming the folder, its owner and the fix.
        FileNotFoundError: a parent is missing.
    """
    owner = os.geteuid() if uid is None else uid
    parent = Path(os.path.realpath(folder.parent))
    for above in (parent, *parent.parents):
        try:
            info = os.lstat(above)
        except FileNotFoundError:
            raise  # no run dir yet: the caller decides (nothing to connect to, or create it)
        except OSError as error:
            raise WorkerPlaceError(f"worker folder {folder}: cannot read {above} ({error.strerror})") from error
        if info.st_uid not in (0, owner):
            raise WorkerPlaceError(
                f"worker folder {folder}: {above} belongs to another user (uid {info.st_uid}), who could "
                "replace the folder; set XDG_RUNTIME_DIR to a folder of yours"
            )
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            raise WorkerPlaceError(
                f"worker folder {folder}: others can write {above} (mode {stat.S_IMODE(info.st_mode):03o}) "
                "and could replace the folder; set XDG_RUNTIME_DIR to a private folder"
            )
    return parent


@dataclass
class RunDir:
    """The run dir, opened once; its entries are reached through the descriptor (module docstring).

    Use as a context manager, or call ``close``.
    """

    path: Path
    fd: int

    def entry(self, name: str) -> str:
        """A path that reaches ``name`` inside this very folder (``/proc/self/fd/N/name`` on Linux)."""
        through_fd = f"/proc/self/fd/{self.fd}"
        if os.path.isdir(through_fd):
            return f"{through_fd}/{name}"
        return str(self.path / name)  # no /proc: the checked path (its parents are checked too)

    def close(self) -> None:
        """Close the descriptor."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> RunDir:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def open_run_dir(folder: Path, *, create: bool = False, uid: int | None = None) -> RunDir:
    """Open the run dir once: parents checked, ``O_DIRECTORY|O_NOFOLLOW``, then ``fstat``-checked.

    Args:
        folder: the run dir (``run_dir()``).
        create: create it (mode 0700; its parents as needed) when missing.
        uid: the owner required (default: this process's effective uid).

    Raises:
        WorkerPlaceError: a parent another user can write, a folder that is a symlink, not ours,
            or not 0700, or that cannot be opened or created; ``FileNotFoundError`` (a subclass
            of ``OSError``, not of this) when it is missing and ``create`` is false.
    """
    if create:
        try:
            folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise WorkerPlaceError(f"worker folder {folder}: cannot create it ({error.strerror})") from error
    parent = check_parents(folder, uid=uid)
    try:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise WorkerPlaceError(f"worker folder {folder}: cannot open {parent} ({error.strerror})") from error
    try:
        if create:
            try:
                os.mkdir(folder.name, 0o700, dir_fd=parent_fd)
            except FileExistsError:
                pass
            except OSError as error:
                raise WorkerPlaceError(f"worker folder {folder}: cannot create it ({error.strerror})") from error
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(folder.name, flags, dir_fd=parent_fd)
        except FileNotFoundError:
            raise
        except OSError as error:  # ELOOP: a symlink; ENOTDIR: a file
            raise WorkerPlaceError(
                f"worker folder {folder} is not a folder (a symlink?) or cannot be opened ({error.strerror}); remove it"
            ) from error
    finally:
        os.close(parent_fd)
    try:
        _check_private(folder, os.fstat(fd), uid=os.geteuid() if uid is None else uid)
    except WorkerPlaceError:
        os.close(fd)
        raise
    return RunDir(folder, fd)


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


def open_private_file(run: RunDir, name: str, flags: int) -> int:
    """Open ``name`` in the run dir without following a symlink; refuse anything but a plain file
    of ours with one link (SmscanError naming it)."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=run.fd)
    except OSError as error:
        raise SmscanError(f"cannot open {run.path / name}: {error.strerror}; remove it") from error
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_nlink != 1:
        os.close(fd)
        raise SmscanError(f"{run.path / name} is not a plain file of yours; remove it")
    return fd


def is_claimed(run: RunDir, key: str) -> bool:
    """Whether a worker for ``key`` holds its lock (it is loading or serving)."""
    try:
        fd = open_private_file(run, f"{key}.lock", os.O_RDONLY)
    except SmscanError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
