"""One checked connection to a running worker (``WorkerConnection``), with nothing heavy imported.

What a client trusts (README, "Security model"): it opens the run dir once (``open_run_dir``),
connects through that descriptor, and keeps that one connection for the whole command, so no
later request can reach another socket put at the same path. The peer must be a process of this
user (``SO_PEERCRED``) whose pid and executable are the ones its hello names, this interpreter,
this smscan and protocol version, and the key of these settings. Every reply must arrive whole
before one deadline and be no larger than its request can need (``worker_protocol.py``). A
process of your own user is trusted beyond that: it could edit your hooks as well.

The scoring client (``worker_client.py``) and the hook's thin client (``smscan/worker/thin_client.py``)
both build on it; this module imports no numpy, so the thin client stays light.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.scoring.worker_address import open_run_dir
from smscan.scoring.worker_protocol import ProtocolError, recv_message, send_message

CONNECT_TIMEOUT_S = 0.5
HELLO_TIMEOUT_S = 2.0
# hello and status replies are small JSON objects with no payload.
MAX_INFO_HEADER = 1 << 16
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


class WorkerUnavailable(Exception):
    """The worker cannot serve this request (gone, busy, failed, or answered garbage).

    ``quiet`` is true when nothing listens at the socket (no worker: nothing to say); every other
    reason is worth a notice that the worker was ignored.
    """

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.quiet = quiet


def ignored_notice(reason: str) -> None:
    """Say on stderr, in one line, that the warm worker was ignored and why."""
    print(f"smscan: the warm worker was ignored ({reason}); scoring in this process", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class Hello:
    """A worker's answer to ``hello``: who it is and what it scores with."""

    smscan: str
    protocol: int
    key: str
    pid: int
    executable: str
    model: str
    fingerprint: str
    settings: dict[str, Any]
    describe: dict[str, Any]
    can_tokenize: bool

    @classmethod
    def parse(cls, header: Mapping[str, Any]) -> Hello:
        """Check the types of a hello reply; WorkerUnavailable when it is malformed."""
        names = ("smscan", "protocol", "key", "pid", "executable", "model", "fingerprint", "settings", "describe", "can_tokenize")
        types = (str, int, str, int, str, str, str, dict, dict, bool)
        if not all(name in header for name in names):
            raise WorkerUnavailable("a hello without the fields of this version")
        values = [header[name] for name in names]
        if not all(isinstance(v, t) and not (t is int and isinstance(v, bool)) for v, t in zip(values, types)) or not isinstance(
            header["settings"].get("key"), str
        ):
            raise WorkerUnavailable("a malformed hello")
        return cls(*values)


