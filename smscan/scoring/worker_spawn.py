"""Start a worker in the background: ``smscan serve`` detached from the terminal and the hook.

The child is ``python -m smscan serve`` with the caller's settings spelled out as flags (and its
config file, for keys without a flag), in a new session, its output in ``<run dir>/<key>.log``
(mode 0600; it holds notices, never scanned text). The log is made afresh (``O_EXCL``,
``O_NOFOLLOW``) relative to the run dir's descriptor, so no symlink planted there is written
through.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

from smscan.config.settings import Settings
from smscan.errors import SmscanError
from smscan.scoring.worker_address import RunDir, open_run_dir, run_dir, socket_path, worker_key
from smscan.scoring.worker_client import WorkerClient, WorkerUnavailable

DEFAULT_IDLE_TIMEOUT_S = 15 * 60.0
_GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX")


def serve_argv(settings: Settings, *, idle_timeout: float) -> list[str]:
    """The command line of a worker for ``settings``."""
    argv = [
        sys.executable, "-m", "smscan", "serve", "--model", settings.model, "--device", settings.device,
        "--dtype", settings.dtype, "--threads", str(settings.threads), "--idle-timeout", f"{idle_timeout:g}",
    ]  # fmt: skip
    if settings.source != "defaults":
        argv += ["--config", settings.source]
    if settings.scoring_rule != "unprompted":  # a flag may have chosen it: the worker must serve it too
        argv += ["--scoring-rule", settings.scoring_rule]
        for text in settings.instructions:
            argv += ["--instructions", text]
    return argv


def start_detached(
    settings: Settings,
    *,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Start a worker for ``settings`` in the background (a new session) and return at once.

    ``posix_spawn`` rather than ``subprocess``: the child outlives this process, which never
    waits for it (a ``Popen`` would warn that it is still running).

    Returns:
        The worker's pid.

    Raises:
        SmscanError: the run dir is not private or the process cannot be started.
    """
    key = worker_key(settings, environ=environ)
    with open_run_dir(run_dir(environ), create=True) as run:
        fd = _fresh_log(run, f"{key}.log")
    argv = serve_argv(settings, idle_timeout=idle_timeout)
    # A hook that starts a worker runs inside a commit: the worker must not keep its index or repository.
    child_env = {name: value for name, value in environ.items() if name not in _GIT_REDIRECTS}
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, fd, 1),
        (os.POSIX_SPAWN_DUP2, fd, 2),
    ]
    try:
        try:
            return os.posix_spawn(argv[0], argv, child_env, file_actions=actions, setsid=True)
        except NotImplementedError:  # no POSIX_SPAWN_SETSID: at least leave the caller's group
            return os.posix_spawn(argv[0], argv, child_env, file_actions=actions, setpgroup=0)
    except OSError as error:
        raise SmscanError(f"cannot start the worker: {error.strerror}") from error
    finally:
        os.close(fd)


def _fresh_log(run: RunDir, name: str) -> int:
    try:
        os.unlink(name, dir_fd=run.fd)  # the last worker's log (or anything planted in its place)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise SmscanError(f"cannot replace the worker log {run.path / name}: {error.strerror}") from error
    try:
        return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=run.fd)
    except OSError as error:
        raise SmscanError(f"cannot write the worker log {run.path / name}: {error.strerror}") from error


def wait_until_serving(
    pid: int, settings: Settings, *, timeout: float, environ: Mapping[str, str] = os.environ
) -> int:
    """Wait until the worker ``pid`` (our child) answers hello; returns its pid.

    Raises:
        SmscanError: it exited or did not answer within ``timeout`` (the message names its log).
    """
    folder = run_dir(environ)
    key = worker_key(settings, environ=environ)
    path = socket_path(folder, key)
    log = folder / f"{key}.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            raise SmscanError(
                f"the worker exited with status {os.waitstatus_to_exitcode(status)} before serving; see {log}"
            )
        try:  # a client makes one connection: a new one per try
            return WorkerClient(path).hello(timeout=1.0).pid
        except WorkerUnavailable:
            time.sleep(0.1)
    raise SmscanError(f"the worker did not answer within {timeout:g} s; see {log}")


def start_worker_unless_starting(settings: Settings, *, environ: Mapping[str, str] = os.environ) -> bool:
    """``worker = "auto"``: start a detached worker unless one is already loading or serving.

    Never raises: a worker that cannot start only means this and later commands score in-process.
    Returns whether one was started.
    """
    from smscan.scoring.worker_address import is_claimed

    try:
        with open_run_dir(run_dir(environ), create=True) as run:
            if is_claimed(run, worker_key(settings, environ=environ)):
                return False
        start_detached(settings, environ=environ)
    except SmscanError:
        return False
    return True
