"""``WorkerServer``: one loaded scorer behind a Unix socket, until it has been idle too long.

Each connection gets a thread that reads requests (``hello``, ``status``, ``score``,
``tokenize``, ``stop``; see ``protocol.py``); scoring holds one lock, so concurrent clients are
served one batch at a time and never share a model call. A client that cannot get the lock within
its ``wait_s`` is told ``busy`` and scores in its own process instead. ``WorkerLock`` (an
``flock`` held for the worker's life) makes sure one worker per key starts, even when two hooks
race; the socket is removed on every way out but SIGKILL, and a stale one is replaced.

Scanned text never reaches the log, and neither does anything a client chose: every log line
is a fixed string (numbers aside). What a worker spends on its clients is bounded (``limits.py``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

from smscan.errors import SmscanError
from smscan.model.passes import ForwardPass, listening
from smscan.scoring.worker_address import RunDir, open_private_file
from smscan.scoring.worker_protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    decode_texts,
    encode_scores,
    recv_message,
    send_message,
)
from smscan.worker.limits import ClientLeft, LatencyWindow, ServerLimits, has_left, wait_readable

POLL_SECONDS = 0.2
MAX_WAIT_S = 60.0

# Out of descriptors or refusing connections: say so at most this often.
_NOTICE_EVERY_S = 10.0
_OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def _wait_s(header: dict[str, Any]) -> float:
    """How long a request may wait for the scoring lock: its ``wait_s``, within 0..MAX_WAIT_S."""
    wait = header.get("wait_s", 5.0)
    if not isinstance(wait, (int, float)) or isinstance(wait, bool):
        raise ProtocolError("'wait_s' must be a number")
    return min(max(float(wait), 0.0), MAX_WAIT_S)


def _stop_when_gone(connection: socket.socket) -> Callable[[ForwardPass], None]:
    """A forward-pass listener that cancels the job once its client has hung up."""

    def stop_if_gone(forward: ForwardPass) -> None:
        if has_left(connection):
            raise ClientLeft

    return stop_if_gone


class WorkerLock:
    """An exclusive ``flock`` on ``<run dir>/<key>.lock``: held while a worker loads and serves.

    The lock file is opened relative to the run dir's descriptor, never through a symlink, and
    must be a plain file of ours with one link (it outlives a worker, so it is not ``O_EXCL``).
    """

    def __init__(self, run: RunDir, key: str) -> None:
        self.run = run
        self.name = f"{key}.lock"
        self.path = run.path / self.name
        self._fd: int | None = None

    def __enter__(self) -> WorkerLock:
        fd = open_private_file(self.run, self.name, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            os.close(fd)
            raise SmscanError(
                f"a worker for these settings is already running or starting ({self.path}); "
                "see `smscan serve --status`"
            ) from error
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the flock
            self._fd = None


class WorkerServer:
    """Serve ``scorer`` at ``path`` until idle for ``idle_timeout`` seconds or asked to stop.

    Args:
        scorer: a loaded scorer (``fingerprint``, ``settings``, ``score_texts``, ``describe``).
        run: the run dir, opened and checked (``address.open_run_dir``); the socket is made in it.
        key: the ``worker_key`` of the settings the scorer was built with.
        model: the model name shown by ``--status``.
        idle_timeout: seconds without a request after which the worker stops.
        log: where one-line notices go (stderr by default).
        limits: connections, bytes and time a client may take (``limits.py``).

    Example:
        >>> with open_run_dir(folder, create=True) as run, WorkerLock(run, key):  # doctest: +SKIP
        ...     WorkerServer(scorer, run=run, key=key, model="default", idle_timeout=900).serve()
    """

    def __init__(
        self,
        scorer: Any,
        *,
        run: RunDir,
        key: str,
        model: str,
        idle_timeout: float,
        log: Callable[[str], None] | None = None,
        limits: ServerLimits = ServerLimits(),
    ) -> None:
        self.scorer = scorer
        self.run = run
        self.name = f"{key}.sock"
        self.path = run.path / self.name
        self.key = key
        self.model = model
        self.idle_timeout = idle_timeout
        self.log = log or (lambda line: print(f"smscan worker: {line}", file=sys.stderr, flush=True))
        self.started = time.time()
        self.texts_scored = 0
        self.scans = 0
        self.requests = 0
        self._stop = threading.Event()
        self._scoring = threading.Lock()
        self._state = threading.Lock()  # guards _active, _last_activity and the counters
        self._active = 0
        self._last_activity = time.monotonic()
        self.limits = limits
        self.latency = LatencyWindow()
        self._noticed: dict[str, float] = {}

    def hello(self) -> dict[str, Any]:
        """What a client checks before using this worker, and what ``--status`` shows."""
        from smscan import __version__

        settings = self.scorer.settings
        return {
            "ok": True,
            "smscan": __version__,
            "protocol": PROTOCOL_VERSION,
            "key": self.key,
            "pid": os.getpid(),
            "executable": os.path.realpath(sys.executable),
            "model": self.model,
            "fingerprint": str(self.scorer.fingerprint),
            "settings": {
                "key": str(settings.key()),
                **{
                    name: getattr(settings, name)
                    for name in ("context_tokens", "stride", "dtype", "batch_size")
                    if hasattr(settings, name)
                },
            },
            "describe": self.scorer.describe() if hasattr(self.scorer, "describe") else {},
            "can_tokenize": callable(getattr(self.scorer, "tokenize", None)),
        }

    def status(self) -> dict[str, Any]:
        """``hello`` plus uptime, counters and the socket path."""
        with self._state:
            counters = {
                "texts_scored": self.texts_scored, "scans": self.scans, "requests": self.requests,
                "connections": self._active,
            }  # fmt: skip
            latency = self.latency.percentiles()
        return {
            **self.hello(), **counters, "uptime_s": time.time() - self.started,
            "idle_timeout_s": self.idle_timeout, "socket": str(self.path), "latency": latency,
        }  # fmt: skip

    def stop(self) -> None:
        """Ask the serving loop to end (from any thread or a signal handler)."""
        self._stop.set()

    def serve(self) -> str:
        """Bind, serve until idle or stopped, remove the socket. Returns why it stopped.

        Raises:
            SmscanError: the socket cannot be bound.
        """
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._remove_socket()  # stale: the caller holds the WorkerLock, so no worker owns it
            listener.bind(self.run.entry(self.name))  # fails if anything appeared there meanwhile
            os.chmod(self.run.entry(self.name), 0o600)
            listener.listen(self.limits.max_connections)
        except OSError as error:
            listener.close()
            raise SmscanError(f"cannot listen on {self.path}: {error.strerror}") from error
        listener.settimeout(POLL_SECONDS)
        previous = self._install_signal_handlers()
        self.log(
            f"serving {self.model} ({self.scorer.fingerprint}) at {self.path}, pid {os.getpid()}; "
            f"stops after {self.idle_timeout:g} s idle"
        )
        reason = "stopped on request"
        try:
            while not self._stop.is_set():
                try:
                    connection, _ = listener.accept()
                except socket.timeout:
                    if self._is_idle():
                        reason = f"idle for {self.idle_timeout:g} s"
                        break
                    continue
                except OSError as error:
                    if error.errno not in _OUT_OF_DESCRIPTORS:
                        raise
                    self._notice("out of file descriptors: new connections wait")
                    time.sleep(POLL_SECONDS)
                    continue
                with self._state:
                    full = self._active >= self.limits.max_connections
                    if not full:
                        self._active += 1
                        self._last_activity = time.monotonic()
                if full:
                    connection.close()
                    self._notice("connection limit reached: closed a new connection")
                    continue
                try:
                    threading.Thread(target=self._serve_connection, args=(connection,), daemon=True).start()
                except RuntimeError:  # no thread could be started
                    connection.close()
                    with self._state:
                        self._active -= 1
                    self._notice("cannot start a thread: closed a new connection")
        finally:
            self._restore_signal_handlers(previous)
            listener.close()
            self._remove_socket()
        self.log(f"stopped: {reason}")
        return reason

    def _remove_socket(self) -> None:
        try:
            os.unlink(self.name, dir_fd=self.run.fd)
        except FileNotFoundError:
            pass

    def _is_idle(self) -> bool:
        with self._state:
            return self._active == 0 and time.monotonic() - self._last_activity >= self.idle_timeout

    def _notice(self, line: str) -> None:
        # A fixed line, at most once per _NOTICE_EVERY_S: a flood of clients floods no log.
        now = time.monotonic()
        if now - self._noticed.get(line, -_NOTICE_EVERY_S) >= _NOTICE_EVERY_S:
            self._noticed[line] = now
            self.log(line)

    def _serve_connection(self, connection: socket.socket) -> None:
        limits = self.limits
        closes_at = time.monotonic() + limits.lifetime_s
        try:
            while not self._stop.is_set():
                wait = min(limits.idle_s, closes_at - time.monotonic())
                if wait <= 0 or not wait_readable(connection, wait):
                    break  # idle too long, or lived long enough: the client connects again
                message = recv_message(
                    connection, deadline=time.monotonic() + limits.frame_deadline_s,
                    max_header=limits.max_request_header, max_payload=limits.max_request_bytes,
                )  # fmt: skip
                if message is None:
                    break
                started = time.monotonic()
                header, payload = message
                with self._state:
                    self.requests += 1
                answer = self._answer(header, payload, connection)
                if answer is None:
                    break  # the client left mid-job
                reply, data = answer
                connection.settimeout(limits.frame_deadline_s)
                send_message(connection, reply, data)
                with self._state:
                    self._last_activity = time.monotonic()
                    if header.get("op") in ("score", "tokenize", "scan"):
                        self.latency.record(self._last_activity - started)
        except ProtocolError:
            self._notice("dropped a client that broke the protocol")
            try:
                connection.settimeout(1.0)
                send_message(connection, {"ok": False, "error": "protocol error"})
            except OSError:
                pass
        except OSError:
            pass  # the client went away, was too slow, or timed out; nothing to answer
        finally:
            connection.close()
            with self._state:
                self._active -= 1
                self._last_activity = time.monotonic()

    def _answer(
        self, header: dict[str, Any], payload: bytes, connection: socket.socket
    ) -> tuple[dict[str, Any], bytes] | None:
        op = header.get("op")
        if op == "hello":
            return self.hello(), b""
        if op == "status":
            return self.status(), b""
        if op == "stop":
            self.stop()
            return {"ok": True}, b""
        if op in ("score", "tokenize"):
            return self._score(str(op), header, payload, connection)
        if op == "scan":
            return self._scan(header, connection)
        raise ProtocolError("unknown request")

    def _scan(self, header: dict[str, Any], connection: socket.socket) -> tuple[dict[str, Any], bytes] | None:
        """A whole scan for a thin client (``scan_service.py``); its answer is a JSON payload."""
        import json

        from smscan.worker.scan_service import ScanRefused, run_scan_request

        wait = _wait_s(header)
        if not self._scoring.acquire(timeout=wait):
            return {"ok": False, "error": "busy"}, b""
        try:
            with listening(_stop_when_gone(connection)):
                answer = run_scan_request(header, self.scorer, key=self.key)
        except ClientLeft:
            self._notice("a client left: its job was cancelled")
            return None
        except ScanRefused as error:
            return {"ok": False, "error": str(error)}, b""
        except SmscanError:
            return {"ok": False, "error": "the scan failed: the client runs it"}, b""
        except Exception as error:  # noqa: BLE001 - the worker outlives a failed request; the client runs it
            self.log(f"scan failed: {type(error).__name__}")
            return {"ok": False, "error": "scan failed"}, b""
        finally:
            self._scoring.release()
        with self._state:
            self.scans += 1
        return {"ok": True, "digest": answer.pop("digest")}, json.dumps(answer, allow_nan=False).encode("utf-8")

    def _score(
        self, op: str, header: dict[str, Any], payload: bytes, connection: socket.socket
    ) -> tuple[dict[str, Any], bytes] | None:
        texts = decode_texts(header.get("lengths"), payload)
        wait = _wait_s(header)
        if op == "tokenize" and not callable(getattr(self.scorer, "tokenize", None)):
            return {"ok": False, "error": "this worker's scorer cannot tokenize"}, b""
        if not self._scoring.acquire(timeout=wait):
            return {"ok": False, "error": "busy"}, b""
        try:
            if has_left(connection):
                raise ClientLeft
            with listening(_stop_when_gone(connection)):
                scores = self.scorer.score_texts(texts) if op == "score" else self.scorer.tokenize(texts)
        except ClientLeft:
            self._notice("a client left: its job was cancelled")
            return None
        except Exception as error:  # noqa: BLE001 - the worker outlives a failed request; the client falls back
            self.log(f"{op} failed: {type(error).__name__}")
            return {"ok": False, "error": f"{op} failed"}, b""
        finally:
            self._scoring.release()
        if op == "score":
            with self._state:
                self.texts_scored += len(texts)
        counts, data = encode_scores(scores)
        return {"ok": True, "counts": counts}, data

    def _install_signal_handlers(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous: dict[int, Any] = {}

        def on_signal(number: int, frame: FrameType | None) -> None:
            self.stop()

        for number in (signal.SIGTERM, signal.SIGHUP):
            previous[number] = signal.signal(number, on_signal)
        return previous

    @staticmethod
    def _restore_signal_handlers(previous: dict[int, Any]) -> None:
        for number, handler in previous.items():
            signal.signal(number, handler)