class WorkerConnection:
    """Requests to the worker at ``path`` over one connection, made and checked on first use.

    The connection is opened through the run dir's descriptor and its peer checked (module
    docstring); every request of this client goes over it and a broken connection is never
    made again. Every failure (connect, peer, deadline, protocol, an error reply) raises
    ``WorkerUnavailable``.

    Raises:
        WorkerPlaceError: the run dir or its parents are not private (on first use).
    """

    def __init__(self, path: Path, *, connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.path = path
        self.connect_timeout = connect_timeout
        self._sock: socket.socket | None = None
        self._hello: Hello | None = None
        self._broken: str | None = None

    def hello(self, *, timeout: float = HELLO_TIMEOUT_S) -> Hello:
        """Who the worker is (asked and checked when the connection is made)."""
        self._connection(timeout)
        assert self._hello is not None
        return self._hello

    def status(self, *, timeout: float = HELLO_TIMEOUT_S) -> dict[str, Any]:
        """``hello`` plus pid, uptime and counters."""
        header, _ = self._request({"op": "status"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))
        return header

    def stop(self, *, timeout: float = HELLO_TIMEOUT_S) -> None:
        """Ask the worker to stop (it removes its socket within a fraction of a second)."""
        self._request({"op": "stop"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))

    def request(
        self, header: dict[str, Any], payload: bytes = b"", *, timeout: float, limits: tuple[int, int]
    ) -> tuple[dict[str, Any], bytes]:
        """Send one request and return the reply, whole within ``timeout`` seconds and no larger
        than ``limits`` (header, payload) bytes; WorkerUnavailable otherwise or on an error reply."""
        return self._request(header, payload, timeout=timeout, limits=limits)

    def close(self) -> None:
        """Close the connection; this client makes no other."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._broken = self._broken or "the connection was closed"

    def __enter__(self) -> WorkerConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A client dropped without close() (a one-off hello or status) closes its connection.
        if getattr(self, "_sock", None) is not None:
            self.close()

    def _connection(self, timeout: float) -> socket.socket:
        if self._sock is not None:
            return self._sock
        if self._broken is not None:
            raise WorkerUnavailable(self._broken)
        self._broken = "the first connection failed"  # one connection per client, whatever happens
        try:
            run = open_run_dir(self.path.parent)
        except FileNotFoundError as error:
            raise WorkerUnavailable("no worker folder", quiet=True) from error
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with run:
                sock.settimeout(self.connect_timeout)
                sock.connect(run.entry(self.path.name))
        except (FileNotFoundError, ConnectionRefusedError) as error:
            sock.close()
            raise WorkerUnavailable("no worker listens", quiet=True) from error
        except OSError as error:
            sock.close()
            raise WorkerUnavailable(f"cannot connect: {error.strerror}") from error
        self._sock = sock
        try:
            pid = self._check_peer(sock)
            header, _ = self._exchange(sock, {"op": "hello"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))
            hello = Hello.parse(header)
            self._check_hello(hello, pid)
        except WorkerUnavailable:
            self.close()
            raise
        self._hello = hello
        self._broken = None
        return sock

    @staticmethod
    def _check_peer(sock: socket.socket) -> int:
        option = getattr(socket, "SO_PEERCRED", None)
        if option is None:
            raise WorkerUnavailable("this system cannot tell who serves the socket")
        pid, uid, _ = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, option, _PEERCRED.size))
        if uid != os.geteuid():
            raise WorkerUnavailable(f"the socket is served by another user (uid {uid})")
        return int(pid)

    @staticmethod
    def _check_hello(hello: Hello, pid: int) -> None:
        if hello.pid != pid:
            raise WorkerUnavailable("the worker names another process than the one serving the socket")
        try:
            running = os.path.realpath(f"/proc/{pid}/exe", strict=True)
        except OSError:
            running = hello.executable  # no /proc: the peer's word, still checked against ours
        if not hello.executable or hello.executable != running or running != os.path.realpath(sys.executable):
            raise WorkerUnavailable("the worker runs another executable than this smscan")

    def _request(
        self, header: dict[str, Any], payload: bytes = b"", *, timeout: float, limits: tuple[int, int]
    ) -> tuple[dict[str, Any], bytes]:
        return self._exchange(self._connection(HELLO_TIMEOUT_S), header, payload, timeout=timeout, limits=limits)

    def _exchange(
        self, sock: socket.socket, header: dict[str, Any], payload: bytes = b"", *, timeout: float, limits: tuple[int, int]
    ) -> tuple[dict[str, Any], bytes]:
        deadline = time.monotonic() + timeout
        try:
            sock.settimeout(timeout)
            send_message(sock, header, payload)
            reply = recv_message(sock, deadline=deadline, max_header=limits[0], max_payload=limits[1])
        except TimeoutError as error:
            self.close()
            raise WorkerUnavailable(f"no whole answer within {timeout:.0f} s") from error
        except ProtocolError as error:
            self.close()
            raise WorkerUnavailable(str(error)) from error
        except OSError as error:
            self.close()
            raise WorkerUnavailable(f"the connection failed: {error.strerror or type(error).__name__}") from error
        if reply is None:
            self.close()
            raise WorkerUnavailable("the worker closed the connection")
        if reply[0].get("ok") is not True:
            # The peer's own words are not repeated: they may be anything.
            raise WorkerUnavailable("busy" if reply[0].get("error") == "busy" else "the worker refused the request")
        return reply
